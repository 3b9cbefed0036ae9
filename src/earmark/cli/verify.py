"""`earmark verify RUN_DIR`: recompute every figure and hash of a run; exit 1 on a mismatch."""

from __future__ import annotations

import argparse

from earmark.cli.arguments import output_path
from earmark.cli.options import Subcommands, add_quiet


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "verify",
        help="recompute a run's figures from predictions.jsonl and check its hashes",
        description="Re-normalise, recount, re-aggregate and re-bootstrap every figure in "
        "results.json from predictions.jsonl (CIs must reproduce exactly), and check the "
        "manifest, model-file and plan hashes. Exit 1 on any mismatch.",
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="an earmark run or score output directory")
    p.add_argument(
        "--json", metavar="FILE", type=output_path, help="also write the report as JSON to FILE"
    )
    add_quiet(p, "print only mismatches")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from earmark.api.checking import verify

    report = verify(args.run_dir, json=args.json)
    for check in report.checks:
        if args.quiet and check.status != "mismatch":
            continue
        print(f"{check.status.upper():<12} {check.name}: {check.detail}")
    mismatches = sum(c.status == "mismatch" for c in report.checks)
    print(
        f"verify {args.run_dir}: "
        + ("OK" if report.ok else f"FAILED ({mismatches} mismatch(es))")
        + f" — {len(report.checks)} checks"
    )
    return 0 if report.ok else 1
