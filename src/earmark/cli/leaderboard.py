"""`earmark leaderboard`: rank systems across run directories (Markdown, CSV, JSON, HTML)."""

from __future__ import annotations

import argparse

from earmark.cli.arguments import share
from earmark.cli.options import Subcommands, add_out, add_quiet


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "leaderboard",
        help="rank arms of several runs per corpus and language",
        description="One table of systems (arms) × corpora with WER/CER and CIs in each "
        "language's primary view, RTF, peak RSS, model revision and normaliser. Runs without "
        "model revision, corpus hash or host profile are marked unverifiable and ranked last; "
        "arms without a hypothesis for every clip (see --min-coverage) are not ranked. "
        "Self-reported figures are listed apart, never ranked; a contamination report marks "
        "rows on its corpus.",
    )
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="run or score directories")
    add_out(p, "output directory", metavar="DIR")
    p.add_argument(
        "--min-coverage",
        type=share,
        default=1.0,
        metavar="SHARE",
        help="rank only rows where at least this share of clips got a hypothesis from the "
        "engine (default 1: every clip); others are listed apart, unranked",
    )
    p.add_argument(
        "--self-reported",
        action="append",
        default=[],
        metavar="FILE.json",
        help="published figures (earmark.self-reported/1: system, manifest_sha256, language, "
        "metric, value, source URL) shown apart as 'self-reported (not verified)', never "
        "ranked (repeatable)",
    )
    p.add_argument(
        "--contamination",
        action="append",
        default=[],
        metavar="FILE.json",
        help="a report of `earmark manifest contamination`: rows on its corpus (manifest "
        "SHA-256) are marked suspect (repeatable)",
    )
    p.add_argument(
        "--contamination-share",
        type=share,
        default=0.0,
        metavar="SHARE",
        help="mark a row when more than this share of its language's utterances is flagged "
        "(default 0: any flagged utterance); a canary found always marks",
    )
    # Issue 23 (board): the declared system type.
    p.add_argument(
        "--system-type",
        action="append",
        default=[],
        metavar="NAME=TYPE",
        help="declare a system's type (open, open-weights, api, closed) by arm or system "
        "name, shown in its own column; undeclared systems show `undeclared` (repeatable)",
    )
    add_quiet(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from earmark.api.rendering import leaderboard

    written = leaderboard(
        args.run_dirs,
        out=args.out,
        min_coverage=args.min_coverage,
        self_reported=args.self_reported,
        contamination=args.contamination,
        contamination_share=args.contamination_share,
        system_type=args.system_type,
    )
    if not args.quiet:
        print(written["md"].read_text("utf-8"))
        print("wrote " + ", ".join(str(p) for p in written.values()))
    return 0
