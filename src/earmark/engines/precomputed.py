"""Hypotheses some other system already produced, read from JSONL or TSV by utterance id.

A clip with no row is not dropped: it gets `error="missing_hypothesis"` and empty text,
so scoring counts it as all deletions. The file's SHA-256 is its revision. A JSONL row may
carry the system's timestamps as `segments: [[start, end, text], ...]` (seconds), which
the run keeps for long-form and timestamp-accuracy scoring.
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earmark.artefacts import sha256_file
from earmark.engines.base import Clip, Hypothesis, ModelInfo, Segment
from earmark.engines.settings import SettingsReader, read_licence
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.records import read_records

BACKEND = "precomputed"
#: Text fields tried in order when `text_field` is not given.
DEFAULT_TEXT_FIELDS = ("hypothesis", "text")


@dataclass(frozen=True)
class PrecomputedOptions:
    path: Path
    format: str
    id_field: str
    text_field: str | None
    language_field: str
    licence: str | None
    licence_source: str | None


@dataclass(frozen=True)
class _Row:
    text: str
    language: str | None
    decode_seconds: float
    segments: tuple[Segment, ...] = ()


def read_options(arm: ArmSpec) -> PrecomputedOptions:
    reader = SettingsReader(arm)
    licence, licence_source = read_licence(reader)
    path = Path(arm.model).expanduser()
    guessed = "tsv" if path.suffix.lower() in (".tsv", ".txt") else "jsonl"
    options = PrecomputedOptions(
        path=path,
        format=reader.choice("format", ("jsonl", "tsv"), guessed),
        id_field=reader.text("id_field", "id") or "id",
        text_field=reader.text("text_field"),
        language_field=reader.text("language_field", "language") or "language",
        licence=licence,
        licence_source=licence_source,
    )
    reader.finish()
    if not path.is_file():
        raise EarmarkError(
            f"arm '{arm.name}': hypothesis file not found at {path}", file=str(path), field="model"
        )
    return options


class PrecomputedEngine:
    """Looks each clip up in the file; `decode_seconds` comes from the file when present."""

    def __init__(self, arm: ArmSpec, options: PrecomputedOptions) -> None:
        self.arm = arm
        self.name = arm.name
        self.options = options
        self._rows: dict[str, _Row] | None = None

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> PrecomputedOptions:
        return read_options(arm)

    @classmethod
    def from_spec(cls, arm: ArmSpec) -> PrecomputedEngine:
        return cls(arm, read_options(arm))

    def load(self) -> ModelInfo:
        if self._rows is not None:
            raise RuntimeError(f"arm '{self.name}' is already loaded; load() runs once")
        started = time.perf_counter()
        path = self.options.path
        digest = sha256_file(path)
        records = _read_tsv(path) if self.options.format == "tsv" else _read_jsonl(path)
        if not records:
            raise EarmarkError(
                "no hypotheses in the file (an empty file is not a result)", file=str(path)
            )
        self._rows = {}
        for line, record in records:
            key, row = self._row(record, line)
            if key in self._rows:
                raise EarmarkError(
                    f"duplicate id {key!r}", file=str(path), line=line, field=self.options.id_field
                )
            self._rows[key] = row
        return ModelInfo(
            backend=BACKEND,
            artifact_id=path.resolve().as_posix(),
            revision=f"sha256:{digest}",
            file_sha256={path.name: digest},
            licence=self.options.licence,
            licence_source=self.options.licence_source,
            runtime="precomputed",
            runtime_version=None,
            compute_type=None,
            load_seconds=time.perf_counter() - started,
            size_bytes=path.stat().st_size,
            deterministic=True,
            determinism_note="read from a file whose hash is recorded: the same file gives "
            "the same text (how it was decoded is not known to earmark)",
            extra={"rows": len(self._rows), "format": self.options.format},
        )

    def _row(self, record: dict[str, Any], line: int) -> tuple[str, _Row]:
        file = str(self.options.path)
        key = record.get(self.options.id_field)
        if not isinstance(key, str) or not key:
            raise EarmarkError(
                "missing or non-string id", field=self.options.id_field, file=file, line=line
            )
        fields = (self.options.text_field,) if self.options.text_field else DEFAULT_TEXT_FIELDS
        field = next((f for f in fields if f in record), None)
        if field is None:
            raise EarmarkError(
                "no hypothesis text",
                field=fields[0],
                hint="set text_field=<column>",
                file=file,
                line=line,
            )
        text = record[field]
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise EarmarkError("hypothesis text is not a string", field=field, file=file, line=line)
        language = record.get(self.options.language_field)
        seconds = record.get("decode_seconds")
        try:
            seconds_value = float(seconds) if seconds not in (None, "") else 0.0
        except (TypeError, ValueError):
            raise EarmarkError(
                "decode_seconds is not a number", field="decode_seconds", file=file, line=line
            ) from None
        return key, _Row(
            text,
            language if isinstance(language, str) and language else None,
            seconds_value,
            _segments(record.get("segments"), file, line),
        )

    def transcribe(self, clips: Sequence[Clip], language: str | None) -> list[Hypothesis]:
        if self._rows is None:
            raise RuntimeError(f"arm '{self.name}': call load() before transcribe()")
        hypotheses = []
        for clip in clips:
            row = self._rows.get(clip.id)
            if row is None:
                hypotheses.append(
                    Hypothesis(
                        id=clip.id,
                        text="",
                        decode_seconds=0.0,
                        language_requested=language,
                        error="missing_hypothesis",
                    )
                )
                continue
            hypotheses.append(
                Hypothesis(
                    id=clip.id,
                    text=row.text,
                    decode_seconds=row.decode_seconds,
                    language_requested=language,
                    language_used=row.language,
                    segments=row.segments,
                )
            )
        return hypotheses

    def close(self) -> None:
        self._rows = None


def _segments(value: Any, file: str, line: int) -> tuple[Segment, ...]:
    """A row's `segments` validated like a manifest's (absent or null: no timestamps)."""
    from earmark.metrics.long_form import parse_segments

    if value is None:
        return ()
    if not isinstance(value, list):
        raise EarmarkError(
            "segments must be a list of [start, end, text]", field="segments", file=file, line=line
        )
    try:
        parsed = parse_segments(value, field="segments")
    except EarmarkError as exc:
        raise EarmarkError(
            exc.message, field=exc.field, hint=exc.hint, file=file, line=line
        ) from None
    return tuple(Segment(s.start, s.end, s.text) for s in parsed)


def _read_jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    records = []
    for number, line in read_records(path):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EarmarkError(f"not JSON: {exc.msg}", file=str(path), line=number) from None
        if not isinstance(record, dict):
            raise EarmarkError("a row must be a JSON object", file=str(path), line=number)
        records.append((number, record))
    return records


def _read_tsv(path: Path) -> list[tuple[int, dict[str, Any]]]:
    lines = (line + "\n" for _, line in read_records(path))
    reader = csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
    try:
        if not reader.fieldnames:
            raise EarmarkError("empty TSV (a header row is required)", file=str(path), line=1)
        return [(reader.line_num, dict(row)) for row in reader]
    except csv.Error as exc:
        raise EarmarkError(f"malformed TSV: {exc}", file=str(path), line=reader.line_num) from None
