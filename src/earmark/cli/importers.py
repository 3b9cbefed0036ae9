"""`earmark import SOURCE PATH --out MANIFEST`: a corpus layout on disk -> manifest + sidecar."""

from __future__ import annotations

import argparse
import sys

from earmark.api.corpora import SOURCES
from earmark.cli.arguments import output_path
from earmark.cli.options import Subcommands, add_out


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(
        "import",
        help="import a corpus (FLEURS, Common Voice, Kaldi, NeMo, lhotse) as a manifest",
        description="Turn a corpus layout on disk into an earmark manifest and its sidecar. "
        "Skipped rows are counted with reason codes and listed in the sidecar.",
    )
    parser.add_argument("source", choices=SOURCES, help="corpus layout")
    parser.add_argument("path", help="corpus folder or manifest file")
    add_out(parser, "manifest to write (JSONL)")
    parser.add_argument("--language", help="language code for the rows (zh, ga, en)")
    parser.add_argument("--split", help="split to import (default: test where it applies)")
    parser.add_argument(
        "--licence",
        help="dataset licence (SPDX id); FLEURS and Common "
        "Voice default to their published licences",
    )
    parser.add_argument("--consent", help="consent basis, as published by the dataset")
    parser.add_argument("--config", help="FLEURS config (cmn_hans_cn, ga_ie)")
    parser.add_argument("--locale", help="Common Voice locale (default: folder name)")
    parser.add_argument("--revision", help="dataset revision or release to record")
    parser.add_argument("--dataset", help="dataset name to record (Kaldi, NeMo, lhotse)")
    parser.add_argument("--audio-root", help="folder manifest audio paths are relative to")
    parser.add_argument(
        "--audio-dir", type=output_path, help="where audio embedded in parquet is written"
    )
    parser.add_argument("--relative-to", help="folder relative audio paths are taken from")
    parser.add_argument("--recordings", help="lhotse recordings manifest for supervisions")
    parser.add_argument(
        "--text-column",
        help="column or field holding the reference text (hf-datasets: text, "
        "Common Voice: sentence, NeMo: text)",
    )
    parser.add_argument(
        "--no-hash", action="store_true", help="do not hash audio files (faster on huge corpora)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from earmark.api.corpora import import_corpus

    # Every row is checked against the manifest reader's rules before it is written; an
    # import that keeps no row raises (exit 2), so exit 0 means a usable manifest.
    report = import_corpus(
        args.source,
        args.path,
        out=args.out,
        language=args.language,
        split=args.split,
        licence=args.licence,
        consent=args.consent,
        config=args.config,
        locale=args.locale,
        revision=args.revision,
        dataset=args.dataset,
        audio_root=args.audio_root,
        audio_dir=args.audio_dir,
        relative_to=args.relative_to,
        recordings=args.recordings,
        text_column=args.text_column,
        no_hash=args.no_hash,
    )
    print(f"{args.source}: {report.summary()}")
    shown = report.first_skipped(per_reason=3)
    for row in shown:
        where = f"{row.file}:{row.line}" if row.line is not None else row.file
        detail = f": {row.detail}" if row.detail else ""
        print(f"  skipped {row.id or '?'} ({row.reason}) at {where}{detail}")
    if len(report.skipped) > len(shown):
        print(f"  ... {len(report.skipped) - len(shown)} more listed in the sidecar")
    for warning in report.warnings:
        print(f"earmark: warning: {warning}", file=sys.stderr)
    return 0
