"""Splitting line-based files into records at `\\n` only, the one rule every reader uses.

JSONL, CSV/TSV, Kaldi `text` and plain sentence files all end a record at a line feed,
and nowhere else. Python offers two splitters that break elsewhere: `str.splitlines()`
also breaks at U+2028, U+2029, U+0085, `\\x0b`, `\\x0c`, `\\x1c`-`\\x1e` and a lone `\\r`,
all of which may sit inside a valid JSON string or CSV field (earmark itself writes
U+2028 unescaped into `predictions.jsonl`); text-mode file iteration (universal
newlines) breaks at a lone `\\r`. Either turns one record into two. Here a record ends at
`\\n`; a `\\r` right before it is dropped (CRLF files read like LF files); a last line
without a newline is kept; a final `\\n` does not start an extra empty record.

Reading also cannot hang or blow up: only regular files are opened (a FIFO without a
writer, `/dev/urandom` or a directory is refused before any `open`), and one record may
hold at most `MAX_RECORD_BYTES` (1 MiB); the environment variable
`EARMARK_MAX_RECORD_BYTES` raises the bound for a corpus that really has longer lines.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain
from typing import Any, BinaryIO

from earmark.errors import EarmarkError

_BOM = "\ufeff"
_BOM_BYTES = _BOM.encode("utf-8")

#: The longest record (line, in bytes, without its newline) any reader accepts by default.
MAX_RECORD_BYTES = 1 << 20
#: Environment variable that raises (or lowers) `MAX_RECORD_BYTES` for one process.
MAX_RECORD_BYTES_ENV = "EARMARK_MAX_RECORD_BYTES"


def max_record_bytes() -> int:
    """The record-size bound in force: `EARMARK_MAX_RECORD_BYTES` if set, else 1 MiB."""
    value = os.environ.get(MAX_RECORD_BYTES_ENV, "").strip()
    if not value:
        return MAX_RECORD_BYTES
    try:
        bound = int(value)
    except ValueError:
        bound = 0
    if bound < 1:
        raise EarmarkError(
            f"{MAX_RECORD_BYTES_ENV}={value!r} is not a positive number of bytes",
            field=MAX_RECORD_BYTES_ENV,
        )
    return bound


_NOT_REGULAR = (
    (stat.S_ISDIR, "is a directory, expected a file"),
    (stat.S_ISFIFO, "is a FIFO (named pipe), not a regular file"),
    (stat.S_ISCHR, "is a character device, not a regular file"),
    (stat.S_ISBLK, "is a block device, not a regular file"),
    (stat.S_ISSOCK, "is a socket, not a regular file"),
)


def require_regular_file(path: str | os.PathLike[str]) -> None:
    """Refuse anything but a regular file, *before* it is opened.

    Opening a FIFO without a writer blocks forever and a device such as `/dev/urandom`
    never ends, so both must be refused by `stat`, not discovered by reading. A missing
    file passes: the caller's `open` reports it in its own words.
    """
    name = os.fspath(path)
    try:
        mode = os.stat(name).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise EarmarkError(
                "is a symbolic link loop (the links never reach a file)",
                file=name,
                hint="point the link at a real file",
            ) from None
        raise EarmarkError(f"cannot read file: {exc.strerror}", file=name) from None
    except ValueError:  # a NUL in the name
        raise EarmarkError("the file name contains a NUL character", file=repr(name)) from None
    if stat.S_ISREG(mode):
        return
    message = next((text for test, text in _NOT_REGULAR if test(mode)), "is not a regular file")
    raise EarmarkError(
        message, file=name, hint="earmark reads regular files only; copy the data into a file"
    )


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
    path: str | os.PathLike[str], *, errors: str = "strict", max_bytes: int | None = None
) -> Iterator[tuple[int, str]]:
    """Stream (1-based line number, line) from a UTF-8 file, split at `\\n` only.

    The file is read line by line in binary mode (a UTF-8 multi-byte sequence never
    contains the byte `\\n`), so memory stays flat however large the file is. A leading
    byte-order mark is dropped. With `errors="strict"` a bad byte is an `EarmarkError`
    naming its line; other values are passed to `bytes.decode` (the run store uses
    "replace" and counts the damaged rows itself). Blank lines are yielded too: what a
    blank line means (skip it, or an empty sentence) is the format's business.
    Only a regular file is opened; a record over `max_bytes` (default
    `max_record_bytes()`) is an `EarmarkError` naming its line.
    """
    name = os.fspath(path)
    limit = max_record_bytes() if max_bytes is None else max_bytes
    handle = _open_binary(name)
    try:
        # readline(limit) returns at most `limit` bytes: a 50 MB line is refused after
        # reading just over 1 MiB of it, not after holding all of it.
        lines = iter(lambda: handle.readline(limit + 2), b"")
        yield from decode_records(lines, name, errors=errors, max_bytes=limit)
    finally:
        handle.close()


#: The most bytes `record_blocks` reads at once (a block and its lines stay small beside
#: what a scorer holds: 64 KiB read as ~1,000 lines).
_LINE_BLOCK_BYTES = 1 << 16


def record_blocks(path: str | os.PathLike[str]) -> Iterator[tuple[int, list[str]]]:
    """`read_records`' lines a block at a time: (first line's number, lines), the same
    lines and errors, for a reader that takes whole blocks (trn, stm, ctm) instead of
    paying a generator step and a decode per line (~0.6 us of each of 200,000 lines).

    Each block is up to 64 KiB (or the record bound, if lower) cut after its last `\n`
    and decoded at once; only a block that might break a rule -- bad UTF-8, a first line
    as long as the bound -- is handed to `decode_records`, line by line, for its error.
    """
    name = os.fspath(path)
    limit = max_record_bytes()
    size = min(limit, _LINE_BLOCK_BYTES)
    handle = _open_binary(name)
    number = 1
    pending = b""
    try:
        while chunk := handle.read(size):
            data = pending + chunk if pending else chunk
            cut = data.rfind(b"\n") + 1
            if not cut:
                pending = data
                if len(pending) > limit + 1:  # over the bound even without a "\r"
                    next(decode_records([pending], name, max_bytes=limit, start=number))
                continue
            whole, pending = data[: cut - 1], data[cut:]
            # Only the first line can reach back into earlier reads: every other one
            # lies inside this chunk, shorter than `size`.
            try:
                end = whole.find(b"\n")
                if (len(whole) if end < 0 else end) > limit:
                    raise ValueError
                text = whole.decode("utf-8")
            except ValueError:  # UnicodeDecodeError too: the careful path names the line
                lines = [line for _, line in decode_records(_split_kept(whole), name, start=number)]
            else:
                if "\r" in text:
                    text = text.replace("\r\n", "\n").removesuffix("\r")
                if number == 1 and text.startswith(_BOM):
                    text = text[1:]
                lines = text.split("\n")
            yield number, lines
            number += len(lines)
        if pending:
            yield number, [line for _, line in decode_records([pending], name, start=number)]
    finally:
        handle.close()


def _split_kept(data: bytes) -> list[bytes]:
    """`data`'s lines (`data` ends before its last `\n`), each with its `\n`."""
    return [line + b"\n" for line in data.split(b"\n")]


def _open_binary(name: str) -> BinaryIO:
    """`name` opened for reading bytes, or the `EarmarkError` saying why not."""
    require_regular_file(name)
    try:
        return open(name, "rb")  # noqa: SIM115 - the caller closes it
    except FileNotFoundError:
        raise EarmarkError("file not found", file=name) from None
    except IsADirectoryError:
        raise EarmarkError("is a directory, expected a file", file=name) from None
    except OSError as exc:
        raise EarmarkError(f"cannot read file: {exc.strerror}", file=name) from None


#: Bytes `json_blocks` reads at a time: a few thousand typical records, parsed together.
_BLOCK_BYTES = 1 << 18


def json_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """`json_objects(read_records(path), path)`, the same objects and errors, faster
    (`json_blocks`, one record at a time)."""
    for start, objects in json_blocks(path):
        yield from enumerate(objects, start=start)


def json_blocks(path: str | os.PathLike[str]) -> Iterator[tuple[int, list[dict[str, object]]]]:
    """`json_lines`' objects a block of lines at a time: (first line number, objects of
    that line and the ones after it, one per line).

    A block of lines (`_BLOCK_BYTES`) goes to orjson in one comprehension and its values
    are type-checked in one C-level pass, instead of a few Python steps per line: ~0.3 s
    of a 100,000-line read. A block orjson refuses anywhere, or holding values that are
    not plain (see `json_objects`) -- a blank line, bad UTF-8, NaN, a huge integer, a
    float -- is read line by line (`_careful_lines`: the same objects, the same error at
    the same line, each record its own block). No more than a block and one record of
    at most `max_record_bytes()` is held: a longer line is refused once that many bytes
    of it are read.
    """
    import orjson

    name = os.fspath(path)
    limit = max_record_bytes()
    loads = orjson.loads
    plain: frozenset[type] = frozenset((str, int, bool, type(None)))
    handle = _open_binary(name)
    try:
        number, carry = 1, b""
        while True:
            data = handle.read(_BLOCK_BYTES)
            buffer = carry + data
            lines = buffer.split(b"\n") if data else [carry] if carry else []
            carry = lines.pop() if data else b""
            if number == 1 and lines and lines[0].startswith(_BOM_BYTES):
                lines[0] = lines[0][3:]
            if data and b"\r" in buffer:
                lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
            objects = _plain_objects(lines, limit, loads, plain)
            if objects is not None:
                yield number, objects
            else:
                yield from _careful_lines(lines, name, number, limit, plain)
            number += len(lines)
            if not data:
                return
            if len(carry) > limit + 1:  # over the bound whatever follows: refused here
                yield from _careful_lines([carry], name, number, limit, plain)
    finally:
        handle.close()


def _plain_objects(
    lines: list[bytes], limit: int, loads: Any, plain: frozenset[type]
) -> list[dict[str, object]] | None:
    """Every line's object, or None unless each line is one object of plain values that
    orjson reads within the bound (`json_blocks`)."""
    if not lines or max(map(len, lines)) > limit:
        return None
    try:
        objects = list(map(loads, lines))
    except ValueError:  # orjson.JSONDecodeError
        return None
    if set(map(type, objects)) != {dict} or not plain.issuperset(
        map(type, chain.from_iterable(map(dict.values, objects)))
    ):
        return None
    return objects


def _careful_lines(
    lines: list[bytes], name: str, start: int, limit: int, plain: frozenset[type]
) -> Iterator[tuple[int, list[dict[str, object]]]]:
    """(line, [object]) per record of `lines` (line `start` first), each line through
    orjson where it reads it plainly, else decoded as `read_records` would and handed to
    `json_objects`, which skips it or gives its object or its error."""
    import orjson

    fast_loads = orjson.loads
    fast_error = orjson.JSONDecodeError
    for number, raw in enumerate(lines, start=start):
        if len(raw) <= limit:
            try:
                obj = fast_loads(raw)
            except fast_error:
                pass
            else:
                if type(obj) is dict and (
                    plain.issuperset(map(type, obj.values())) or _plain_values(obj, plain)
                ):
                    yield number, [obj]
                    continue
        # The careful path for this one line, at its number: decode_records' checks
        # (length, UTF-8), then json_objects'.
        for at, obj in json_objects(
            decode_records([raw], name, max_bytes=limit, start=number), name
        ):
            yield at, [obj]


def decode_records(
    byte_lines: Iterable[bytes],
    name: str,
    *,
    errors: str = "strict",
    max_bytes: int | None = None,
    start: int = 1,
) -> Iterator[tuple[int, str]]:
    """`read_records` over lines already split at `b"\\n"` (a binary file, `io.BytesIO`).

    For a caller that needs the file's bytes too (to hash exactly what it read). A record
    longer than `max_bytes` (default: `max_record_bytes()`) is an `EarmarkError` at its line.
    `start` is the first line's number (`json_lines` decodes one line at a time).
    """
    limit = max_record_bytes() if max_bytes is None else max_bytes
    for number, raw in enumerate(byte_lines, start=start):
        if raw.endswith(b"\n"):
            raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
        if len(raw) > limit:
            raise EarmarkError(
                f"record longer than {limit} bytes",
                file=name,
                line=number,
                hint=f"a line this long is almost certainly not one record; "
                f"{MAX_RECORD_BYTES_ENV}=BYTES raises the bound",
            )
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


def json_objects(
    records: Iterable[tuple[int, str]], name: str
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank record of a JSON-lines file.

    Every reader of saved rows needs the same strictness: a line that is not JSON, or is
    JSON but not an object, is an `EarmarkError` at its line, never skipped. A number of
    thousands of digits or nesting deep enough to exhaust the recursion limit raise
    `ValueError`/`RecursionError` inside `json.loads`, not `JSONDecodeError`; they are
    caught here too so a hostile file gives the one-line error, not a traceback.
    `records` comes from `read_records` or `decode_records`; `name` is the file named in
    the error.
    """
    # orjson parses a typical record ~3x faster than `json.loads`, but it is not the same
    # parser: it refuses NaN/Infinity, 1e400 and lone surrogates (which `json` accepts) and
    # turns an integer beyond 64 bits into a float. So its result is taken only when every
    # top-level value is a str, int, bool or None, or a list of str (slices) -- the shapes
    # where the two agree exactly; anything else, or anything orjson refuses, goes to
    # `json.loads`, whose result or error is then the one reported. Same objects, same
    # messages; only faster.
    import orjson

    fast_loads = orjson.loads
    fast_error = orjson.JSONDecodeError
    plain: frozenset[type] = frozenset((str, int, bool, type(None)))
    for number, text in records:
        if not text.strip():
            continue
        try:
            obj = fast_loads(text)
        except fast_error:
            obj = None
        else:
            if type(obj) is dict and (
                plain.issuperset(map(type, obj.values())) or _plain_values(obj, plain)
            ):
                yield number, obj
                continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise EarmarkError(
                f"invalid JSON ({exc.msg} at column {exc.colno})", file=name, line=number
            ) from None
        except (ValueError, RecursionError) as exc:  # a 5000-digit number, deep nesting
            raise EarmarkError(
                f"invalid JSON ({type(exc).__name__})", file=name, line=number
            ) from None
        if not isinstance(obj, dict):
            raise EarmarkError("expected a JSON object per line", file=name, line=number)
        # orjson refuses a lone surrogate; `json` takes it, but no writer can encode it.
        refuse_surrogates(obj, name, number)
        yield number, obj


def surrogate_paths(value: object, where: str = "") -> Iterator[str]:
    """Where `value` holds a lone surrogate (in a string or a key), as `a.b[2]` paths.

    >>> list(surrogate_paths({"text": "a\\ud800", "segments": [[0, 1, "ok"], [1, 2, "\\udfff"]]}))
    ['text', 'segments[1][2]']
    """
    if isinstance(value, str):
        if not _is_unicode(value):
            yield where or "(value)"
    elif isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else key
            if not _is_unicode(key):
                yield f"{where}.(key)" if where else "(key)"
            yield from surrogate_paths(item, path)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from surrogate_paths(item, f"{where}[{index}]")


def refuse_surrogates(record: Mapping[str, object], file: str, line: int | None) -> None:
    """An `EarmarkError` at `file:line` naming the field when `record` holds text that is
    not Unicode (a reader's check: such text cannot be written back as UTF-8)."""
    first = next(surrogate_paths(record), None)
    if first is not None:
        raise EarmarkError(
            "text that is not Unicode (a lone surrogate escape such as \\ud800)",
            file=file,
            line=line,
            field=first,
            hint="re-export the file from text that is valid Unicode",
        )


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _plain_values(obj: dict[str, Any], plain: frozenset[type]) -> bool:
    """Every value a str, int, bool, None or a list of str: where orjson and json agree."""
    for value in obj.values():
        if type(value) in plain:
            continue
        if type(value) is list and all(type(item) is str for item in value):
            continue
        return False
    return True


def finite_json(value: Any, where: str = "") -> tuple[Any, list[str]]:
    """`value` with every NaN or infinite float replaced by None, and where they were.

    JSON has no NaN: `json.dumps` writes `NaN`, which strict readers (earmark's own
    manifest reader, `jq`, browsers) refuse. A writer calls this and records the list
    (e.g. as a `non_finite` note) so a replaced value is visible, not silently lost.

    >>> finite_json({"a": float("nan"), "b": [1.0, float("inf")]})
    ({'a': None, 'b': [1.0, None]}, ['a', 'b[1]'])
    """
    replaced: list[str] = []

    def walk(item: Any, path: str) -> Any:
        if isinstance(item, float) and not math.isfinite(item):
            replaced.append(path)
            return None
        if isinstance(item, dict):
            return {k: walk(v, f"{path}.{k}" if path else str(k)) for k, v in item.items()}
        if isinstance(item, (list, tuple)):
            return [walk(v, f"{path}[{i}]") for i, v in enumerate(item)]
        return item

    return walk(value, where), replaced
