"""Reading and writing the typed results from and to files: the only I/O of the package.

Reads are strict (the file must be whole, valid JSON of the right schema; errors name
the file, the line or the JSON path); writes are atomic (`earmark.outputs`), so a reader
never sees half a file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from earmark.errors import EarmarkError
from earmark.results.codec import Record
from earmark.results.comparison import Comparison
from earmark.results.decision import Decision
from earmark.results.predictions import PredictionRow
from earmark.results.results_file import Results

R = TypeVar("R", bound=Record)

#: The file a folder holds for each record type, when given the folder.
_FILE_IN_FOLDER: dict[type[Record], str] = {
    Results: "results.json",
    Comparison: "compare.json",
}


def read_text(path: str | os.PathLike[str]) -> str:
    """A whole UTF-8 file; a missing or empty one is an EarmarkError naming it."""
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except FileNotFoundError:
        raise EarmarkError("file not found", file=str(p)) from None
    if not text.strip():
        raise EarmarkError(
            "file is empty (a write was interrupted)",
            file=str(p),
            hint="rerun the command that wrote this folder",
        )
    return text


def read_record(cls: type[R], path: str | os.PathLike[str]) -> R:
    """`cls` read from `path` (a folder: its results.json or compare.json)."""
    p = Path(path)
    if p.is_dir() and cls in _FILE_IN_FOLDER:
        p = p / _FILE_IN_FOLDER[cls]
    return cls.from_json(read_text(p), file=str(p))


def write_record(record: Record, path: str | os.PathLike[str]) -> str:
    """Write `record.to_json()` atomically; returns the file's SHA-256."""
    from earmark.outputs import atomic_write_text

    return atomic_write_text(path, record.to_json())


def read_results(path: str | os.PathLike[str]) -> Results:
    return read_record(Results, path)


def read_comparison(path: str | os.PathLike[str]) -> Comparison:
    return read_record(Comparison, path)


def read_decision(path: str | os.PathLike[str]) -> Decision:
    return read_record(Decision, path)


def read_predictions(path: str | os.PathLike[str]) -> Iterator[PredictionRow]:
    """Each line of a predictions.jsonl, in order (one row in memory at a time); a bad
    line is an error naming its number. Blank lines are skipped."""
    p = Path(path)
    try:
        handle = open(p, encoding="utf-8")
    except FileNotFoundError:
        raise EarmarkError("file not found", file=str(p)) from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield PredictionRow.from_line(line, file=str(p), number=number)
