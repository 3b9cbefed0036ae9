"""`earmark decide`: a dated promotion/rejection record for a challenger vs a baseline."""

from __future__ import annotations

import argparse

from earmark.cli.arguments import share
from earmark.cli.options import Subcommands, add_out, add_quiet


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "decide",
        help="apply the promotion rule to a challenger vs a baseline (dated record)",
        description="The pre-registered promotion rule: >= 20% relative error reduction, "
        "or >= 30% lower latency / core cost at non-inferior error (paired bootstrap CI), "
        "on the same data. "
        "Writes decision-YYYY-MM-DD.md and .json with verdict promote / blocked / stay / "
        "research only / reject, the evidence and the non-metric gates to confirm. "
        "Refuses unlike decoding settings; rejects a challenger over the plan's [ceilings].",
    )
    p.add_argument(
        "--baseline",
        required=True,
        metavar="RUN[#ARM]",
        help="the current system: a run directory, or RUN#ARM for one of its arms",
    )
    p.add_argument(
        "--challenger",
        required=True,
        metavar="RUN[#ARM]",
        help="the candidate, on the same data: a run directory, or RUN#ARM",
    )
    p.add_argument(
        "--rules",
        metavar="FILE.toml",
        help="thresholds (default: the promotion rule above; see docs/report.md)",
    )
    add_out(p, "where the record is written", metavar="DIR")
    p.add_argument(
        "--min-coverage",
        type=share,
        metavar="SHARE",
        help="share of rows per language that must have a hypothesis from the engine on "
        "both sides (default 1: every row; overrides min_coverage in --rules); below it "
        "the verdict is stay, not judged",
    )
    p.add_argument(
        "--allow-setting-differences",
        metavar="KEY,...|all",
        help="decoding settings allowed to differ between the sides (e.g. beam_size,threads, "
        "or all); others that differ refuse the comparison. Backend, model and compute_type "
        "are the subject and always allowed. Recorded in the decision record",
    )
    add_quiet(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from earmark.api.deciding import decide_outcome

    outcome = decide_outcome(
        baseline=args.baseline,
        challenger=args.challenger,
        out=args.out,
        rules=args.rules,
        min_coverage=args.min_coverage,
        allow_setting_differences=args.allow_setting_differences,
    )
    if not args.quiet:
        print(f"verdict: {outcome.decision.verdict}")
        for reason in outcome.decision.reasons:
            print(f"- {reason}")
        print(f"wrote {outcome.markdown_path} and {outcome.json_path}")
    return 0
