"""Reading a folder's `predictions.jsonl`: one JSON object per arm x utterance x repeat.

The run store appends rows one fsynced line at a time, so a killed run can leave its last
line half-written; readers skip that torn last line (the run that resumes truncates it)
but refuse a bad line anywhere else, which no crash produces. Rows are paired across runs
by `row_key` (utterance id, repeat) and kept apart within one run by `arm_row_key`.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypedDict, cast

from earmark.errors import EarmarkError
from earmark.records import decode_records, read_records
from earmark.rundir.layout import PREDICTIONS

if TYPE_CHECKING:
    from earmark.results import PredictionRow
    from earmark.results.codec import JSONObject, JSONValue


class RunRow(TypedDict, total=False):
    """One row of a run's store as the arm loop writes it (`arm_loop.prediction_row`).

    A plain dict at run time (a run writes one per clip and repeat, and a typed record
    per row would cost the loop); this names its keys and their types for the code that
    reads them back. `finish` adds `normalizer` and `views` (and `speaker`) when scoring.
    """

    arm: str
    id: str
    repeat: int
    cache_key: str
    model_fingerprint: str
    audio_sha256: str | None
    audio_seconds: float | None
    reference: str
    language: str
    slices: list[str]
    status: str
    detail: str
    hypothesis: str | None
    decode_seconds: float | None
    audio_load_seconds: float | None
    end_to_end_seconds: float | None
    language_requested: str | None
    language_used: str | None
    language_mismatch: bool
    segments: list[list[float | str]]
    words: list[list[float | str]]
    stream: JSONObject
    engine: JSONObject
    non_finite: list[str]
    speaker: str
    normalizer: str
    views: JSONObject


#: (utterance id, repeat): what pairs a row of one run with the same row of another.
RowKey = tuple[str, int]
#: (arm, utterance id, repeat): what tells a run's rows apart (the store's resume key).
ArmRowKey = tuple[str, str, int]


def row_key(row: Mapping[str, Any]) -> RowKey:
    """(id, repeat) of a row as written; a row without `repeat` is repeat 0."""
    return str(row.get("id")), int(row.get("repeat") or 0)


def arm_row_key(row: RunRow) -> ArmRowKey:
    """(arm, id, repeat) of a run's row: the last row written for it is the one that counts."""
    return (str(row["arm"]), str(row["id"]), int(row.get("repeat", 0)))


def predictions_file(
    path: str | os.PathLike[str],
    *,
    hint: str = "give an earmark run directory or an `earmark score` output directory",
) -> Path:
    """The predictions file a user named: the folder's `predictions.jsonl`, or the file itself.

    Refused when there is none; `hint` says which argument takes which folders."""
    p = Path(path)
    if p.is_dir():
        p = p / PREDICTIONS
    if not p.is_file():
        raise EarmarkError(f"no {PREDICTIONS} here", file=str(p), hint=hint)
    return p


def parse_prediction_objects(raw: bytes, file: str) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) of every non-blank line of a predictions file's bytes, strictly:
    for a reader that must take every row or none (post-processing hashes the very bytes
    it parsed, so a torn last line is refused here, not skipped)."""
    records: list[tuple[int, dict[str, Any]]] = []
    for number, text in decode_records(io.BytesIO(raw), file):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            raise EarmarkError(f"invalid JSON ({exc.msg})", file=file, line=number) from None
        if not isinstance(record, dict):
            raise EarmarkError("expected a JSON object per line", file=file, line=number)
        records.append((number, record))
    return records


def read_prediction_objects(path: str | os.PathLike[str]) -> list[dict[str, JSONValue]]:
    """Every row of a predictions file, strictly: a torn last line is an error too, as is
    a line that is not a JSON object (for `verify`, which must re-score every row)."""
    p = Path(path)
    return [record for _, record in parse_prediction_objects(p.read_bytes(), str(p))]


def read_prediction_records(path: str | os.PathLike[str]) -> list[dict[str, JSONValue]]:
    """Every JSON object of a predictions file, in write order; [] when there is none.

    A last line that is not valid JSON is a torn write of a crashed run and is skipped;
    an invalid line before it is an `EarmarkError` at its line."""
    return [record for _, record in numbered_prediction_records(path)]


def numbered_prediction_records(path: str | os.PathLike[str]) -> list[tuple[int, Any]]:
    """`read_prediction_records` with each object's 1-based line number."""
    p = Path(path)
    rows: list[tuple[int, Any]] = []
    if not p.exists():
        return rows
    lines = [line for _, line in read_records(p)]
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rows.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            if number == len(lines):
                break
            raise EarmarkError(f"invalid JSON: {exc.msg}", file=str(p), line=number) from None
    return rows


class InvalidLineTally(Protocol):
    """Where `read_run_rows` counts the lines it had to skip (the store's repair report)."""

    invalid_lines: int


def read_run_rows(path: str | os.PathLike[str], tally: InvalidLineTally) -> Iterator[RunRow]:
    """Every complete run row (a JSON object with `arm` and `id`) in write order, for a
    resuming run: a line that is not one is counted in `tally.invalid_lines` and skipped,
    never fatal, since the row is simply recomputed. Bad UTF-8 is replaced, not refused,
    for the same reason. Rows stream: a resume never holds the file's text."""
    p = Path(path)
    if not p.exists():
        return
    # Split at "\n" only: a row is one line whatever U+2028 or "\r" its text holds.
    for _, line in read_records(p, errors="replace"):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            tally.invalid_lines += 1
            continue
        if isinstance(row, dict) and "arm" in row and "id" in row:
            yield cast("RunRow", row)
        else:
            tally.invalid_lines += 1


def read_prediction_rows(path: str | os.PathLike[str]) -> list[PredictionRow]:
    """`read_prediction_records` as typed rows (`earmark.results.PredictionRow`); a row the
    model refuses is an error naming the file and line."""
    from earmark.results import PredictionRow

    rows = []
    for number, record in numbered_prediction_records(path):
        try:
            rows.append(PredictionRow.from_dict(record))
        except EarmarkError as exc:
            if exc.file is None:
                exc.file = str(path)
            if exc.line is None:
                exc.line = number
            raise
    return rows


def torn_tail_bytes(path: str | os.PathLike[str]) -> int:
    """Bytes after the last newline: a row a crashed writer did not finish (0 when whole).

    Only the end of the file is read, however large it is."""
    p = Path(path)
    if not p.is_file():
        return 0
    size = p.stat().st_size
    with open(p, "rb") as handle:
        block = 1 << 16
        end = size
        while end > 0:
            start = max(0, end - block)
            handle.seek(start)
            chunk = handle.read(end - start)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                return size - (start + cut + 1)
            end = start
    return size
