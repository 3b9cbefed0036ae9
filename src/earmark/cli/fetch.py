"""`earmark fetch fleurs ...`: the only command that downloads anything."""

from __future__ import annotations

import argparse

from earmark.cli.arguments import positive_int
from earmark.cli.options import Subcommands, add_out


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(
        "fetch",
        help="download a public corpus subset (FLEURS), resumable, bounded disk",
        description="Download the first N clips per language, resumably: rerun the same "
        "command after an interruption and finished languages are not downloaded again.",
    )
    parser.add_argument("corpus", choices=("fleurs",))
    parser.add_argument(
        "--languages", required=True, help="comma-separated FLEURS configs, e.g. cmn_hans_cn,ga_ie"
    )
    parser.add_argument(
        "--per-language",
        type=positive_int,
        required=True,
        metavar="N",
        help="clips to keep per language",
    )
    add_out(parser, "output folder (manifest.jsonl, audio)")
    parser.add_argument("--split", default="test", help="split (default: test)")
    parser.add_argument(
        "--layout",
        choices=("parquet", "tsv-tar"),
        default="parquet",
        help="hub layout to read (default: parquet)",
    )
    parser.add_argument("--revision", help="dataset revision to pin (default: per layout)")
    parser.add_argument("--base-url", help="base URL; may contain {revision}")
    parser.add_argument(
        "--distinct-text-ids",
        action="store_true",
        help="keep the first recording of each of the first N sentence ids",
    )
    parser.add_argument(
        "--max-shard-bytes",
        type=positive_int,
        help="refuse downloads bigger than this many bytes (default: 2 GiB)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from earmark.api.corpora import fetch

    report = fetch(
        args.corpus,
        languages=args.languages,
        per_language=args.per_language,
        out=args.out,
        split=args.split,
        layout=args.layout,
        revision=args.revision,
        base_url=args.base_url,
        distinct_text_ids=args.distinct_text_ids,
        max_shard_bytes=args.max_shard_bytes,
        on_progress=print,
    )
    print(
        f"fleurs: {report.rows} clips in {report.manifest} "
        f"({len(report.fetched)} languages fetched, {len(report.resumed)} resumed; "
        f"{report.bytes_downloaded} bytes downloaded, {report.downloads_deleted} downloads "
        "deleted)"
    )
    if report.short_configs:
        print(f"fleurs: fewer clips than asked for: {', '.join(report.short_configs)}")
    return 0
