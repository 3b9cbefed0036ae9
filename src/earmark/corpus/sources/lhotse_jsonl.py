"""lhotse manifests read as JSON lines, without needing lhotse installed.

lhotse's on-disk format is stable, documented JSON: a `RecordingSet` (`id`, `sources`
[{type, channels, source}], `sampling_rate`, `num_samples`, `duration`), a
`SupervisionSet` (`id`, `recording_id`, `start`, `duration`, `channel`, `text`,
`language`, `speaker`, `gender`, `custom`), or a `CutSet` whose cuts embed both (with
supervision times relative to the cut). Reading it directly keeps lhotse an optional tool,
not a dependency. Only `file` sources are supported; `url`, `command` or in-memory audio
is skipped with `unsupported_lhotse_source`.
"""

from __future__ import annotations

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

#: lhotse recipes often store language names, not codes.
LANGUAGE_NAMES = {"english": "en", "chinese": "zh", "mandarin": "zh", "irish": "ga"}
_NUMBER = (int, float)


def _manifest_files(path: Path, recordings: Path | None) -> tuple[str, Path, Path | None]:
    """('cuts', cuts, None) or ('supervisions', supervisions, recordings)."""
    if path.is_dir():

        def one(word: str) -> Path | None:
            found = sorted(
                p
                for p in path.iterdir()
                if word in p.name and (p.name.endswith(".jsonl") or p.name.endswith(".jsonl.gz"))
            )
            if len(found) > 1:
                raise EarmarkError(
                    f"several {word} manifests: {', '.join(p.name for p in found)}",
                    file=str(path),
                    hint="pass the file itself",
                )
            return found[0] if found else None

        sups, recs, cuts = one("supervisions"), one("recordings"), one("cuts")
        if sups is not None and recs is not None:
            return "supervisions", sups, recs
        if cuts is not None:
            return "cuts", cuts, None
        raise EarmarkError(
            "no lhotse cuts or supervisions+recordings JSONL in the folder", file=str(path)
        )
    if "supervisions" in path.name:
        recs = recordings or path.with_name(path.name.replace("supervisions", "recordings"))
        if not recs.is_file():
            raise EarmarkError(
                "recordings manifest not found beside the supervisions",
                file=str(recs),
                hint="pass --recordings",
            )
        return "supervisions", path, recs
    return "cuts", path, None


def _number(obj: Mapping[str, object], key: str, path: Path, line: int) -> float:
    try:
        return float(require(obj, key, path, line, _NUMBER))
    except OverflowError:  # an integer beyond any float
        raise EarmarkError("number out of range", file=str(path), line=line, field=key) from None


def import_lhotse(
    path: str | os.PathLike[str],
    out_manifest: str | os.PathLike[str],
    *,
    recordings: str | os.PathLike[str] | None = None,
    language: str | None = None,
    dataset: str | None = None,
    split: str | None = None,
    revision: str | None = None,
    licence: str | None = None,
    consent_basis: str | None = None,
    audio_root: str | os.PathLike[str] | None = None,
    relative_to: str | os.PathLike[str] | None = None,
    hash_audio: bool = True,
) -> ImportReport:
    """Import a lhotse CutSet, or a SupervisionSet with its RecordingSet, one row per
    supervision. Relative audio paths are taken from `relative_to` (default: the folder of
    the manifest)."""
    check_language_option(language)
    kind, main, recs_path = _manifest_files(Path(path), Path(recordings) if recordings else None)
    base = Path(relative_to).resolve() if relative_to else main.resolve().parent
    # (line, supervision, recording, offset of supervision times, file holding the row)
    items: list[tuple[int, dict[str, Any], dict[str, Any] | None, float]] = []
    if kind == "cuts":
        for line, cut in read_jsonl(main):
            recording = require(cut, "recording", main, line, dict)
            cut_start = _number(cut, "start", main, line)
            supervisions = cut.get("supervisions") or []
            if not isinstance(supervisions, list) or not all(
                isinstance(sup, dict) for sup in supervisions
            ):
                raise EarmarkError(
                    "expected a list of supervision objects",
                    file=str(main),
                    line=line,
                    field="supervisions",
                )
            for sup in supervisions:
                items.append((line, sup, recording, cut_start))
    else:
        assert recs_path is not None
        recs: dict[str, dict[str, Any]] = {}
        for line, rec_obj in read_jsonl(recs_path):
            recs[require(rec_obj, "id", recs_path, line, str)] = rec_obj
        for line, sup in read_jsonl(main):
            rec_id = require(sup, "recording_id", main, line, str)
            items.append((line, sup, recs.get(rec_id), 0.0))

    skipped: list[SkippedRow] = []
    pending = []
    for line, sup, rec, offset in items:
        sup_id = require(sup, "id", main, line, str)
        text = sup.get("text")
        if rec is None:
            skipped.append(
                SkippedRow(
                    "missing_recording",
                    str(main),
                    line,
                    sup_id,
                    detail=str(sup.get("recording_id")),
                )
            )
            continue
        channel = sup.get("channel") or 0
        if isinstance(channel, list) and channel:  # a multi-channel supervision
            channel = channel[0]
        if not isinstance(channel, int) or isinstance(channel, bool):
            raise EarmarkError(
                "expected a channel number", file=str(main), line=line, field="channel"
            )
        audio = _file_source(rec, channel, base)
        if audio is None:
            skipped.append(SkippedRow("unsupported_lhotse_source", str(main), line, sup_id))
            continue
        if not isinstance(text, str) or not text.strip():
            skipped.append(SkippedRow("empty_text", str(main), line, sup_id))
            continue
        if not audio.is_file():
            skipped.append(SkippedRow("missing_audio", str(main), line, sup_id, detail=str(audio)))
            continue
        lang = language or sup.get("language")
        if not lang:
            raise EarmarkError(
                "supervision has no language",
                file=str(main),
                line=line,
                field="language",
                hint="pass --language",
            )
        lang = LANGUAGE_NAMES.get(str(lang).lower(), str(lang))
        start = offset + _number(sup, "start", main, line)
        duration = _number(sup, "duration", main, line)
        given_duration = rec.get("duration")
        rec_duration = -1.0  # unknown: the supervision is never "the whole recording"
        if (
            isinstance(given_duration, _NUMBER)
            and not isinstance(given_duration, bool)
            and abs(given_duration) < 1e300  # an int may be beyond any float
        ):
            rec_duration = float(given_duration)
        whole = abs(start) < 1e-9 and abs(duration - rec_duration) < 1e-6
        pending.append(
            (
                line,
                sup_id,
                audio,
                text,
                lang,
                None if whole else start,
                None if whole else start + duration,
                duration,
                sup,
            )
        )
    root = Path(audio_root).resolve() if audio_root else common_root([p[2] for p in pending], base)

    source = Source(dataset or main.name.split(".")[0], None, split, revision, licence)
    rows: list[Candidate] = []
    seen: set[str] = set()
    hashes: dict[Path, str] = {}
    for line, sup_id, audio, text, lang, seg_start, seg_end, duration, sup in pending:
        rel = relative_under(audio, root)
        if sup_id in seen or rel is None:
            reason = "duplicate_id" if sup_id in seen else "audio_outside_root"
            skipped.append(SkippedRow(reason, str(main), line, sup_id))
            continue
        seen.add(sup_id)
        if hash_audio and audio not in hashes:
            hashes[audio] = sha256_file(audio)
        given = sup.get("custom") or {}
        if not isinstance(given, dict):
            raise EarmarkError("expected an object", file=str(main), line=line, field="custom")
        custom = dict(given)
        gender = sup.get("gender")
        if gender:
            custom["gender"] = gender
        utterance = Utterance(
            id=sup_id,
            audio=rel,
            text=text,
            language=lang,
            speaker=sup.get("speaker"),
            slices=(f"gender:{gender}",) if gender else (),
            duration=duration,
            sha256=hashes.get(audio),
            source=source,
            start=seg_start,
            end=seg_end,
            custom=custom,
        )
        rows.append(Candidate(utterance, str(main), line))
    return write_import(
        importer="lhotse",
        out_manifest=out_manifest,
        rows=rows,
        audio_root=root,
        skipped=skipped,
        meta=declared_meta(
            source.dataset or "lhotse",
            licence=licence,
            consent_basis=consent_basis,
            revision=revision,
            selection_rule="all supervisions in file order",
        ),
        source_path=main,
        warnings=licence_warnings(licence, consent_basis),
    )


def _file_source(recording: Mapping[str, object], channel: int, base: Path) -> Path | None:
    sources = recording.get("sources") or []
    if not isinstance(sources, list) or not all(isinstance(s, dict) for s in sources):
        return None  # not lhotse's layout: reported as an unsupported source
    chosen = None
    if len(sources) == 1:
        chosen = sources[0]
    else:
        chosen = next((s for s in sources if _has_channel(s, channel)), None)
    if not chosen or chosen.get("type") != "file" or not isinstance(chosen.get("source"), str):
        return None
    return resolve_listed(chosen["source"], base)


def _has_channel(source: Mapping[str, object], channel: int) -> bool:
    channels = source.get("channels") or []
    return isinstance(channels, list) and channel in channels
