"""NeMo JSON-lines manifests: `audio_filepath`, `text`, optional `duration`, `offset`, `lang`.

Relative `audio_filepath`s are taken from the manifest's folder (NeMo's own rule). The
utterance id is the row's `id`/`utt_id` if present, else the audio file stem, plus the
offset in milliseconds when the row is a segment of a longer file. A row with empty (or
blank) `text` is a no-speech clip and is kept, with text "": such clips are what the
no-speech diagnostics (output on silence) are computed from.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from earmark.artefacts import sha256_file
from earmark.corpus.model import Source, Utterance
from earmark.corpus.sources.audio_paths import (
    common_root,
    relative_under,
    resolve_listed,
)
from earmark.corpus.sources.generic_meta import declared_meta
from earmark.corpus.sources.jsonl import read_jsonl, require
from earmark.corpus.sources.output import (
    Candidate,
    check_language_option,
    licence_warnings,
    write_import,
)
from earmark.corpus.sources.report import ImportReport, SkippedRow
from earmark.errors import EarmarkError

_NUMBER = (int, float)
#: What to do when the reference text is under another name.
TEXT_COLUMN_HINT = "name the reference text's field with --text-column"


def import_nemo(
    path: str | os.PathLike[str],
    out_manifest: str | os.PathLike[str],
    *,
    language: str | None = None,
    dataset: str | None = None,
    split: str | None = None,
    revision: str | None = None,
    licence: str | None = None,
    consent_basis: str | None = None,
    audio_root: str | os.PathLike[str] | None = None,
    hash_audio: bool = True,
    text_column: str = "text",
) -> ImportReport:
    """Import a NeMo manifest; `language` overrides (or stands in for) each row's `lang`,
    and `text_column` names the reference field where it is not NeMo's `text`.

    A row whose offset is not a finite number >= 0, whose duration is not a finite number
    > 0 (a zero-length clip has nothing to transcribe), or whose `lang` is not a string is
    skipped with a reason code; every other row is checked by the manifest's own rules.
    """
    check_language_option(language)
    manifest = Path(path)
    base = manifest.resolve().parent
    pending = []
    skipped: list[SkippedRow] = []
    for line, obj in read_jsonl(manifest):
        audio_text = require(obj, "audio_filepath", manifest, line, str)
        text = require(obj, text_column, manifest, line, str, hint=TEXT_COLUMN_HINT)
        offset = obj.get("offset")
        duration = obj.get("duration")
        for key, value in (("offset", offset), ("duration", duration)):
            if value is not None and (not isinstance(value, _NUMBER) or isinstance(value, bool)):
                raise EarmarkError("expected a number", file=str(manifest), line=line, field=key)
        lang = language or obj.get("lang")
        bad = _bad_row(offset, duration, lang)
        if bad is not None:
            code, detail = bad
            skipped.append(SkippedRow(code, str(manifest), line, _given_id(obj), detail=detail))
            continue
        if not lang:
            raise EarmarkError(
                "row has no language",
                file=str(manifest),
                line=line,
                field="lang",
                hint="pass --language",
            )
        audio = resolve_listed(audio_text, base)
        utt_id = obj.get("id") or obj.get("utt_id") or audio.stem
        if obj.get("id") is None and obj.get("utt_id") is None and offset:
            utt_id = f"{utt_id}_{round(float(offset) * 1000):d}"
        pending.append((line, str(utt_id), audio, text, lang, offset, duration))
    root = (
        Path(audio_root).resolve()
        if audio_root
        else common_root([p[2] for p in pending if p[2].is_file()], base)
    )

    source = Source(dataset or manifest.stem, None, split, revision, licence)
    rows: list[Candidate] = []
    seen: set[str] = set()
    for line, utt_id, audio, text, lang, offset, duration in pending:
        rel = relative_under(audio, root)
        reason = None
        if utt_id in seen:
            reason = "duplicate_id"
        elif not audio.is_file():
            reason = "missing_audio"
        elif rel is None:
            reason = "audio_outside_root"
        if reason:
            skipped.append(SkippedRow(reason, str(manifest), line, utt_id))
            continue
        assert rel is not None
        seen.add(utt_id)
        start = float(offset) if offset is not None else None
        end = start + float(duration) if start is not None and duration is not None else None
        utterance = Utterance(
            id=utt_id,
            audio=rel,
            text=text if text.strip() else "",
            language=lang,
            duration=float(duration) if duration is not None else None,
            sha256=sha256_file(audio) if hash_audio else None,
            source=source,
            start=start,
            end=end,
        )
        rows.append(Candidate(utterance, str(manifest), line))
    return write_import(
        importer="nemo",
        out_manifest=out_manifest,
        rows=rows,
        audio_root=root,
        skipped=skipped,
        meta=declared_meta(
            dataset or manifest.stem,
            licence=licence,
            consent_basis=consent_basis,
            revision=revision,
            selection_rule="all rows of the NeMo manifest in file order",
        ),
        source_path=manifest,
        warnings=licence_warnings(licence, consent_basis),
    )


def _bad_row(offset: Any, duration: Any, lang: Any) -> tuple[str, str] | None:
    """(reason, detail) for values no manifest row can carry, checked before they are
    used (an infinite offset cannot even make an id)."""
    if offset is not None and (not _finite(offset * 1000) or offset < 0):
        return "invalid_times", f"offset must be a finite number >= 0, got {offset!r}"
    if duration is not None and (not _finite(duration) or duration <= 0):
        return "invalid_duration", f"duration must be a finite number > 0, got {duration!r}"
    if lang is not None and not isinstance(lang, str):
        return "invalid_language", f"lang must be a string, got {type(lang).__name__}"
    return None


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond any float
        return False


def _given_id(obj: Mapping[str, object]) -> str | None:
    """The id a skipped row would have had (its `id`, `utt_id` or audio file stem)."""
    for key in ("id", "utt_id"):
        if obj.get(key) not in (None, ""):
            return str(obj[key])[:200]
    audio = obj.get("audio_filepath")
    return Path(audio).stem[:200] if isinstance(audio, str) and audio else None
