"""`earmark leaderboard`: rank systems across run directories (Markdown, CSV, JSON, HTML)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "leaderboard",
        help="rank arms of several runs per corpus and language",
        description="One table of systems (arms) × corpora with WER/CER and CIs in each "
        "language's primary view, RTF, peak RSS, model revision and normaliser. Runs without "
        "model revision, corpus hash or host profile are marked unverifiable and ranked last.",
    )
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="run or score directories")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from earmark.report.leaderboard import write_leaderboard

    written = write_leaderboard(args.run_dirs, args.out)
    if not args.quiet:
        print(written["md"].read_text("utf-8"))
        print("wrote " + ", ".join(str(p) for p in written.values()))
    return 0
