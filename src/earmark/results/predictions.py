"""One line of `predictions.jsonl`: a row's texts, status, views and per-view counts.

A row keeps what the engine returned (raw text, timings, engine extras) beside what the
scorer made of it (each view's normalised texts and S/D/I/hits), so any figure in
`results.json` can be recomputed from these rows.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from earmark.results.codec import (
    ANY,
    BOOL,
    INT,
    NUMBER,
    OBJECT,
    STR,
    JSONObject,
    JSONValue,
    MapOf,
    Nullable,
    TupleOf,
    json_key,
)
from earmark.results.counted import Counted
from earmark.results.io import numbered_lines
from earmark.results.notebook import Cell, data_frame, scalar_fields
from earmark.results.record import Nested, Record, parse_json

if TYPE_CHECKING:
    from earmark.results.notebook import Frame


@dataclass(frozen=True, kw_only=True)
class UnitCounts(Record, Counted):
    """One row's counts in one unit; `ref_units`/`hyp_units` follow from the four."""

    substitutions: int = field(metadata=json_key(INT))
    deletions: int = field(metadata=json_key(INT))
    insertions: int = field(metadata=json_key(INT))
    hits: int = field(metadata=json_key(INT))
    ref_units: int = field(metadata=json_key(INT))
    hyp_units: int = field(metadata=json_key(INT))


@dataclass(frozen=True, kw_only=True)
class PredictionView(Record):
    """A row in one view: its texts and counts, or why the view is unavailable."""

    reference: str | None = field(default=None, metadata=json_key(STR))
    hypothesis: str | None = field(default=None, metadata=json_key(STR))
    null_reason: str | None = field(default=None, metadata=json_key(STR))
    wer: UnitCounts | None = field(default=None, metadata=json_key(Nested(UnitCounts)))
    cer: UnitCounts | None = field(default=None, metadata=json_key(Nested(UnitCounts)))
    mixed_reference: str | None = field(default=None, metadata=json_key(STR))
    mixed_hypothesis: str | None = field(default=None, metadata=json_key(STR))
    mixed_er: UnitCounts | None = field(default=None, metadata=json_key(Nested(UnitCounts)))


@dataclass(frozen=True, kw_only=True)
class PredictionRow(Record):
    """One row of predictions.jsonl (`earmark score` writes the scoring half, `earmark
    run` adds the engine's: arm, timings, engine extras, language handling)."""

    id: str = field(metadata=json_key(STR))
    reference: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    #: None: the engine gave no hypothesis (scored as all deletions).
    hypothesis: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    language: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    slices: tuple[str, ...] | None = field(default=None, metadata=json_key(TupleOf(STR)))
    status: str | None = field(default=None, metadata=json_key(STR))
    normalizer: str | None = field(default=None, metadata=json_key(STR))
    views: Mapping[str, PredictionView] | None = field(
        default=None, metadata=json_key(MapOf(Nested(PredictionView)))
    )
    arm: str | None = field(default=None, metadata=json_key(STR))
    repeat: int | None = field(default=None, metadata=json_key(INT))
    audio_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    decode_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    end_to_end_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    audio_sha256: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    cache_key: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    model_fingerprint: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    language_requested: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    language_used: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    language_mismatch: bool | None = field(default=None, metadata=json_key(Nullable(BOOL)))
    #: Engine-specific figures (log-probabilities, temperatures, ...).
    engine: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    #: `[start, end, text]` segments as the engine returned them.
    segments: JSONValue = field(default=None, metadata=json_key(ANY))

    def view(self, name: str) -> PredictionView | None:
        return None if self.views is None else self.views.get(name)

    def to_json(self) -> str:
        """One line as the checked-in runs hold it: keys sorted, UTF-8 as is, no newline.

        (The current writer uses orjson, whose bytes are the same up to spacing.)"""
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_line(
        cls, line: str, *, file: str | None = None, number: int | None = None
    ) -> PredictionRow:
        """One JSONL line; errors name the file and line."""
        from earmark.errors import EarmarkError

        try:
            # The parsed line is this call's alone: its engine figures need no copy.
            return cls.from_dict(parse_json(line, file=file), copy=False)
        except EarmarkError as exc:
            if exc.file is None:
                exc.file = file
            if exc.line is None:
                exc.line = number
            raise


def read_predictions(path: str | os.PathLike[str]) -> Iterator[PredictionRow]:
    """Each line of a predictions.jsonl, in order (one row in memory at a time); a bad
    line is an error naming its number. Blank lines are skipped."""
    for number, line in numbered_lines(path):
        yield PredictionRow.from_line(line, file=os.fspath(path), number=number)


def predictions_to_pandas(rows: Iterable[PredictionRow]) -> Frame:
    """One DataFrame row per utterance (and arm and repeat): its plain fields, and per view
    and unit its counts as `<view>.<unit>.<count>` (`normalized.wer.substitutions`), so a
    rate over any group is summed edits over summed reference units; needs pandas.

    `predictions_to_pandas(read_predictions("run/predictions.jsonl"))`"""
    out: list[dict[str, Cell]] = []
    columns: dict[str, None] = {}
    for row in rows:
        record = scalar_fields(row)
        record["slices"] = None if row.slices is None else ",".join(row.slices)
        for view_name, view in (row.views or {}).items():
            record[f"{view_name}.null_reason"] = view.null_reason
            for unit, counts in (("wer", view.wer), ("cer", view.cer)):
                if counts is not None:
                    for key, value in scalar_fields(counts).items():
                        record[f"{view_name}.{unit}.{key}"] = value
        columns.update(dict.fromkeys(record))
        out.append(record)
    return data_frame(out, list(columns))
