"""Kaldi data directories: `wav.scp`, `text`, optional `utt2spk` and `segments`.

Only plain file paths in `wav.scp` are supported: a piped command (`sox ... |`) or an ark
offset is skipped with a reason code rather than executed. Relative paths are taken from
the recipe folder (the data dir's grandparent: `<recipe>/data/<set>`), unless
`relative_to` says otherwise. Without `segments`, each utterance id is a recording id.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from earmark.artefacts import sha256_file
from earmark.corpus.model import Source, Utterance
from earmark.corpus.sources.audio_paths import (
    common_root,
    relative_under,
    resolve_listed,
)
from earmark.corpus.sources.generic_meta import declared_meta
from earmark.corpus.sources.output import (
    Candidate,
    check_language_option,
    licence_warnings,
    write_import,
)
from earmark.corpus.sources.report import ImportReport, SkippedRow
from earmark.corpus.sources.tsv import numbered_lines
from earmark.errors import EarmarkError


@dataclass(frozen=True)
class _Entry:
    line: int
    key: str
    value: str


def _read_table(path: Path, *, allow_empty: bool = False) -> dict[str, _Entry]:
    """`key value` lines (the value is the rest of the line, may be empty in `text`)."""
    table: dict[str, _Entry] = {}
    for line, text in numbered_lines(path):
        parts = text.strip().split(None, 1)
        if len(parts) < 2 and not allow_empty:
            raise EarmarkError("expected `key value`", file=str(path), line=line, field="value")
        key = parts[0]
        if key in table:
            raise EarmarkError(
                f"duplicate key {key!r} (first on line {table[key].line})",
                file=str(path),
                line=line,
                field="key",
            )
        table[key] = _Entry(line, key, parts[1] if len(parts) > 1 else "")
    return table


def _segments(path: Path) -> dict[str, tuple[int, str, float, float | None]]:
    out: dict[str, tuple[int, str, float, float | None]] = {}
    for line, text in numbered_lines(path):
        parts = text.split()
        if len(parts) != 4:
            raise EarmarkError(
                "expected `utt recording start end`",
                file=str(path),
                line=line,
                field="end" if len(parts) == 3 else None,
            )
        try:
            start, end = float(parts[2]), float(parts[3])
        except ValueError:
            raise EarmarkError(
                "start/end are not numbers", file=str(path), line=line, field="start"
            ) from None
        if parts[0] in out:
            raise EarmarkError(
                f"duplicate segment id {parts[0]!r} (first on line {out[parts[0]][0]})",
                file=str(path),
                line=line,
                field="utt",
                hint="each utterance id names one segment; remove or rename the repeat",
            )
        out[parts[0]] = (line, parts[1], start, None if end < 0 else end)
    return out


def import_kaldi(
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
    relative_to: str | os.PathLike[str] | None = None,
    hash_audio: bool = True,
) -> ImportReport:
    """Import a Kaldi data dir; rows follow the order of `text`."""
    folder = Path(path)
    if not language:
        raise EarmarkError(
            "a Kaldi data dir does not record its language",
            file=str(folder),
            field="language",
            hint="pass --language (e.g. ga)",
        )
    check_language_option(language)
    for name in ("wav.scp", "text"):
        if not (folder / name).is_file():
            raise EarmarkError(f"Kaldi data dir has no {name}", file=str(folder / name))
    base = Path(relative_to) if relative_to else folder.resolve().parent.parent
    wav_scp = _read_table(folder / "wav.scp")
    texts = _read_table(folder / "text", allow_empty=True)
    utt2spk = _read_table(folder / "utt2spk") if (folder / "utt2spk").is_file() else {}
    segments = _segments(folder / "segments") if (folder / "segments").is_file() else None

    skipped: list[SkippedRow] = []
    files: dict[str, Path] = {}
    unusable: dict[str, tuple[str, int]] = {}
    for rec, entry in wav_scp.items():
        value = entry.value.strip()
        if value.endswith("|"):
            unusable[rec] = ("unsupported_wav_scp_command", entry.line)
        elif ".ark:" in value or value.startswith("-"):
            unusable[rec] = ("unsupported_wav_scp_ark", entry.line)
        else:
            files[rec] = resolve_listed(value, base)
    root = Path(audio_root).resolve() if audio_root else common_root(files.values(), folder)

    text_path = str(folder / "text")
    pending: list[tuple[str, Path, float | None, float | None]] = []
    for utt, entry in texts.items():
        if segments is not None:
            if utt not in segments:
                skipped.append(SkippedRow("missing_audio_entry", text_path, entry.line, utt))
                continue
            _, rec, start, end = segments[utt]
        else:
            rec, start, end = utt, None, None
        if rec in unusable:
            reason, line = unusable[rec]
            skipped.append(SkippedRow(reason, str(folder / "wav.scp"), line, utt))
        elif rec not in files:
            skipped.append(
                SkippedRow(
                    "missing_audio_entry",
                    text_path,
                    entry.line,
                    utt,
                    detail=f"recording {rec!r} not in wav.scp",
                )
            )
        elif not entry.value.strip():
            skipped.append(SkippedRow("empty_text", text_path, entry.line, utt))
        elif not files[rec].is_file():
            skipped.append(
                SkippedRow("missing_audio", text_path, entry.line, utt, detail=str(files[rec]))
            )
        else:
            pending.append((utt, files[rec], start, end))
    with_audio = set(segments) if segments is not None else set(files) | set(unusable)
    for utt in sorted(with_audio - set(texts)):
        line = segments[utt][0] if segments is not None else wav_scp[utt].line
        where = folder / ("segments" if segments is not None else "wav.scp")
        skipped.append(SkippedRow("missing_text", str(where), line, utt))

    source = Source(dataset or folder.name, None, split or folder.name, revision, licence)
    rows: list[Candidate] = []
    hashes: dict[Path, str] = {}
    for utt, audio, start, end in pending:
        rel = relative_under(audio, root)
        if rel is None:
            skipped.append(
                SkippedRow("audio_outside_root", text_path, texts[utt].line, utt, detail=str(audio))
            )
            continue
        if hash_audio and audio not in hashes:
            hashes[audio] = sha256_file(audio)
        spk = utt2spk.get(utt)
        utterance = Utterance(
            id=utt,
            audio=rel,
            text=texts[utt].value,
            language=language,
            speaker=spk.value if spk else None,
            sha256=hashes.get(audio),
            source=source,
            start=start,
            end=end,
        )
        rows.append(Candidate(utterance, text_path, texts[utt].line))
    return write_import(
        importer="kaldi",
        out_manifest=out_manifest,
        rows=rows,
        audio_root=root,
        skipped=skipped,
        meta=declared_meta(
            dataset or folder.name,
            licence=licence,
            consent_basis=consent_basis,
            revision=revision,
            selection_rule="all utterances of `text`",
        ),
        source_path=folder,
        warnings=licence_warnings(licence, consent_basis),
    )
