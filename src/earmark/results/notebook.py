"""How a record shows itself in Jupyter and becomes a pandas DataFrame.

The typed records sit below the renderers in the layers, so they cannot call results.md's
or report.html's code; they lay their figures out as rows here, with the spelling those
pages share (`display.fmt_rate`), escape every cell, and leave pandas out of
`import earmark` (it is imported only when a frame is asked for).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING

from earmark.errors import EarmarkError
from earmark.markdown_cells import md_table, md_text

if TYPE_CHECKING:  # for the annotation only: pandas is imported in `data_frame`
    from typing import TypeAlias

    from pandas import DataFrame

    #: What `to_pandas()` returns.
    Frame: TypeAlias = DataFrame

Cell = str | int | float | bool | None


class ShowsAsTable:
    """A record that Jupyter shows as its one summary table (`_table`: title, header,
    rows), in Markdown or HTML, whichever the front end asks for."""

    def _table(self) -> tuple[str, list[str], list[list[Cell]]]:
        raise NotImplementedError

    def _repr_markdown_(self) -> str:
        return markdown_table(*self._table())

    def _repr_html_(self) -> str:
        return html_table(*self._table())


def markdown_table(title: str, header: Sequence[str], rows: Sequence[Sequence[Cell]]) -> str:
    """A titled table, escaped as results.md escapes (`markdown_cells.md_table`)."""
    return f"**{md_text(title)}**\n\n" + md_table(header, [[_text(c) for c in r] for r in rows])


def html_table(title: str, header: Sequence[str], rows: Sequence[Sequence[Cell]]) -> str:
    """The same table as HTML, every cell escaped (a transcript or arm name stays text)."""
    from html import escape

    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(_text(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return (
        f"<div><b>{escape(title)}</b><table><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table></div>"
    )


def data_frame(rows: Sequence[Mapping[str, Cell]], columns: Sequence[str]) -> Frame:
    """A DataFrame of `rows` (columns in this order); pandas is optional, imported here."""
    try:
        import pandas
    except ImportError:
        raise EarmarkError(
            "to_pandas() needs pandas, which earmark does not install",
            hint="pip install pandas",
        ) from None
    data = {}
    for name in columns:
        values = [r.get(name) for r in rows]
        try:
            data[name] = pandas.Series(values)
        except UnicodeEncodeError:  # a lone surrogate: Arrow strings refuse it, objects keep it
            data[name] = pandas.Series(values, dtype=object)
    return pandas.DataFrame(data, columns=list(columns))


def scalar_fields(record: object) -> dict[str, Cell]:
    """A record's plain fields (numbers, text, flags, nulls) as one frame row; nested
    records and intervals are left to their own rows or split by the caller."""
    row: dict[str, Cell] = {}
    for f in fields(record):  # type: ignore[arg-type]
        value = getattr(record, f.name)
        if value is None or isinstance(value, str | int | float | bool):
            row[f.name] = value
    return row


def _text(cell: Cell) -> str:
    return "—" if cell is None else str(cell)
