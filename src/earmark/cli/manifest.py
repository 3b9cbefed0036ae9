"""`earmark manifest validate|hash|select|leakage|contamination`: a thin mirror of
`earmark.corpus` (and of `earmark.render.contamination`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from earmark.cli.arguments import non_negative_int, positive_int, share
from earmark.cli.options import Subcommands, add_json, add_normalizer_policy, add_out, add_verbs


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(
        "manifest", help="validate, hash, select from and check manifests; write a sidecar"
    )
    sub = add_verbs(parser, "manifest_command", "ACTION")

    validate = sub.add_parser(
        "validate", help="check every row, the sidecar and (optionally) audio"
    )
    validate.add_argument("manifest")
    validate.add_argument(
        "--audio-root",
        help="folder the rows' audio paths are relative to (default with --check-audio: the "
        "one `earmark run` uses, the sidecar's extra.audio_root, else the manifest's folder)",
    )
    validate.add_argument(
        "--check-audio", action="store_true", help="decode every clip and check sha256/duration"
    )
    add_json(validate, "the report")
    validate.set_defaults(func=_validate)

    hash_ = sub.add_parser("hash", help="print the canonical SHA-256 of a manifest")
    hash_.add_argument("manifest")
    hash_.set_defaults(func=_hash)

    _register_select(sub)
    _register_init_sidecar(sub)
    leakage = sub.add_parser("leakage", help="list speakers present in both manifests")
    leakage.add_argument("a", help="first manifest")
    leakage.add_argument("b", help="second manifest")
    leakage.set_defaults(func=_leakage)
    _register_contamination(sub)


def _register_select(sub: Subcommands) -> None:
    select = sub.add_parser(
        "select",
        help="write a subset manifest and sidecar recording the selection rule",
        description="Steps apply in this order: --language/--slice filter, "
        "--fraction/--seed hash subset, then --first N (rows, or distinct texts).",
    )
    select.add_argument("manifest")
    add_out(select, "path of the selected manifest to write")
    select.add_argument("--language", action="append", help="keep this language (repeatable)")
    select.add_argument("--slice", action="append", help="keep rows in this slice (repeatable)")
    select.add_argument(
        "--fraction", type=share, help="keep a seeded hash subset of this share of rows (0 to 1)"
    )
    select.add_argument("--seed", help="seed for --fraction")
    select.add_argument(
        "--first", type=non_negative_int, help="keep the first N rows in file order"
    )
    select.add_argument(
        "--distinct-text",
        action="store_true",
        help="with --first: the first N distinct text IDs (one recording each)",
    )
    select.set_defaults(func=_select)


def _register_init_sidecar(sub: Subcommands) -> None:
    init = sub.add_parser(
        "init-sidecar",
        help="write MANIFEST.meta.json: dataset, licence, consent basis, redistribution",
        description="Write the sidecar the licence gate reads. The licence and consent basis "
        "are what the publisher states, copied, not a legal verdict. An existing sidecar is "
        "kept unless --force; with --force, fields not given here (the selection rule, "
        "extra.audio_root written by an importer) are kept.",
    )
    init.add_argument("manifest", help="the manifest JSONL the sidecar describes")
    init.add_argument(
        "--licence", required=True, help="the licence the publisher states, e.g. CC-BY-4.0"
    )
    init.add_argument(
        "--consent",
        required=True,
        help="how speakers consented, as published, e.g. 'speakers consented to public release'",
    )
    init.add_argument("--dataset", help="dataset name (default: the manifest's file stem)")
    init.add_argument("--url", help="where the dataset is published (default: none)")
    init.add_argument(
        "--redistribute-audio",
        action=argparse.BooleanOptionalAction,
        help="the audio may be redistributed (default: no, or the existing sidecar's value "
        "with --force)",
    )
    init.add_argument(
        "--redistribute-transcripts",
        action=argparse.BooleanOptionalAction,
        help="the transcripts may be redistributed (default: no, or the existing sidecar's "
        "value with --force)",
    )
    init.add_argument(
        "--require-row-provenance",
        action=argparse.BooleanOptionalAction,
        help="every row must carry source (dataset and licence); run and validate refuse a "
        "row without it (default: not required, or the existing sidecar's value with --force)",
    )
    init.add_argument("--force", action="store_true", help="replace an existing sidecar")
    init.set_defaults(func=_init_sidecar)


def _register_contamination(sub: Subcommands) -> None:
    contamination = sub.add_parser(
        "contamination",
        help="n-gram overlap of the references with a declared text; canary strings",
        description="Share of each reference's n-grams (normalised with the corpus's "
        "normaliser policy; words, or characters for character-scored languages) found in "
        "a declared text such as a model's published training-text list. Writes "
        "contamination.json (earmark.contamination/1) and contamination.md, naming "
        "utterances by id only. `earmark leaderboard --contamination` marks rows on a "
        "corpus with flagged utterances.",
    )
    contamination.add_argument("manifest")
    contamination.add_argument(
        "--against", required=True, metavar="FILE", help="the declared text (text or JSONL)"
    )
    contamination.add_argument(
        "--format",
        choices=("auto", "text", "lines", "jsonl"),
        default="auto",
        help="text: one continuous text (n-grams span lines); lines: one document per line; "
        "jsonl: one JSON object per line (--text-field); auto (default): jsonl for "
        ".jsonl/.ndjson, else lines",
    )
    contamination.add_argument(
        "--text-field", default="text", help="the JSONL field holding the text (default text)"
    )
    contamination.add_argument(
        "--n", type=positive_int, default=8, help="n-gram length in units (default 8)"
    )
    contamination.add_argument(
        "--threshold",
        type=share,
        default=0.5,
        metavar="SHARE",
        help="flag an utterance when at least this share of its n-grams is found (default 0.5)",
    )
    add_normalizer_policy(contamination, default="auto")
    contamination.add_argument(
        "--canaries", metavar="FILE", help="strings (one a line) that must never appear"
    )
    contamination.add_argument(
        "--predictions",
        action="append",
        default=[],
        metavar="FILE",
        help="a run's predictions.jsonl (or run folder) whose outputs are searched for the "
        "canaries (repeatable)",
    )
    contamination.add_argument(
        "--system",
        help="the system (arm) the declared text belongs to: the leaderboard then marks that "
        "system's rows only (default: every row on the corpus)",
    )
    add_out(contamination, "folder for contamination.json and contamination.md", metavar="DIR")
    contamination.set_defaults(func=_contamination)


def _contamination(args: argparse.Namespace) -> int:
    from earmark.api.manifests import manifest_contamination

    report = manifest_contamination(
        args.manifest,
        against=args.against,
        out=args.out,
        format=args.format,
        text_field=args.text_field,
        n=args.n,
        threshold=args.threshold,
        normalizer=args.normalizer,
        canaries=args.canaries,
        predictions=args.predictions,
        system=args.system,
    )
    s = report["summary"]
    canaries = report["canaries"]
    assert isinstance(s, dict) and isinstance(canaries, dict)
    hits = canaries["hits"]
    assert isinstance(hits, list) and isinstance(s["share"], (float, int, type(None)))
    share = "n/a" if s["share"] is None else f"{100 * s['share']:.2f}%"
    print(
        f"{s['matched']} of {s['ngrams']} reference {args.n}-grams found ({share}); "
        f"{s['flagged']} of {s['utterances']} utterances flagged; "
        f"{len(hits)} canary hit(s)"
    )
    out = Path(args.out)
    print(f"wrote {out / 'contamination.json'}, {out / 'contamination.md'}")
    return 0


def _validate(args: argparse.Namespace) -> int:
    from earmark.api.manifests import manifest_validate

    report = manifest_validate(
        args.manifest, audio_root=args.audio_root, check_audio=args.check_audio
    )
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
        return 0 if report.ok else 1
    hours = report.total_duration / 3600
    print(f"manifest  {report.manifest}")
    print(f"sha256    {report.sha256}")
    print(f"rows      {report.rows}")
    print(f"languages {_counts(report.languages)}")
    print(f"slices    {_counts(report.slices) or '(none)'}")
    print(f"speakers  {report.speakers} ({report.rows_without_speaker} rows without speaker)")
    print(
        f"duration  {report.total_duration:.1f} s ({hours:.2f} h; "
        f"{report.rows_without_duration} rows without duration)"
    )
    if report.licence_problem:
        print(f"licence   REFUSED: {report.licence_problem}")
    elif report.meta is not None:
        public = "public" if report.public else "not redistributable"
        print(f"licence   {report.meta.licence}; consent: {report.meta.consent_basis}; {public}")
    print(f"audio     {report.audio_checked}: {len(report.problems)} problem(s)")
    for reason, count in report.problem_counts().items():
        print(f"  {reason}: {count}")
    for problem in report.problems[:20]:
        print(f"  line {problem.line} {problem.id}: {problem.reason}: {problem.detail}")
    if len(report.problems) > 20:
        print(f"  … {len(report.problems) - 20} more (use --json for all)")
    return 0 if report.ok else 1


def _init_sidecar(args: argparse.Namespace) -> int:
    from earmark.api.manifests import SidecarFields, manifest_init_sidecar

    fields = SidecarFields(
        licence=args.licence,
        consent=args.consent,
        dataset=args.dataset,
        url=args.url,
        redistribute_audio=args.redistribute_audio,
        redistribute_transcripts=args.redistribute_transcripts,
        require_row_provenance=args.require_row_provenance,
    )
    target, meta = manifest_init_sidecar(args.manifest, fields, force=args.force)
    print(f"wrote {target}")
    print(
        f"dataset {meta.dataset}; licence {meta.licence}; consent: {meta.consent_basis}; "
        f"redistribute audio: {'yes' if meta.redistribute_audio else 'no'}, "
        f"transcripts: {'yes' if meta.redistribute_transcripts else 'no'}"
    )
    return 0


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in counts.items())


def _hash(args: argparse.Namespace) -> int:
    from earmark.api.manifests import manifest_hash

    print(manifest_hash(args.manifest))
    return 0


def _select(args: argparse.Namespace) -> int:
    from earmark.api.manifests import manifest_select

    selected = manifest_select(
        args.manifest,
        out=args.out,
        language=args.language,
        slice=args.slice,
        fraction=args.fraction,
        seed=args.seed,
        first=args.first,
        distinct_text=args.distinct_text,
    )
    record = selected.record
    print(f"kept {record.kept_rows} of {record.input_rows} rows: {record.rule}")
    for reason, count in record.excluded_counts().items():
        print(f"  excluded {reason}: {count}")
    print(f"slices {_counts(record.per_slice) or '(none)'}")
    print(f"wrote {args.out} (sha256 {selected.sha256})")
    return 0


def _leakage(args: argparse.Namespace) -> int:
    from earmark.api.manifests import manifest_leakage

    result = manifest_leakage(args.a, args.b)
    print(f"speakers: {result.a_speakers} in A, {result.b_speakers} in B")
    unchecked = result.a_rows_without_speaker + result.b_rows_without_speaker
    if unchecked:
        print(f"unchecked: {unchecked} row(s) without a speaker")
    if result.leaked:
        print(f"LEAKAGE: {len(result.shared)} speaker(s) in both: {', '.join(result.shared)}")
        return 1
    print("no shared speakers")
    return 0
