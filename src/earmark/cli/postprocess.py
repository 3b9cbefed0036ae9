"""`earmark postprocess`: run a formatter or script converter over a run's transcripts."""

from __future__ import annotations

import argparse
import sys

from earmark.cli.arguments import positive_int
from earmark.cli.options import (
    Subcommands,
    add_bootstrap,
    add_bootstrap_generator,
    add_expect_sha256,
    add_out,
    add_quiet,
    add_seed,
)


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "postprocess",
        help="evaluate an output post-processor (formatter, script conversion) on a run",
        description="Send every transcript of a run through a post-processor REPEATS times, "
        "deliver guarded outputs, and measure acceptance, punctuation F1 raw vs delivered, "
        "CER equality and determinism with clip bootstrap intervals. Writes "
        "postprocess.json, postprocess.md and a delivered predictions.jsonl.",
    )
    p.add_argument("--run", required=True, help="run directory, score output, or predictions.jsonl")
    p.add_argument(
        "--processor",
        help="command:PROGRAM ARGS | openai-chat:URL?model=M&temperature=0&prompt_file=P "
        "| opencc:s2t (t2s, s2tw, s2twp, s2hk)",
    )
    p.add_argument(
        "--repeats", type=positive_int, help="calls per transcript (default: 3, or the plan's)"
    )
    p.add_argument(
        "--plan",
        metavar="PLAN.toml",
        help="take processor, prompt, repeats and guard options from the plan's [postprocess] "
        "table (see `earmark plan freeze`); options also given must agree",
    )
    add_expect_sha256(p)
    p.add_argument("--arm", help="arm to post-process when the run has several")
    p.add_argument(
        "--allow-substitution",
        action="append",
        default=[],
        metavar="A=B",
        help="treat A and B as the same text in the lexical guard (repeatable)",
    )
    p.add_argument(
        "--guard-marks",
        default="",
        metavar="MARKS",
        help="punctuation marks the guard treats as content (e.g. '、·' to reject 、→·; "
        "default: none)",
    )
    add_bootstrap(p, plan=True)
    add_bootstrap_generator(p)
    add_seed(p, plan=True)
    add_out(p, "output directory")
    add_quiet(p, "print warnings only")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from earmark.api.postprocessing import postprocess
    from earmark.postprocess.report import Figure

    summary = postprocess(
        run=args.run,
        out=args.out,
        processor=args.processor,
        repeats=args.repeats,
        plan=args.plan,
        expect_sha256=args.expect_sha256,
        arm=args.arm,
        allow_substitution=tuple(args.allow_substitution),
        guard_marks=args.guard_marks,
        bootstrap=args.bootstrap,
        seed=args.seed,
        bootstrap_generator=args.bootstrap_generator,
    ).summary
    for warning in summary.warnings:
        print(f"earmark: WARNING: {warning}", file=sys.stderr)
    if not args.quiet:
        acc = summary.overall.acceptance
        punct = summary.overall.punctuation

        def f1(stat: Figure) -> str:
            return "—" if stat.value is None else f"{stat.value:.3f}"

        print(
            f"accepted {acc.accepted}/{acc.total} outputs, "
            f"{acc.clips_passed}/{acc.clips_total} clips; position F1 "
            f"{f1(punct.raw.position_f1)} -> {f1(punct.delivered.position_f1)}, "
            f"position+type F1 {f1(punct.raw.type_f1)} -> "
            f"{f1(punct.delivered.type_f1)}"
        )
        print(
            f"wrote {args.out}/postprocess.json, postprocess.md, predictions.jsonl, "
            "artefacts.sha256"
        )
    return 0
