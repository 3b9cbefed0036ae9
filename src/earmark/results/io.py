"""Reading and writing the files of typed results: the only I/O of the package.

Reads are strict (the file must be whole: errors name it); writes are atomic
(`earmark.outputs`), so a reader never sees half a file. Nothing here knows a record type:
each record reads itself through these (`Record.from_path`, `read_predictions`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from earmark.errors import EarmarkError


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


def write_text(path: str | os.PathLike[str], text: str) -> str:
    """Write `text` atomically; returns the file's SHA-256."""
    from earmark.outputs import atomic_write_text

    return atomic_write_text(path, text)


def numbered_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, str]]:
    """Each non-blank line of a UTF-8 file with its 1-based number, one at a time."""
    p = Path(path)
    try:
        handle = open(p, encoding="utf-8")
    except FileNotFoundError:
        raise EarmarkError("file not found", file=str(p)) from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield number, line
