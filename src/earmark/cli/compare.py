"""`earmark compare`: arms on the same utterances, or one arm across two corpora (--gap)."""

from __future__ import annotations

import argparse

from earmark.cli.options import (
    Subcommands,
    add_bootstrap_generator,
    add_out,
    add_quiet,
    add_statistics,
)


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "compare",
        help="compare arms: churn vs a reference arm, WER vs it and vs humans, paired tests",
        description="Compare arms on the utterances they share: exact-match rate (churn) and "
        "WER/CER against a reference arm, WER/CER against the human reference, paired "
        "bootstrap differences, sign and Wilcoxon tests (Holm-adjusted across arms), per "
        "language and slice, and harness-artefact diagnostics. Writes compare.json and "
        "compare.md. With --gap RUN_A RUN_B: one system's WER difference across two corpora.",
    )
    p.add_argument(
        "arms",
        nargs="*",
        metavar="ARM",
        help="RUN_DIR (all its arms), RUN_DIR#ARM, a predictions file, or NAME=any of these",
    )
    p.add_argument("--reference", metavar="ARM", help="reference arm name (default: the first)")
    add_statistics(p, when="required unless --protocol gives it")
    p.add_argument(
        "--gap",
        nargs=2,
        metavar=("RUN_ON_CORPUS_A", "RUN_ON_CORPUS_B"),
        help="cross-corpus gap of one system (writes gap.json and gap.md)",
    )
    # issue 23, sclite parity: MAPSSWE as sc_stats computes it.
    p.add_argument(
        "--mapsswe",
        choices=("earmark", "sclite"),
        default="earmark",
        help="the alignment MAPSSWE segments: earmark's (the default) or sclite's weighted "
        "one, whose segments and Z equal `sctk sc_stats -t mapsswe`'s",
    )
    add_bootstrap_generator(p, protocol=True)
    p.add_argument("--arm", help="with --gap: the arm to take from each run")
    add_out(p, "output directory")
    add_quiet(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from earmark.errors import EarmarkError

    if args.gap:
        from earmark.api.comparing import gap
        from earmark.comparison.gap import render_gap_markdown
        from earmark.stats.settings import DEFAULT_GENERATOR

        if args.arms:
            raise EarmarkError("--gap takes its two runs itself; drop the ARM arguments")
        if args.bootstrap_generator is not None:
            raise EarmarkError(
                "--bootstrap-generator is not supported with --gap yet",
                field="bootstrap_generator",
                hint=f"drop --bootstrap-generator (the gap draws with {DEFAULT_GENERATOR})",
            )
        if args.protocol is not None:
            raise EarmarkError(
                "--protocol is not supported with --gap yet",
                field="protocol",
                hint="score each run with `earmark score --protocol`, or give --gap "
                "--normalizer/--aggregate/--bootstrap/--seed explicitly",
            )
        result = gap(
            args.gap[0],
            args.gap[1],
            out=args.out,
            arm=args.arm,
            normalizer=args.normalizer,
            aggregate=args.aggregate,
            bootstrap=args.bootstrap,
            seed=args.seed,
        )
        if not args.quiet:
            print(render_gap_markdown(result))
            print(f"wrote {args.out}/gap.json, gap.md")
        return 0
    from earmark.api.comparing import compare
    from earmark.comparison.compare_report import print_compare

    comparison = compare(
        args.arms,
        out=args.out,
        reference=args.reference,
        normalizer=args.normalizer,
        protocol=args.protocol,
        aggregate=args.aggregate,
        bootstrap=args.bootstrap,
        seed=args.seed,
        mapsswe=args.mapsswe,
        bootstrap_generator=args.bootstrap_generator,
    )
    if not args.quiet:
        print_compare(comparison)
        print(f"wrote {args.out}/compare.json, compare.md")
    return 0
