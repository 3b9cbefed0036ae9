"""A Hugging Face `datasets` dataset saved on disk (`save_to_disk`), read without network.

Needs the optional extra `datasets`. The audio column is read undecoded (bytes + path)
and written out as files, so the manifest points at stable audio instead of a cache.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path, PurePosixPath
from typing import Any

from earmark.corpus.model import Source, Utterance
from earmark.corpus.sources.generic_meta import declared_meta
from earmark.corpus.sources.output import (
    Candidate,
    check_language_option,
    licence_warnings,
    write_import,
)
from earmark.corpus.sources.report import ImportReport, SkippedRow
from earmark.errors import EarmarkError, MissingExtraError
from earmark.formats.fields import column_list


def import_hf_datasets(
    path: str | os.PathLike[str],
    out_manifest: str | os.PathLike[str],
    *,
    split: str = "test",
    language: str | None = None,
    dataset: str | None = None,
    revision: str | None = None,
    licence: str | None = None,
    consent_basis: str | None = None,
    text_column: str = "text",
    audio_column: str = "audio",
    id_column: str | None = None,
    speaker_column: str | None = None,
    audio_dir: str | os.PathLike[str] | None = None,
) -> ImportReport:
    """Import one split of a dataset saved with `save_to_disk` at `path`."""
    try:
        import datasets
    except ImportError as exc:
        raise MissingExtraError("importing a Hugging Face dataset", "datasets", "datasets") from exc
    if not language:
        raise EarmarkError(
            "the dataset's language must be given", field="language", hint="pass --language"
        )
    check_language_option(language)
    try:
        loaded: Any = datasets.load_from_disk(str(path))
    except (OSError, ValueError) as exc:  # not a `save_to_disk` folder, or a damaged one
        raise EarmarkError(
            f"not a Hugging Face dataset saved with save_to_disk: {exc}",
            file=str(path),
            hint="pass the folder `Dataset.save_to_disk` / `DatasetDict.save_to_disk` wrote",
        ) from None
    if isinstance(loaded, datasets.DatasetDict):
        if split not in loaded:
            raise EarmarkError(
                f"no split {split!r} (found: {', '.join(loaded)})", file=str(path), field="split"
            )
        loaded = loaded[split]
    text_hint = "name the reference text's column with --text-column"
    for column, hint in ((text_column, text_hint), (audio_column, None)):
        if column not in loaded.column_names:
            raise EarmarkError(
                f"column missing; columns found: {column_list(list(loaded.column_names))}",
                file=str(path),
                field=column,
                hint=hint,
            )
    loaded = loaded.cast_column(audio_column, datasets.Audio(decode=False))
    out = Path(out_manifest)
    root = Path(audio_dir) if audio_dir else out.parent / "audio"
    source = Source(dataset or Path(path).name, None, split, revision, licence)
    rows: list[Candidate] = []
    skipped: list[SkippedRow] = []
    seen: set[str] = set()
    for index, record in enumerate(loaded):
        audio = record[audio_column] or {}
        name = PurePosixPath(str(audio.get("path") or f"{index:08d}.wav")).name
        utt_id = str(record[id_column]) if id_column else f"{Path(name).stem}"
        data = audio.get("bytes")
        if data is None and audio.get("path") and Path(audio["path"]).is_file():
            data = Path(audio["path"]).read_bytes()
        text = record[text_column]
        reason = (
            "duplicate_id"
            if utt_id in seen
            else "empty_text"
            if not isinstance(text, str) or not text.strip()
            else "missing_audio"
            if data is None
            else None
        )
        if reason:
            skipped.append(SkippedRow(reason, str(path), index + 1, utt_id))
            continue
        seen.add(utt_id)
        assert data is not None
        rel = f"{split}/{name}"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
        utterance = Utterance(
            id=utt_id,
            audio=rel,
            text=text,
            language=language,
            speaker=str(record[speaker_column]) if speaker_column else None,
            sha256=hashlib.sha256(data).hexdigest(),
            source=source,
        )
        rows.append(Candidate(utterance, str(path), index + 1))
    return write_import(
        importer="hf_datasets",
        out_manifest=out,
        rows=rows,
        audio_root=root,
        skipped=skipped,
        meta=declared_meta(
            source.dataset or "dataset",
            licence=licence,
            consent_basis=consent_basis,
            revision=revision,
            selection_rule=f"all rows of split {split!r} in dataset order",
        ),
        source_path=Path(path),
        warnings=licence_warnings(licence, consent_basis),
    )
