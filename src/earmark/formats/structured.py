"""JSONL, CSV and TSV: files whose records name their fields, one record a line.

Records end at `\\n` only (`earmark.records`), a CSV field may be quoted across lines,
and a file with no records is an error: an empty file is never a result.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TypeVar, cast

from earmark.errors import EarmarkError
from earmark.formats.fields import Record
from earmark.records import json_blocks, json_lines, read_records

_T = TypeVar("_T")

#: Formats named by a file's suffix; any other suffix is plain text (Kaldi or lines).
SUFFIX_FORMATS = {
    ".jsonl": "jsonl",
    ".json": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
}


def suffix_format(path: Path) -> str | None:
    """The structured format a suffix names, or None for plain text."""
    return SUFFIX_FORMATS.get(path.suffix.lower())


def delimited_records(path: Path, delimiter: str) -> Iterator[tuple[int, dict[str, str]]]:
    """(line, header -> value) per row of a CSV or TSV file; blank rows are skipped."""
    import csv

    # csv pulls lines as it needs them (a quoted field may span lines) and counts them in
    # `line_num`; each line is cut at "\n" only, so U+2028 and friends stay in their field.
    lines = (line + "\n" for _, line in read_records(path))
    reader = csv.reader(lines, delimiter=delimiter)
    try:
        header = next(reader, None)
        if header is None:
            raise EarmarkError("empty file (expected a header row)", file=str(path), line=1)
        other = "\t" if delimiter == "," else ","
        if len(header) == 1 and other in header[0]:
            raise EarmarkError(
                f"the header has one column but contains {other!r}: wrong delimiter",
                file=str(path),
                line=1,
                hint="use --format tsv for tab-separated files, --format csv for commas",
            )
        for values in reader:
            if not any(v.strip() for v in values):
                continue
            if len(values) != len(header):
                raise EarmarkError(
                    f"expected {len(header)} columns, found {len(values)}",
                    file=str(path),
                    line=reader.line_num,
                    hint=f"is the delimiter {delimiter!r} right? (--format csv|tsv)",
                )
            yield reader.line_num, dict(zip(header, values, strict=True))
    except csv.Error as exc:
        raise EarmarkError(f"malformed CSV: {exc}", file=str(path), line=reader.line_num) from None


def _nonempty(records: Iterator[_T], path: Path, what: str) -> Iterator[_T]:
    """Pass records through; none at all is an error: an empty file is never a result.
    (The rest are handed on by `yield from`, without a Python step per record.)"""
    first = next(records, None)
    if first is None:
        raise EarmarkError(f"no records ({what})", file=str(path), hint="is this the right file?")
    yield first
    yield from records


def structured_records(path: Path, fmt: str) -> Iterator[tuple[int, Record]]:
    """(line, record) per record of a `jsonl`, `csv` or `tsv` file, as it is read."""
    if fmt == "jsonl":
        return _nonempty(json_lines(path), path, _NO_JSON_LINES)
    return _nonempty(_delimited(path, fmt), path, "nothing after the header row")


def structured_blocks(path: Path, fmt: str) -> Iterator[tuple[int, Sequence[Record]]]:
    """`structured_records` a block at a time: (first line, records of consecutive
    lines). JSON lines come in blocks (`records.json_blocks`), CSV and TSV rows one a
    block (a quoted field may span lines)."""
    if fmt == "jsonl":
        # orjson's (or json's) objects: JSON values throughout
        blocks = cast("Iterator[tuple[int, Sequence[Record]]]", json_blocks(path))
        return _nonempty(blocks, path, _NO_JSON_LINES)
    return _nonempty(
        ((line, [record]) for line, record in _delimited(path, fmt)),
        path,
        "nothing after the header row",
    )


_NO_JSON_LINES = "the file has no JSON lines"


def _delimited(path: Path, fmt: str) -> Iterator[tuple[int, dict[str, str]]]:
    """The CSV or TSV records of `path`; any other format is a one-line error."""
    if fmt == "csv":
        return delimited_records(path, ",")
    if fmt == "tsv":
        return delimited_records(path, "\t")
    raise EarmarkError(
        f"unknown format {fmt!r}", file=str(path), hint="jsonl, csv, tsv, kaldi or lines"
    )
