"""What NIST sclite's transcript formats (`trn`, `stm`, `ctm`) share: their names and
suffixes, `;;` comment lines, and times in seconds.

One module each reads them: `formats.trn` (`word word ... (utterance-id)`),
`formats.stm` (reference segments), `formats.ctm` (timed hypothesis words, assigned to
stm segments).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.records import record_blocks

#: The formats sclite reads, and the suffixes that name them.
SCLITE_FORMATS = ("trn", "stm", "ctm")
SCLITE_SUFFIXES = {".trn": "trn", ".stm": "stm", ".ctm": "ctm"}


def sclite_format(path: Path) -> str | None:
    """The sclite format a suffix names (`.trn`, `.stm`, `.ctm`), or None."""
    return SCLITE_SUFFIXES.get(path.suffix.lower())


def read_time(value: str, path: Path, line: int, name: str) -> float:
    """A field of seconds: finite and not negative, or an error naming the field."""
    try:
        t = float(value)
    except ValueError:
        raise EarmarkError(
            f"expected a time in seconds, got {value!r}", file=str(path), line=line, field=name
        ) from None
    if not math.isfinite(t) or t < 0:
        raise EarmarkError(
            f"expected a finite time >= 0, got {value!r}", file=str(path), line=line, field=name
        )
    return t


def content_lines(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line, whitespace-split fields) per line that is neither blank nor a `;;` comment,
    as the file is read (a block of lines at a time: `records.record_blocks`)."""
    for first, lines in record_blocks(path):
        for number, text in enumerate(lines, first):
            parts = text.split()
            if parts and not parts[0].startswith(";;"):
                yield number, parts
