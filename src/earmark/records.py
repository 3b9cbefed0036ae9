"""Splitting line-based files into records at `\\n` only, the one rule every reader uses.

JSONL, CSV/TSV, Kaldi `text` and plain sentence files all end a record at a line feed,
and nowhere else. Python offers two splitters that break elsewhere: `str.splitlines()`
also breaks at U+2028, U+2029, U+0085, `\\x0b`, `\\x0c`, `\\x1c`-`\\x1e` and a lone `\\r`,
all of which may sit inside a valid JSON string or CSV field (earmark itself writes
U+2028 unescaped into `predictions.jsonl`); text-mode file iteration (universal
newlines) breaks at a lone `\\r`. Either turns one record into two. Here a record ends at
`\\n`; a `\\r` right before it is dropped (CRLF files read like LF files); a last line
without a newline is kept; a final `\\n` does not start an extra empty record.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from earmark.errors import EarmarkError

_BOM = "\ufeff"


def split_records(text: str) -> list[str]:
    """The lines of `text`, split at `\\n` only (CRLF tolerated).

    >>> split_records('{"t": "a\\u2028b"}\\r\\nlast')
    ['{"t": "a\\u2028b"}', 'last']
    >>> split_records("a\\n\\nb\\n")
    ['a', '', 'b']
    >>> split_records("")
    []
    """
    if not text:
        return []
    lines = text.split("\n")
    last = lines.pop()  # after the final "\n": "" or a line without a newline
    out = [line[:-1] if line.endswith("\r") else line for line in lines]
    if last:
        out.append(last)
    return out


def read_records(
    path: str | os.PathLike[str], *, errors: str = "strict"
) -> Iterator[tuple[int, str]]:
    """Stream (1-based line number, line) from a UTF-8 file, split at `\\n` only.

    The file is read line by line in binary mode (a UTF-8 multi-byte sequence never
    contains the byte `\\n`), so memory stays flat however large the file is. A leading
    byte-order mark is dropped. With `errors="strict"` a bad byte is an `EarmarkError`
    naming its line; other values are passed to `bytes.decode` (the run store uses
    "replace" and counts the damaged rows itself). Blank lines are yielded too: what a
    blank line means (skip it, or an empty sentence) is the format's business.
    """
    name = os.fspath(path)
    try:
        handle = open(name, "rb")  # noqa: SIM115 - closed in the finally below
    except FileNotFoundError:
        raise EarmarkError("file not found", file=name) from None
    except IsADirectoryError:
        raise EarmarkError("is a directory, expected a file", file=name) from None
    except OSError as exc:
        raise EarmarkError(f"cannot read file: {exc.strerror}", file=name) from None
    try:
        yield from decode_records(handle, name, errors=errors)
    finally:
        handle.close()


def decode_records(
    byte_lines: Iterable[bytes], name: str, *, errors: str = "strict"
) -> Iterator[tuple[int, str]]:
    """`read_records` over lines already split at `b"\\n"` (a binary file, `io.BytesIO`).

    For a caller that needs the file's bytes too (to hash exactly what it read).
    """
    for number, raw in enumerate(byte_lines, start=1):
        if raw.endswith(b"\n"):
            raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
        try:
            line = raw.decode("utf-8", errors=errors)
        except UnicodeDecodeError as exc:
            raise EarmarkError(
                f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})",
                file=name,
                line=number,
                hint="re-encode the file as UTF-8",
            ) from None
        if number == 1 and line.startswith(_BOM):
            line = line[1:]
        yield number, line
