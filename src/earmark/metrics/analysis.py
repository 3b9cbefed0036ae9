"""Error analysis over alignments: what is confused most, which clips are worst, and a
readable rendering of one alignment. Pure functions; the order of every list is fixed.
"""

from __future__ import annotations

import heapq
import unicodedata
from collections import Counter
from collections.abc import Iterable
from itertools import chain
from typing import Any, Literal

from earmark.metrics.alignment import AlignedOp, Alignment, EditTally
from earmark.metrics.counts import ErrorCounts

__all__ = [
    "display_width",
    "ranked_deletions",
    "ranked_insertions",
    "ranked_substitutions",
    "render_alignment",
    "top_deletions",
    "top_insertions",
    "top_substitutions",
    "worst_utterances",
]

GAP = "*"
_STR_ONLY = frozenset((str,))
_MARK = {"equal": "", "substitute": "S", "delete": "D", "insert": "I"}
_COLOUR = {"equal": "green", "substitute": "yellow", "delete": "red", "insert": "blue"}


def _tally(alignments: Iterable[Alignment]) -> EditTally:
    tally = EditTally()
    for alignment in alignments:
        tally.add_alignment(alignment)
    return tally


def _ranked(counter: Counter[Any], k: int) -> list[tuple[Any, int]]:
    """The first k of `sorted(counter.items(), key=(-count, key))` without sorting every
    entry, nor a key function per entry: the k-th largest count from the counts alone,
    every entry above it ranked, and the smallest keys among those tied at it (keys are
    distinct, so the order is total and equal to the full sort's)."""
    if k <= 0 or not counter:
        return []
    kth = heapq.nlargest(k, counter.values())[-1]
    above = sorted(
        ((key, n) for key, n in counter.items() if n > kth), key=lambda item: (-item[1], item[0])
    )
    tied = heapq.nsmallest(k - len(above), [key for key, n in counter.items() if n == kth])
    return [*above, *((key, kth) for key in tied)]


def ranked_substitutions(tally: EditTally, k: int) -> list[tuple[str, str, int]]:
    """The k most frequent (ref, hyp, count) substitutions of a tally; ties by ref, then hyp."""
    counter: Counter[tuple[str, str]]
    if _STR_ONLY.issuperset(map(type, chain.from_iterable(tally.substitutions))):
        counter = tally.substitutions  # type: ignore[assignment]
    else:
        counter = Counter()
        for (ref, hyp), n in tally.substitutions.items():
            counter[(str(ref), str(hyp))] += n
    return [(ref, hyp, n) for (ref, hyp), n in _ranked(counter, k)]


def ranked_insertions(tally: EditTally, k: int) -> list[tuple[str, int]]:
    """The k most often inserted hypothesis units of a tally with counts; ties by unit."""
    return _ranked_units(tally.insertions, k)


def ranked_deletions(tally: EditTally, k: int) -> list[tuple[str, int]]:
    """The k most often deleted reference units of a tally with counts; ties by unit."""
    return _ranked_units(tally.deletions, k)


def _ranked_units(units: Counter[Any], k: int) -> list[tuple[str, int]]:
    if _STR_ONLY.issuperset(map(type, units)):
        return _ranked(units, k)
    counter: Counter[str] = Counter()
    for unit, n in units.items():
        counter[str(unit)] += n
    return _ranked(counter, k)


def top_substitutions(alignments: Iterable[Alignment], k: int) -> list[tuple[str, str, int]]:
    """The k most frequent (ref, hyp, count) substitutions; ties by ref, then hyp."""
    return ranked_substitutions(_tally(alignments), k)


def top_insertions(alignments: Iterable[Alignment], k: int) -> list[tuple[str, int]]:
    """The k most often inserted hypothesis units with counts; ties by unit."""
    return ranked_insertions(_tally(alignments), k)


def top_deletions(alignments: Iterable[Alignment], k: int) -> list[tuple[str, int]]:
    """The k most often deleted reference units with counts; ties by unit."""
    return ranked_deletions(_tally(alignments), k)


def worst_utterances(
    rows: Iterable[tuple[str, ErrorCounts]], k: int
) -> list[tuple[str, ErrorCounts]]:
    """The k utterances with most errors; ties by higher per-utterance rate, then id.

    Ranked by error count first because that is what they contribute to the micro rate.
    """
    return heapq.nsmallest(
        max(k, 0), rows, key=lambda row: (-row[1].errors, -row[1].utterance_rate(), row[0])
    )


def display_width(text: str) -> int:
    """Terminal columns `text` takes: wide/full-width characters 2, combining marks 0."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def _cells(op: AlignedOp) -> tuple[str, str, str]:
    ref = GAP if op.ref is None else str(op.ref)
    hyp = GAP if op.hyp is None else str(op.hyp)
    return ref, hyp, _MARK[op.kind]


def render_alignment(alignment: Alignment, style: Literal["plain", "rich"] = "plain") -> str:
    """Three lines, REF / HYP / edit marks, one column per aligned unit.

    Gaps are `*`; marks are `S`, `D`, `I` (blank for a match). Columns are padded by
    display width, so CJK text stays aligned in a terminal. `style="rich"` returns rich
    console markup (green match, yellow substitution, red deletion, blue insertion).

    >>> from earmark.metrics.alignment import align
    >>> print(render_alignment(align("the cat sat".split(), "the bat sat down".split())))
    REF: the cat sat *
    HYP: the bat sat down
             S       I
    """
    if style not in ("plain", "rich"):
        raise ValueError(f"style must be 'plain' or 'rich', not {style!r}")
    if style == "rich":
        from rich.markup import escape
    lines: list[list[str]] = [["REF:"], ["HYP:"], ["    "]]
    for op in alignment.ops:
        cells = _cells(op)
        width = max(display_width(cell) for cell in cells)
        for line, cell in zip(lines, cells, strict=True):
            padded = cell + " " * (width - display_width(cell))
            if style == "rich" and cell:
                colour = _COLOUR[op.kind]
                padded = f"[{colour}]{escape(cell)}[/{colour}]" + padded[len(cell) :]
            line.append(padded)
    return "\n".join(" ".join(line).rstrip() for line in lines)
