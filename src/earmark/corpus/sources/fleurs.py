"""FLEURS (google/fleurs) as its publisher lays it out: TSV + extracted audio, or parquet.

TSV layout (one folder per config, as in the hub's `data/<config>/`): `test.tsv`,
`dev.tsv`, `train.tsv` without a header, columns id (the sentence id, repeated across
recordings), file name, raw transcription, normalised transcription, characters, number
of samples, gender; audio in `audio/<split>/<file name>` (extract `audio/<split>.tar.gz`
there). Parquet layout: shards with columns `id`, `path`, `audio` {bytes, path},
`raw_transcription`, `transcription`, `gender`, ...; audio bytes are written out as files.

One sentence is read by several speakers, so the utterance id is
`<config>_<text id>_<file stem>` and `text_id` keeps the grouping.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from earmark.artefacts import sha256_file
from earmark.corpus.manifest import audio_path_problem
from earmark.corpus.model import CorpusMeta, Source, Utterance
from earmark.corpus.sources.fleurs_parquet import iter_fleurs_parquet
from earmark.corpus.sources.languages import language_for_fleurs_config
from earmark.corpus.sources.output import (
    Candidate,
    check_language_option,
    licence_warnings,
    write_import,
)
from earmark.corpus.sources.report import ImportReport, SkippedRow
from earmark.corpus.sources.tsv import read_headerless_tsv
from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue

FLEURS_DATASET = "google/fleurs"
FLEURS_URL = "https://huggingface.co/datasets/google/fleurs"
FLEURS_LICENCE = "CC-BY-4.0"
FLEURS_CONSENT = (
    "as published by Google with the dataset: read speech recorded by paid, consenting "
    "speakers for public release under CC BY 4.0 (FLEURS dataset card and paper, "
    "arXiv:2205.12446)"
)
FLEURS_SAMPLE_RATE = 16_000
FLEURS_TSV_COLUMNS = (
    "id",
    "file_name",
    "raw_transcription",
    "transcription",
    "characters",
    "num_samples",
    "gender",
)
#: The TSV files name the validation split `dev`; the parquet conversion names it `validation`.
TSV_SPLIT_NAMES = {"validation": "dev"}
PARQUET_SPLIT_NAMES = {"dev": "validation"}


def fleurs_utterance_id(config: str, text_id: str, file_name: str) -> str:
    return f"{config}_{text_id}_{Path(file_name).stem}"


def fleurs_meta(
    *,
    revision: str | None,
    licence: str | None,
    consent_basis: str | None,
    selection_rule: str | None = None,
    extra: dict[str, Any] | None = None,
) -> CorpusMeta:
    return CorpusMeta(
        dataset=FLEURS_DATASET,
        licence=licence,
        consent_basis=consent_basis,
        redistribute_audio=licence == FLEURS_LICENCE,
        redistribute_transcripts=licence == FLEURS_LICENCE,
        url=FLEURS_URL,
        creator="Google (Conneau et al., 2022)",
        selection_rule=selection_rule,
        revision=revision,
        notes="CC BY 4.0 requires attribution to the FLEURS authors when redistributing.",
        extra=extra or {},
    )


def import_fleurs(
    path: str | os.PathLike[str],
    out_manifest: str | os.PathLike[str],
    *,
    split: str = "test",
    config: str | None = None,
    language: str | None = None,
    revision: str | None = None,
    licence: str | None = FLEURS_LICENCE,
    consent_basis: str | None = FLEURS_CONSENT,
    hash_audio: bool = True,
    audio_dir: str | os.PathLike[str] | None = None,
) -> ImportReport:
    """Import one FLEURS config and split from a TSV folder or parquet shard(s).

    `path` is the config folder (holding `test.tsv`), its parent with `config=`, a parquet
    file, or a folder of parquet shards. Parquet audio is written to `audio_dir`
    (default: `audio/` beside the manifest), which becomes the audio root.
    """
    check_language_option(language)
    root = Path(path)
    if not root.exists():
        raise EarmarkError("FLEURS path does not exist", file=str(root))
    shards = _parquet_shards(root)
    if shards:
        return _import_parquet(
            root,
            shards,
            Path(out_manifest),
            split=split,
            config=config,
            language=language,
            revision=revision,
            licence=licence,
            consent_basis=consent_basis,
            audio_dir=Path(audio_dir) if audio_dir else None,
        )
    return _import_tsv(
        root,
        Path(out_manifest),
        split=split,
        config=config,
        language=language,
        revision=revision,
        licence=licence,
        consent_basis=consent_basis,
        hash_audio=hash_audio,
    )


def _parquet_shards(root: Path) -> list[Path]:
    if root.is_file():
        return [root] if root.suffix == ".parquet" else []
    return sorted(root.rglob("*.parquet"))


def _config_folder(root: Path, split: str, config: str | None) -> Path:
    candidates = [root]
    if config:
        candidates += [root / config, root / "data" / config]
    for folder in candidates:
        if (folder / f"{split}.tsv").is_file():
            return folder
    raise EarmarkError(
        f"no {split}.tsv found in {', '.join(str(c) for c in candidates)}",
        file=str(root),
        hint="pass the config folder (e.g. data/cmn_hans_cn) or its parent with --config",
    )


def _import_tsv(
    root: Path,
    out_manifest: Path,
    *,
    split: str,
    config: str | None,
    language: str | None,
    revision: str | None,
    licence: str | None,
    consent_basis: str | None,
    hash_audio: bool,
) -> ImportReport:
    tsv_split = TSV_SPLIT_NAMES.get(split, split)
    folder = _config_folder(root, tsv_split, config)
    config = config or folder.name
    language = language or language_for_fleurs_config(config)
    tsv = folder / f"{tsv_split}.tsv"
    audio_folder = folder / "audio" / tsv_split
    archive = folder / "audio" / f"{tsv_split}.tar.gz"
    if not audio_folder.is_dir() and archive.is_file():
        raise EarmarkError(
            f"audio for split {tsv_split!r} is still archived",
            file=str(archive),
            hint=f"extract it first: tar -xzf {archive} -C {archive.parent}",
        )
    source = Source(FLEURS_DATASET, config, split, revision, licence)
    rows: list[Candidate] = []
    skipped: list[SkippedRow] = []
    seen: set[str] = set()
    for line, record in read_headerless_tsv(tsv, FLEURS_TSV_COLUMNS):
        file_name = record["file_name"].strip()
        utt_id = fleurs_utterance_id(config, record["id"].strip(), file_name)
        try:
            num_samples = int(record["num_samples"])
        except ValueError:
            raise EarmarkError(
                f"not an integer: {record['num_samples']!r}",
                file=str(tsv),
                line=line,
                field="num_samples",
            ) from None
        audio = audio_folder / file_name
        reason = None
        if audio_path_problem(file_name) is not None:
            reason = "invalid_audio_path"  # never read a file outside audio/<split>/
        elif utt_id in seen:
            reason = "duplicate_id"
        elif not record["raw_transcription"].strip():
            reason = "empty_text"
        elif not audio.is_file():
            reason = "missing_audio"
        if reason:
            skipped.append(SkippedRow(reason, str(tsv), line, utt_id))
            continue
        seen.add(utt_id)
        gender = record["gender"].strip().lower() or None
        rows.append(
            Candidate(
                Utterance(
                    id=utt_id,
                    audio=f"audio/{tsv_split}/{file_name}",
                    text=record["raw_transcription"],
                    language=language,
                    slices=(f"gender:{gender}",) if gender else (),
                    duration=num_samples / FLEURS_SAMPLE_RATE,
                    sha256=sha256_file(audio) if hash_audio else None,
                    source=source,
                    text_id=record["id"].strip(),
                    custom=_custom(config, record["transcription"], gender, num_samples),
                ),
                str(tsv),
                line,
            )
        )
    return write_import(
        importer="fleurs",
        out_manifest=out_manifest,
        rows=rows,
        audio_root=folder,
        skipped=skipped,
        meta=fleurs_meta(
            revision=revision,
            licence=licence,
            consent_basis=consent_basis,
            selection_rule=f"all rows of {tsv_split}.tsv in file order",
        ),
        source_path=tsv,
        warnings=licence_warnings(licence, consent_basis),
    )


def _custom(
    config: str, normalised: str | None, gender: str | None, num_samples: int | None
) -> dict[str, JSONValue]:
    custom: dict[str, JSONValue] = {"fleurs_config": config}
    if normalised is not None:
        custom["normalized_transcription"] = normalised
    if gender:
        custom["gender"] = gender
    if num_samples is not None:
        custom["num_samples"] = num_samples
    return custom


def _infer_config_split(shard: Path) -> tuple[str | None, str | None]:
    # The hub's parquet conversion stores `<config>/<split>/0000.parquet`.
    split_dir = shard.parent
    if split_dir.name in {"test", "validation", "train", "dev"}:
        return split_dir.parent.name or None, split_dir.name
    return None, None


def _import_parquet(
    root: Path,
    shards: list[Path],
    out_manifest: Path,
    *,
    split: str,
    config: str | None,
    language: str | None,
    revision: str | None,
    licence: str | None,
    consent_basis: str | None,
    audio_dir: Path | None,
) -> ImportReport:
    parquet_split = PARQUET_SPLIT_NAMES.get(split, split)
    kept: list[Path] = []
    configs: set[str] = set()
    for shard in shards:
        shard_config, shard_split = _infer_config_split(shard)
        if shard_split and PARQUET_SPLIT_NAMES.get(shard_split, shard_split) != parquet_split:
            continue
        if config and shard_config and shard_split and shard_config != config:
            continue
        if shard_config and shard_split:
            configs.add(shard_config)
        kept.append(shard)
    shards = kept
    if config is None and len(configs) == 1:
        config = configs.pop()
    if not shards:
        raise EarmarkError(f"no parquet shard for split {parquet_split!r}", file=str(root))
    if config is None:
        raise EarmarkError(
            "cannot tell which FLEURS config these shards hold",
            file=str(root),
            hint="pass --config (e.g. cmn_hans_cn)",
        )
    language = language or language_for_fleurs_config(config)
    audio_root = audio_dir or out_manifest.parent / "audio"
    source = Source(FLEURS_DATASET, config, split, revision, licence)
    rows: list[Candidate] = []
    skipped: list[SkippedRow] = []
    seen: set[str] = set()
    for shard in shards:
        for record in iter_fleurs_parquet(shard):
            utt_id = fleurs_utterance_id(config, record.text_id, record.file_name)
            reason = None
            if utt_id in seen:
                reason = "duplicate_id"
            elif not record.raw_transcription.strip():
                reason = "empty_text"
            elif not record.audio_bytes:
                reason = "missing_audio"
            if reason:
                skipped.append(SkippedRow(reason, str(shard), record.index + 1, utt_id))
                continue
            seen.add(utt_id)
            assert record.audio_bytes is not None
            rel = f"{config}/{parquet_split}/{record.file_name}"
            target = audio_root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(record.audio_bytes)
            rows.append(
                Candidate(
                    Utterance(
                        id=utt_id,
                        audio=rel,
                        text=record.raw_transcription,
                        language=language,
                        slices=(f"gender:{record.gender}",) if record.gender else (),
                        duration=(
                            record.num_samples / FLEURS_SAMPLE_RATE
                            if record.num_samples is not None
                            else None
                        ),
                        sha256=hashlib.sha256(record.audio_bytes).hexdigest(),
                        source=source,
                        text_id=record.text_id,
                        custom=_custom(
                            config, record.transcription, record.gender, record.num_samples
                        ),
                    ),
                    str(shard),
                    record.index + 1,
                )
            )
    return write_import(
        importer="fleurs",
        out_manifest=out_manifest,
        rows=rows,
        audio_root=audio_root,
        skipped=skipped,
        meta=fleurs_meta(
            revision=revision,
            licence=licence,
            consent_basis=consent_basis,
            selection_rule="all rows of the parquet shards in file order",
        ),
        source_path=root,
        warnings=licence_warnings(licence, consent_basis),
    )
