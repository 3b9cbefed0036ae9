"""Reading the tab-separated files corpora ship (FLEURS, Common Voice) with exact error sites.

Both publishers write plain tab-separated lines without quoting (a sentence may contain a
`"`), so lines are split on tabs, never parsed as CSV. Each line is decoded on its own so
a bad byte is reported with its line number instead of failing the whole file.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.formats.fields import column_list
from earmark.records import read_records


def numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Non-blank lines with their 1-based numbers, decoded one by one (BOM dropped).

    Lines end at `\\n` only (`earmark.records`), so a U+2028 in a sentence stays in it.
    """
    for number, text in read_records(path):
        if text.strip():
            yield number, text


def read_headerless_tsv(
    path: Path, columns: Sequence[str], *, min_columns: int | None = None
) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line number, row) for a TSV without a header, naming columns by position.

    A line with fewer than `min_columns` fields (default: all) is an error naming the
    first missing column.
    """
    needed = len(columns) if min_columns is None else min_columns
    for number, text in numbered_lines(path):
        fields = text.split("\t")
        if len(fields) < needed:
            raise EarmarkError(
                f"expected {needed} tab-separated fields, found {len(fields)}",
                file=str(path),
                line=number,
                field=columns[len(fields)],
            )
        yield number, dict(zip(columns, fields, strict=False))


def read_header_tsv(
    path: Path, required: Sequence[str], hints: Mapping[str, str] | None = None
) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line number, row) for a TSV whose first line names the columns.

    Columns in `required` must be in the header (a missing one is named with the columns
    found and its entry in `hints`); other columns are passed through, and a short line
    leaves its missing trailing fields empty (Common Voice varies by release).
    """
    lines = numbered_lines(path)
    try:
        _, header_text = next(lines)
    except StopIteration:
        raise EarmarkError("file is empty; expected a header line", file=str(path)) from None
    header = [name.strip() for name in header_text.split("\t")]
    for name in required:
        if name not in header:
            raise EarmarkError(
                f"required column missing from the header (found: {column_list(header)})",
                file=str(path),
                line=1,
                field=name,
                hint=(hints or {}).get(name),
            )
    for number, text in lines:
        fields = text.split("\t")
        if len(fields) > len(header):
            raise EarmarkError(
                f"{len(fields)} fields but the header names {len(header)}",
                file=str(path),
                line=number,
            )
        fields += [""] * (len(header) - len(fields))
        yield number, dict(zip(header, fields, strict=True))
