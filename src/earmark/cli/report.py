"""`earmark report`: write a run's self-contained HTML report."""

from __future__ import annotations

import argparse

from earmark.cli.arguments import non_negative_int
from earmark.cli.options import Subcommands, add_out


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "report",
        help="write a self-contained HTML report of a run directory",
        description="Render RUN_DIR (results.json, predictions.jsonl, provenance.json and, "
        "when given or present, compare.json) as one HTML file that loads nothing from the "
        "network.",
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="a run or `earmark score` output directory")
    p.add_argument(
        "--compare",
        metavar="COMPARE_DIR_OR_JSON",
        help="compare.json (or its directory) from `earmark compare`; default: RUN_DIR's own",
    )
    add_out(p, "output file (default RUN_DIR/report.html)", required=False, metavar="FILE")
    p.add_argument("--title", help="page title (default: 'earmark report: ' and RUN_DIR's name)")
    p.add_argument(
        "--worst",
        type=non_negative_int,
        default=5,
        metavar="K",
        help="worst utterances shown per arm × language (default: %(default)s)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from earmark.api.rendering import report

    path = report(
        args.run_dir, compare=args.compare, out=args.out, title=args.title, worst=args.worst
    )
    print(f"wrote {path}")
    return 0
