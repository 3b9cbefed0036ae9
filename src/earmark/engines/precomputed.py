"""Hypotheses some other system already produced, read from JSONL or TSV by utterance id.

A clip with no row is not dropped: it gets `error="missing_hypothesis"` and empty text,
so scoring counts it as all deletions. The file's SHA-256 is its revision. A JSONL row may
carry the system's timestamps as `segments: [[start, end, text], ...]` (seconds), which
the run keeps for long-form and timestamp-accuracy scoring.

Saved hypotheses prove their own bytes, not which model wrote them, so the arm is recorded
`verifiable: false` unless its user declares the model (`model=ID`) and its identity
(`model_revision=REV` and/or `model_sha256=HEX` or `NAME:HEX,...`). A declaration is
recorded as declared (`extra.declared_model`), never as measured: earmark cannot check it.
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
from earmark.engines.system_type import parse_system_type
from earmark.errors import EarmarkError
from earmark.records import read_records
from earmark.results.codec import JSONValue

BACKEND = "precomputed"
#: Text fields tried in order when `text_field` is not given.
DEFAULT_TEXT_FIELDS = ("hypothesis", "text")
#: Longest declared model id or revision (a declaration, not a document); a list of file
#: digests may hold up to 64 times as much.
DECLARED_MAX_CHARS = 300
#: What a declaration is, in the record beside it.
DECLARED_SOURCE = (
    "declared in the arm settings, not measured: earmark read saved hypotheses and cannot "
    "check which model wrote them"
)


@dataclass(frozen=True)
class DeclaredModel:
    """The model the user says wrote the hypotheses, and its identity, as declared."""

    model: str | None = None
    revision: str | None = None
    file_sha256: tuple[tuple[str, str], ...] = ()
    system_type: str | None = None

    def unverifiable_reason(self, arm: str) -> str | None:
        """Why the arm cannot be verified; None when the model and its identity are declared."""
        if self.model is None:
            return (
                f"precomputed arm '{arm}': saved hypotheses prove their bytes, not which model "
                "wrote them (declare model=ID with model_revision= or model_sha256=)"
            )
        if self.revision is None and not self.file_sha256:
            return (
                f"precomputed arm '{arm}' declares model {self.model!r} but neither "
                "model_revision= nor model_sha256="
            )
        return None

    def record(self, arm: str) -> dict[str, JSONValue]:
        """What model.json `extra` keeps of the declaration (nothing when there is none)."""
        extra: dict[str, JSONValue] = {}
        if self.model is not None:
            extra["declared_model"] = {
                "model": self.model,
                "revision": self.revision,
                "file_sha256": dict(self.file_sha256),
                "source": DECLARED_SOURCE,
            }
        if self.system_type is not None:
            extra["system_type"] = self.system_type
            extra["system_type_source"] = "declared in the arm settings (system_type=)"
        reason = self.unverifiable_reason(arm)
        if reason is not None:
            extra["verifiable"] = False
            extra["unverifiable_reason"] = reason
        return extra


@dataclass(frozen=True)
class PrecomputedOptions:
    path: Path
    format: str
    id_field: str
    text_field: str | None
    language_field: str
    licence: str | None
    licence_source: str | None
    declared: DeclaredModel = DeclaredModel()


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
        declared=read_declared(reader),
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
            extra={
                "rows": len(self._rows),
                "format": self.options.format,
                **self.options.declared.record(self.name),
            },
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


def read_declared(reader: SettingsReader) -> DeclaredModel:
    """`model`, `model_revision`, `model_sha256` and `system_type`, checked: an identity
    without the model it identifies, a malformed digest or a control character is refused."""

    def text(key: str, limit: int = DECLARED_MAX_CHARS) -> str | None:
        value = reader.text(key)
        if value is None:
            return None
        value = value.strip()
        if not value:
            raise reader.error(key, "is empty")
        if len(value) > limit:
            raise reader.error(key, f"is longer than {limit} characters")
        if not value.isprintable():
            raise reader.error(key, "holds a control or unprintable character")
        return value

    model, revision, digests = (
        text("model"),
        text("model_revision"),
        text("model_sha256", 64 * DECLARED_MAX_CHARS),
    )
    system_type = reader.text("system_type")
    try:
        declared_type = None if system_type is None else parse_system_type(system_type)
    except EarmarkError as exc:
        raise reader.error("system_type", exc.message, exc.hint) from None
    declared = DeclaredModel(
        model=model,
        revision=revision,
        file_sha256=() if digests is None else _declared_digests(reader, digests),
        system_type=declared_type,
    )
    if model is None and (revision is not None or digests is not None):
        key = "model_revision" if revision is not None else "model_sha256"
        raise reader.error(key, "identifies no model", hint="declare model=ID beside it")
    return declared


def _declared_digests(reader: SettingsReader, value: str) -> tuple[tuple[str, str], ...]:
    """`HEX` (the model's file) or `NAME:HEX,NAME:HEX` (SHA-256 per file), names unique."""
    found: dict[str, str] = {}
    for part in value.split(","):
        name, _, digest = part.strip().rpartition(":")
        name, digest = name.strip() or "model", digest.strip().lower()
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise reader.error(
                "model_sha256",
                f"{part.strip()[:80]!r} is not a SHA-256 (64 hex digits)",
                hint="model_sha256=HEX, or NAME:HEX,NAME:HEX for several files",
            )
        if name in found:
            raise reader.error("model_sha256", f"file {name[:80]!r} is declared twice")
        found[name] = digest
    return tuple(sorted(found.items()))


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
