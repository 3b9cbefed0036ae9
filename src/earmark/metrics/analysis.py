"""Error analysis over alignments: what is confused most, which clips are worst, and a
readable rendering of one alignment. Pure functions; the order of every list is fixed.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable
from typing import Literal

from earmark.metrics.alignment import AlignedOp, Alignment
from earmark.metrics.counts import ErrorCounts

__all__ = [
    "display_width",
    "render_alignment",
    "top_deletions",
    "top_insertions",
    "top_substitutions",
    "worst_utterances",
]

GAP = "*"
_MARK = {"equal": "", "substitute": "S", "delete": "D", "insert": "I"}
_COLOUR = {"equal": "green", "substitute": "yellow", "delete": "red", "insert": "blue"}


def top_substitutions(alignments: Iterable[Alignment], k: int) -> list[tuple[str, str, int]]:
    """The k most frequent (ref, hyp, count) substitutions; ties by ref, then hyp."""
    counter: Counter[tuple[str, str]] = Counter(
        (str(op.ref), str(op.hyp))
        for alignment in alignments
        for op in alignment.ops
        if op.kind == "substitute"
    )
    ranked = sorted(counter.items(), key=lambda item: (-item[1], item[0]))
    return [(ref, hyp, n) for (ref, hyp), n in ranked[: max(k, 0)]]


def _top_units(alignments: Iterable[Alignment], k: int, kind: str) -> list[tuple[str, int]]:
    counter: Counter[str] = Counter()
    for alignment in alignments:
        for op in alignment.ops:
            if op.kind == kind:
                counter[str(op.ref if kind == "delete" else op.hyp)] += 1
    return sorted(counter.items(), key=lambda item: (-item[1], item[0]))[: max(k, 0)]


def top_insertions(alignments: Iterable[Alignment], k: int) -> list[tuple[str, int]]:
    """The k most often inserted hypothesis units with counts; ties by unit."""
    return _top_units(alignments, k, "insert")


def top_deletions(alignments: Iterable[Alignment], k: int) -> list[tuple[str, int]]:
    """The k most often deleted reference units with counts; ties by unit."""
    return _top_units(alignments, k, "delete")


def worst_utterances(
    rows: Iterable[tuple[str, ErrorCounts]], k: int
) -> list[tuple[str, ErrorCounts]]:
    """The k utterances with most errors; ties by higher per-utterance rate, then id.

    Ranked by error count first because that is what they contribute to the micro rate.
    """
    ranked = sorted(rows, key=lambda row: (-row[1].errors, -row[1].utterance_rate(), row[0]))
    return ranked[: max(k, 0)]


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
