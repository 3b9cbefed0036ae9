"""Tables fitted to the terminal (rich), for every command that prints one.

Instead of letting rich squeeze every column until `14.04%` folds into `14.0` / `4%`,
`print_fitted` tries the full layout, then the CI on a second line under its figure, then
short headers without borders, then drops the least needed columns (saying which), and
finally prints one block per row. A number is never split across lines. Low in the layers
(no earmark import), so `compare` and `report` share it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Column:
    """A table column: its full header, the header used when space is short, and when it
    may be left out (0: never; columns with higher numbers go first)."""

    header: str
    short: str | None = None
    drop: int = 0
    numeric: bool = False
    #: Where a cell breaks onto a second line in the narrower layouts.
    breaks: tuple[str, ...] = (" [", " (")


def stack(text: str, breaks: Sequence[str] = (" [", " (")) -> str:
    """`14.04% [9.10, 17.50]` → two lines, figure over CI: the first space before each
    marker in `breaks` becomes a line break."""
    for marker in breaks:
        at = text.find(marker)
        if at > 0:
            text = text[:at] + "\n" + text[at + 1 :]
    return text


def _layouts(columns: Sequence[Column]) -> Iterator[tuple[list[int], str, bool]]:
    """(kept column indices, which cells stack — `none`, `numeric` or `all` —, compact)
    from the widest layout to the narrowest."""
    every = list(range(len(columns)))
    yield every, "none", False
    yield every, "numeric", False
    yield every, "all", False
    yield every, "all", True
    kept = list(every)
    for level in sorted({c.drop for c in columns if c.drop > 0}, reverse=True):
        kept = [i for i in kept if columns[i].drop != level]
        yield kept, "all", True


def _build(
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    kept: list[int],
    stacking: str,
    compact: bool,
    title: str | None,
) -> Any:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(
        title=title,
        box=None if compact else box.HEAVY_HEAD,
        show_edge=not compact,
        pad_edge=not compact,
        title_justify="left",
    )

    def stacked(col: Column) -> bool:
        return stacking == "all" or (stacking == "numeric" and col.numeric)

    for i in kept:
        col = columns[i]
        if compact and col.short:
            header = col.short
        else:
            header = stack(col.header, col.breaks) if stacked(col) else col.header
        table.add_column(
            Text(header),
            no_wrap=True,
            justify="right" if col.numeric else "left",
        )
    for row in rows:
        table.add_row(
            *(
                Text(stack(row[i], columns[i].breaks) if stacked(columns[i]) else row[i])
                for i in kept
            )
        )
    return table


def natural_width(table: Any) -> int:
    """The width `table` takes when nothing constrains it (its widest line)."""
    import io

    from rich.console import Console

    probe = Console(width=100_000, file=io.StringIO(), color_system=None, legacy_windows=False)
    with probe.capture() as capture:
        probe.print(table)
    return max((len(line.rstrip()) for line in capture.get().splitlines()), default=0)


def print_fitted(
    console: Any,
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    *,
    title: str,
    see: str = "results.md",
) -> None:
    """Print `rows` as the widest layout that fits `console.width` without wrapping a cell."""
    from rich.text import Text

    for kept, stacking, compact in _layouts(columns):
        if natural_width(_build(columns, rows, kept, stacking, compact, None)) <= console.width:
            console.print(_build(columns, rows, kept, stacking, compact, title))
            dropped = [columns[i].header for i in range(len(columns)) if i not in kept]
            if dropped:
                console.print(Text(f"(narrow terminal: {', '.join(dropped)} not shown; see {see})"))
            return
    # Nothing fits: one block per row, `header: value` lines (words wrap, numbers don't).
    console.print(Text(title, style="bold"))
    for row in rows:
        console.print(Text(" · ".join(row[i] for i in range(min(2, len(row)))), style="bold"))
        for col, cell in list(zip(columns, row, strict=True))[2:]:
            console.print(Text(f"  {col.header}: {cell}"))
