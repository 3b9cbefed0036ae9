"""`earmark multispeaker`: cpWER, ORC-WER, tcpWER, DI-cpWER, MIMO-WER and tcORC-WER via meeteval.

A command of its own rather than `earmark score --multi-speaker`: its inputs are two
segment files of whole recordings (speaker and times per segment), not utterance pairs,
and most of `score`'s options (fields, punctuation, sclite reports, macro aggregation)
have no meaning here; its output is its own schema (`earmark.multispeaker/1`).
"""

from __future__ import annotations

import argparse

from earmark.cli.arguments import non_negative_float
from earmark.cli.options import (
    Subcommands,
    add_bootstrap,
    add_bootstrap_generator,
    add_exclude_unmatched,
    add_out,
    add_quiet,
    add_seed,
)

METRIC_CHOICES = ("cpwer", "orcwer", "tcpwer", "dicpwer", "mimower", "tcorcwer")


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "multispeaker",
        help="multi-speaker WER of whole recordings (cpWER, ORC-WER, tcpWER, DI-cpWER, "
        "MIMO-WER, tcORC-WER) through meeteval",
        description="Score speaker-attributed segments of whole recordings with meeteval "
        "(needs `pip install 'earmark[multi-speaker]'`); writes multispeaker.json and "
        "multispeaker.md with per-recording and total counts and a bootstrap CI over "
        "recordings (see docs/multispeaker.md).",
    )
    p.add_argument("references", help="reference segments: segment JSON, SegLST JSON or stm")
    p.add_argument("hypotheses", help="hypothesis segments, in the same forms")
    p.add_argument(
        "--metric",
        action="append",
        choices=METRIC_CHOICES,
        help="cpwer (the default), orcwer, tcpwer (needs --collar), dicpwer (greedy), "
        "mimower or tcorcwer (needs --collar); repeat for several, bootstrapped on the same "
        "resamples",
    )
    p.add_argument(
        "--collar",
        type=non_negative_float,
        metavar="S",
        help="tcpWER's and tcORC-WER's collar in seconds (required with tcpwer and "
        "tcorcwer: meeteval has no default; CHiME recipes use 5)",
    )
    p.add_argument(
        "--format",
        choices=("json", "stm"),
        help="input form of both files (default: from the suffix, .json or .stm)",
    )
    p.add_argument(
        "--normalizer",
        required=True,
        help="a word normaliser applied to both sides (e.g. en-v1, crude-v1), or none",
    )
    add_bootstrap(p, default=10_000, of="recordings")
    add_bootstrap_generator(p)
    add_seed(p)
    add_exclude_unmatched(p, "hypothesis recordings without a reference")
    add_out(p, "output directory")
    add_quiet(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from earmark.api.speakers import multispeaker
    from earmark.scoring.multispeaker_records import NAMES

    result = multispeaker(
        args.references,
        args.hypotheses,
        normalizer=args.normalizer,
        out=args.out,
        metric=tuple(args.metric or ()),
        collar=args.collar,
        format=args.format,
        bootstrap=args.bootstrap,
        seed=args.seed,
        exclude_unmatched=args.exclude_unmatched,
        bootstrap_generator=args.bootstrap_generator,
    )
    if not args.quiet:
        n = len(result.recordings)
        print(f"{n} recording{'' if n == 1 else 's'}, scored by meeteval {result.meeteval_version}")
        for name, m in result.metrics.items():
            rate = "n/a" if m.total.rate is None else f"{100 * m.total.rate:.2f}%"
            ci = ""
            if m.ci is not None and m.ci.low is not None and m.ci.high is not None:
                ci = f" [{100 * m.ci.low:.2f}, {100 * m.ci.high:.2f}]"
            print(f"{NAMES[name]}: {rate}{ci} ({m.total.errors} errors / {m.total.length} words)")
        if result.missing_hypotheses:
            missing = len(result.missing_hypotheses)
            print(
                f"{missing} recording{'' if missing == 1 else 's'} without hypothesis (all deleted)"
            )
        print(f"wrote {args.out}/multispeaker.json, multispeaker.md")
    return 0
