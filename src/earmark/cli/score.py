"""`earmark score`: rescore saved hypotheses from any system without running a model."""

from __future__ import annotations

import argparse

from earmark.api.scoring import EXTRA_METRICS, FORMATS
from earmark.cli.arguments import non_negative_int
from earmark.cli.options import (
    Subcommands,
    add_bootstrap_generator,
    add_csv,
    add_exclude_unmatched,
    add_json,
    add_out,
    add_quiet,
    add_speaker_options,
    add_statistics,
)


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "score",
        help="score saved hypotheses (JSONL, CSV, TSV, Kaldi text, plain lines) against references",
        description="Score saved hypotheses against references with a named, versioned "
        "normaliser and print the figures; with --out, also write results.json, "
        "predictions.jsonl and results.md.",
    )
    p.add_argument(
        "predictions",
        help="hypotheses file (.jsonl, .csv, .tsv, Kaldi `text`, or one sentence per line)",
    )
    p.add_argument("--refs", help="references file, when hypotheses are in a separate file")
    add_statistics(
        p,
        when="default: auto, each language its own, rows naming no language crude-v1; "
        "`none` compares raw text, as jiwer does",
    )
    add_bootstrap_generator(p, protocol=True)
    p.add_argument(
        "--format",
        choices=FORMATS,
        help="input format (default: from the suffix; two plain-text files are Kaldi `text` "
        "only when their first words are clearly utterance ids, otherwise earmark asks); "
        "'lines': line i of --refs pairs with line i of PREDICTIONS, ids line-1, line-2, ...; "
        "'trn': sclite trn files; 'stm'/'ctm': a ctm PREDICTIONS file against stm --refs "
        "(see docs/sclite.md)",
    )
    _add_fields(p)
    p.add_argument("--language", help="language of rows that don't name one")
    p.add_argument("--arm", help="the arm to score, when PREDICTIONS is an earmark run's file")
    add_exclude_unmatched(p, "hypotheses whose id has no reference")
    _add_extra_figures(p)
    add_out(
        p,
        "output directory (one writer at a time: a second score or run into it is refused); "
        "without it nothing is written",
        required=False,
    )
    add_json(p, "the results (what results.json holds, alone on stdout; notes on stderr)")
    p.add_argument(
        "--show-alignments",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="also print the N worst utterances per language, aligned and coloured, from "
        "--out's predictions.jsonl (default: 0: the summary only; results.md shows the 3 worst)",
    )
    add_csv(p, "utterance")
    add_quiet(p)
    add_speaker_options(p)
    p.set_defaults(func=run)


def _add_fields(p: argparse.ArgumentParser) -> None:
    """The field names of a JSONL/CSV/TSV predictions file."""
    p.add_argument(
        "--id-field", default="id", help="JSONL/CSV field of the utterance id (default: id)"
    )
    p.add_argument(
        "--reference-field",
        default="reference",
        help="field of the reference text (default: reference)",
    )
    p.add_argument(
        "--hypothesis-field",
        default="hypothesis",
        help="field of the hypothesis text (default: hypothesis)",
    )
    p.add_argument(
        "--language-field",
        default="language",
        help="field of the row's language (default: language)",
    )
    p.add_argument(
        "--cluster-field",
        default="clip",
        help="rows sharing its value are one bootstrap unit (default: clip; rows without "
        "it are their own unit)",
    )


def _add_extra_figures(p: argparse.ArgumentParser) -> None:
    """Optional metrics (punctuation, critical tokens) and the sclite reports."""
    p.add_argument(
        "--punctuation",
        action="store_true",
        help="add punctuation position / position+type F1 (marks projected onto reference "
        "boundaries by alignment) with CIs",
    )
    p.add_argument(
        "--punctuation-marks",
        choices=("word-internal", "every-mark"),
        help="which characters are marks: word-internal (default; apostrophes in words "
        "and decimal points in numbers are not) or every-mark (every Unicode P* "
        "character, as the mmv-voice punctuation study counted; --protocol mmv-punct-v024 "
        "fixes it)",
    )
    p.add_argument(
        "--critical-tokens",
        action="store_true",
        help="add critical-token recall/precision (numbers, dates, currency, URLs, IDs, ...)",
    )
    p.add_argument(
        "--metrics",
        action="append",
        choices=EXTRA_METRICS,
        metavar="NAME",
        help="also compute an optional figure beside MER and WIL: wip (word information "
        "preserved, as jiwer defines it); repeatable (default: none, results keep their shape)",
    )
    p.add_argument(
        "--sclite-reports",
        action="store_true",
        help="also write sclite-style NAME.sys/.raw (by speaker), .pra (alignments) and .dtl "
        "(every confusion pair), and the tables in results.json",
    )
    p.add_argument(
        "--alignment",
        choices=("earmark", "sclite", "kaldi"),
        default="earmark",
        help="how every word figure splits errors (the headline, the error analysis, the "
        "sclite reports): earmark (fewest edits, the default), sclite (sclite's weights: "
        "sub 4, ins/del 3) or kaldi (compute-wer's tie rule)",
    )
    # issue 23, sclite parity: how the sclite reports read speakers from trn ids.
    p.add_argument(
        "--id-format",
        choices=("earmark", "rm", "spu_id", "swb", "wsj"),
        default=None,
        help="read each trn id's speaker for the sclite reports by earmark's rule (the "
        "default: the id before its first '-', else the id) or sclite's -i rule of that "
        "name; the rule used is printed (see docs/sclite.md)",
    )
    p.add_argument(
        "--glm",
        metavar="FILE",
        help="GLM rules (alternate spellings `{ ok / okay }`, `a => b`; optional words "
        "`(uh)`) applied during alignment: the headline word counts and the sclite reports "
        "(default: none; see docs/sclite.md)",
    )


#: Flags whose output goes into the --out folder (or is read back from it).
FOLDER_FLAGS = (
    ("csv", "--csv writes predictions.csv"),
    ("sclite_reports", "--sclite-reports writes NAME.sys/.raw/.pra/.dtl"),
    ("show_alignments", "--show-alignments reads the aligned rows of predictions.jsonl"),
)


def _refuse_folder_flags(args: argparse.Namespace) -> None:
    """A flag that needs the output folder, given without --out: one line naming --out,
    before anything is read."""
    from earmark.errors import EarmarkError

    if args.out is not None:
        return
    for dest, what in FOLDER_FLAGS:
        if getattr(args, dest):
            raise EarmarkError(f"{what} in the output folder", field="out", hint="add --out DIR")


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from earmark.api.scoring import score_file

    _refuse_folder_flags(args)
    results = score_file(
        args.predictions,
        out=args.out,
        refs=args.refs,
        normalizer=args.normalizer,
        protocol=args.protocol,
        aggregate=args.aggregate,
        bootstrap=args.bootstrap,
        bootstrap_generator=args.bootstrap_generator,
        seed=args.seed,
        format=args.format,
        id_field=args.id_field,
        reference_field=args.reference_field,
        hypothesis_field=args.hypothesis_field,
        language_field=args.language_field,
        cluster_field=args.cluster_field,
        language=args.language,
        arm=args.arm,
        exclude_unmatched=args.exclude_unmatched,
        punctuation=args.punctuation,
        punctuation_marks=args.punctuation_marks,
        critical_tokens=args.critical_tokens,
        metrics=args.metrics or (),
        sclite_reports=args.sclite_reports,
        alignment=args.alignment,
        id_format=args.id_format,
        glm=args.glm,
        csv=args.csv,
        cluster=args.cluster,
        min_per_slice=args.min_per_slice,
        min_speakers=args.min_speakers,
    )
    if args.json:
        # stdout holds the results alone (`earmark score ... --json | jq`); notes go to stderr.
        sys.stdout.write(results.to_json())
    if args.quiet:
        return 0
    # What prints is imported only when something is printed (`--quiet` is the bench's).
    from earmark.render.summary_rows import normalizer_choice_lines
    from earmark.render.terminal import print_summary, print_worst_alignments
    from earmark.rundir.layout import PREDICTIONS

    if args.json:
        notes = sys.stderr
        for arm in results.arms.values():
            for line in normalizer_choice_lines(arm):
                print(line, file=notes)
    else:
        notes = sys.stdout
        print_summary(results)
    if args.sclite_reports:
        from earmark.formats.trn import checked_id_format, speaker_rule_line

        line = speaker_rule_line(checked_id_format(args.id_format))
        print("sclite speakers: " + line, file=notes)
    if args.out is not None:
        predictions = Path(args.out) / PREDICTIONS
        if args.show_alignments > 0:
            from rich.console import Console

            console = Console(stderr=True) if args.json else None
            print_worst_alignments(
                results, predictions, per_language=args.show_alignments, console=console
            )
        print(f"wrote {args.out}/results.json, predictions.jsonl, results.md", file=notes)
        if args.csv:
            print(f"wrote {predictions.with_suffix('.csv')}", file=notes)
    return 0
