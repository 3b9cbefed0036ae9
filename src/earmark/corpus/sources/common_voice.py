"""Common Voice release folders: `<split>.tsv` (with a header) plus `clips/*.mp3`.

Columns vary by release (`client_id path sentence up_votes down_votes age gender accents
variant locale segment`, newer ones add `sentence_id`, `sentence_domain`); only
`client_id`, `path` and `sentence` are required. The speaker is the anonymous
`client_id`; gender, age, accents and variant become slice candidates so results can be
broken down by them. Audio is not decoded here.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from earmark.artefacts import sha256_file
from earmark.corpus.manifest import audio_path_problem
from earmark.corpus.model import CorpusMeta, Source, Utterance
from earmark.corpus.sources.languages import language_for_common_voice_locale
from earmark.corpus.sources.output import (
    Candidate,
    check_language_option,
    licence_warnings,
    write_import,
)
from earmark.corpus.sources.report import ImportReport, SkippedRow
from earmark.corpus.sources.tsv import read_header_tsv
from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue

COMMON_VOICE_DATASET = "mozilla-foundation/common_voice"
COMMON_VOICE_URL = "https://commonvoice.mozilla.org/datasets"
COMMON_VOICE_LICENCE = "CC0-1.0"
COMMON_VOICE_CONSENT = (
    "as published by Mozilla: contributors accepted the Common Voice terms and released "
    "their recordings under CC0; users must not try to identify speakers"
)
REQUIRED_COLUMNS = ("client_id", "path")
#: Common Voice's reference text column; `text_column` names another.
TEXT_COLUMN = "sentence"
CUSTOM_COLUMNS = (
    "up_votes",
    "down_votes",
    "age",
    "gender",
    "accents",
    "variant",
    "locale",
    "segment",
    "sentence_domain",
)
_RELEASE = re.compile(r"cv-corpus-[\w.\-]+")


def _release_from_path(folder: Path) -> str | None:
    for part in reversed(folder.resolve().parts):
        if _RELEASE.fullmatch(part):
            return part
    return None


def _slices(record: dict[str, str]) -> tuple[str, ...]:
    """Slice labels, each once: a row may list one accent twice (`a|a`), and a manifest
    refuses a slice listed twice."""
    slices = []
    for column in ("gender", "age"):
        value = record.get(column, "").strip()
        if value:
            slices.append(f"{column}:{value}")
    for accent in record.get("accents", "").split("|"):
        if accent.strip():
            slices.append(f"accent:{accent.strip()}")
    variant = record.get("variant", "").strip()
    if variant:
        slices.append(f"variant:{variant}")
    return tuple(dict.fromkeys(slices))


def import_common_voice(
    path: str | os.PathLike[str],
    out_manifest: str | os.PathLike[str],
    *,
    split: str = "test",
    locale: str | None = None,
    language: str | None = None,
    revision: str | None = None,
    licence: str | None = COMMON_VOICE_LICENCE,
    consent_basis: str | None = COMMON_VOICE_CONSENT,
    hash_audio: bool = True,
    text_column: str = TEXT_COLUMN,
) -> ImportReport:
    """Import `<split>.tsv` of one Common Voice locale folder (e.g. `cv-corpus-25.0/ga-IE`);
    `text_column` names the reference text's column where a release calls it otherwise.

    The locale defaults to the folder name; `revision` to the `cv-corpus-*` release folder
    in the path. The audio root is the locale folder (`clips/<file>`).
    """
    folder = Path(path)
    tsv = folder / f"{split}.tsv"
    if not tsv.is_file():
        raise EarmarkError(
            f"no {split}.tsv in the Common Voice folder",
            file=str(folder),
            hint="pass the locale folder (e.g. cv-corpus-25.0-.../ga-IE) and --split",
        )
    check_language_option(language)
    locale = locale or folder.name
    language = language or language_for_common_voice_locale(locale)
    revision = revision or _release_from_path(folder)
    source = Source("common_voice", locale, split, revision, licence)
    rows: list[Candidate] = []
    skipped: list[SkippedRow] = []
    seen: set[str] = set()
    required = (*REQUIRED_COLUMNS, text_column)
    hints = {text_column: "name the reference text's column with --text-column"}
    for line, record in read_header_tsv(tsv, required, hints):
        clip = record["path"].strip()
        if not clip:
            raise EarmarkError("empty clip path", file=str(tsv), line=line, field="path")
        utt_id = Path(clip).stem
        audio = folder / "clips" / clip
        reason = None
        if audio_path_problem(clip) is not None:
            reason = "invalid_audio_path"  # never read a file outside clips/
        elif utt_id in seen:
            reason = "duplicate_id"
        elif not record[text_column].strip():
            reason = "empty_text"
        elif not audio.is_file():
            reason = "missing_audio"
        if reason:
            skipped.append(SkippedRow(reason, str(tsv), line, utt_id))
            continue
        seen.add(utt_id)
        custom: dict[str, JSONValue] = {"locale": record.get("locale") or locale}
        for column in CUSTOM_COLUMNS:
            value = record.get(column, "").strip()
            if value and column != "locale":
                custom[column] = (
                    int(value)
                    if column.endswith("votes") and value.isascii() and value.isdigit()
                    else value
                )
        utterance = Utterance(
            id=utt_id,
            audio=f"clips/{clip}",
            text=record[text_column],
            language=language,
            speaker=record["client_id"].strip() or None,
            slices=_slices(record),
            sha256=sha256_file(audio) if hash_audio else None,
            source=source,
            text_id=record.get("sentence_id", "").strip() or None,
            custom=custom,
        )
        rows.append(Candidate(utterance, str(tsv), line))
    meta = CorpusMeta(
        dataset="common_voice",
        licence=licence,
        consent_basis=consent_basis,
        redistribute_audio=licence == COMMON_VOICE_LICENCE,
        redistribute_transcripts=licence == COMMON_VOICE_LICENCE,
        url=COMMON_VOICE_URL,
        creator="Mozilla Common Voice contributors",
        selection_rule=f"all rows of {split}.tsv in file order",
        revision=revision,
    )
    return write_import(
        importer="common_voice",
        out_manifest=out_manifest,
        rows=rows,
        audio_root=folder,
        skipped=skipped,
        meta=meta,
        source_path=tsv,
        warnings=licence_warnings(licence, consent_basis),
    )
