"""sclite's stm references: `file channel speaker start end [<label>] words...` a line.

Lines starting `;;` are comments. A segment whose words are
`IGNORE_TIME_SEGMENT_IN_SCORING` is not scored, and hypothesis words inside it are
dropped (listed, never silent; `formats.ctm`). Markup is refused rather than scored as
words (use `--glm` rules for alternate spellings).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from sys import intern

from earmark.errors import EarmarkError
from earmark.formats.sclite import content_lines, read_time
from earmark.formats.sclite_markup import refuse_markup

IGNORE_SEGMENT = "IGNORE_TIME_SEGMENT_IN_SCORING"


@dataclass(frozen=True)
class StmSegment:
    line: int
    file: str
    channel: str
    speaker: str
    start: float
    end: float
    label: str | None
    words: tuple[str, ...]
    ignored: bool

    @property
    def id(self) -> str:
        """`speaker-file-channel-start-end`: unique per segment, speaker first (sclite's
        `rm` id convention), times to the centisecond as stm files write them."""
        return f"{self.speaker}-{self.file}-{self.channel}-{self.start:.2f}-{self.end:.2f}"


#: One stm segment read: (line, file, channel, speaker, start, end, label, text, ignored),
#: the text its words joined by single spaces.
StmLine = tuple[int, str, str, str, float, float, str | None, str, bool]


def stm_lines(path: Path) -> Iterator[StmLine]:
    """Every segment of an stm file as it is read, in file order (comments and blank
    lines skipped; a repeated segment is an error). File, channel and speaker names are
    interned: a file repeats them on every line."""
    seen: dict[tuple[str, str, float, float, str], int] = {}
    for number, parts in content_lines(path):
        if len(parts) < 5:
            raise EarmarkError(
                f"an stm line has at least 5 fields, found {len(parts)}",
                file=str(path),
                line=number,
                hint="expected `file channel speaker start end [<label>] words...`",
            )
        file, channel, speaker = intern(parts[0]), intern(parts[1]), intern(parts[2])
        start = read_time(parts[3], path, number, "start")
        end = read_time(parts[4], path, number, "end")
        if end < start:
            raise EarmarkError(
                f"segment ends ({end}) before it starts ({start})",
                file=str(path),
                line=number,
                field="end",
            )
        rest = parts[5:]
        label = None
        if rest and rest[0].startswith("<") and rest[0].endswith(">"):
            label, rest = rest[0], rest[1:]
        ignored = rest == [IGNORE_SEGMENT]
        text = "" if ignored else " ".join(rest)
        if "{" in text or "}" in text or "/" in text:  # else no word is markup
            refuse_markup(rest, path, number)
        key = (file, channel, start, end, speaker)
        if key in seen and not ignored:
            raise EarmarkError(
                f"duplicate segment (first on line {seen[key]})", file=str(path), line=number
            )
        seen[key] = number
        yield number, file, channel, speaker, start, end, label, text, ignored


def read_stm(path: Path) -> list[StmSegment]:
    """Every segment of an stm file, in file order (comments and blank lines skipped)."""
    out = [
        StmSegment(number, file, channel, speaker, start, end, label, tuple(text.split()), ignored)
        for number, file, channel, speaker, start, end, label, text, ignored in stm_lines(path)
    ]
    if not out:
        raise no_segments(path)
    return out


def no_segments(path: Path) -> EarmarkError:
    """An stm file without a single segment."""
    return EarmarkError("no records (the file has no stm segments)", file=str(path))
