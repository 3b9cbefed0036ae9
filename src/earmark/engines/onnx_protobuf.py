"""What earmark reads from an ONNX file without the `onnx` package: its metadata and the
width of its first output.

sherpa-onnx ends the whole process (exit, not an exception) when a model lacks a metadata
key it needs or its shapes disagree with its tokens, so the sherpa-onnx backend checks
those first. Only the protobuf fields on the way are walked (ModelProto's metadata, field
14; its graph, field 7, for the output shape); anything else is skipped by its length.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def onnx_metadata(path: Path) -> dict[str, str] | None:
    """The `metadata_props` of an ONNX file, read from its protobuf without `onnx`.

    Only ModelProto's top-level fields are walked; the graph (most of the file) is skipped
    by its length. None when the file is not well-formed protobuf.
    """
    try:
        with open(path, "rb") as handle:
            found: dict[str, str] = {}
            for number, value in _fields(handle, path.stat().st_size):
                if number == 14 and isinstance(value, bytes):
                    entry = {
                        n: v.decode("utf-8", "replace")
                        for n, v in _fields_of(value)
                        if isinstance(v, bytes) and n in (1, 2)
                    }
                    found[entry.get(1, "")] = entry.get(2, "")
            return found
    except (OSError, ValueError):
        return None


def _varint(read: Any) -> int:
    result: int = 0
    shift = 0
    while True:
        byte = read(1)
        if not byte:
            raise ValueError("protobuf varint cut short")
        result |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            return result
        shift += 7
        if shift > 63:
            raise ValueError("protobuf varint too long")


def _fields(
    handle: Any, size: int, keep: frozenset[int] = frozenset({14})
) -> Iterator[tuple[int, int | bytes | None]]:
    """(field number, value) of each top-level field; length-delimited ones other than
    those in `keep` (metadata, field 14) are skipped unread and yielded as None."""
    while handle.tell() < size:
        key = _varint(handle.read)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ValueError("protobuf field number 0")
        if wire == 0:
            yield number, _varint(handle.read)
        elif wire == 1:
            handle.seek(8, 1)
            yield number, None
        elif wire == 5:
            handle.seek(4, 1)
            yield number, None
        elif wire == 2:
            length = _varint(handle.read)
            if handle.tell() + length > size:
                raise ValueError("protobuf field runs past the end of the file")
            if number in keep:
                yield number, handle.read(length)
            else:
                handle.seek(length, 1)
                yield number, None
        else:
            raise ValueError(f"protobuf wire type {wire} is not supported")


def _fields_of(data: bytes) -> Iterator[tuple[int, int | bytes | None]]:
    buffer = io.BytesIO(data)
    while buffer.tell() < len(data):
        key = _varint(buffer.read)
        number, wire = key >> 3, key & 7
        if wire == 0:
            yield number, _varint(buffer.read)
        elif wire == 2:
            length = _varint(buffer.read)
            yield number, buffer.read(length)
        else:
            raise ValueError(f"protobuf wire type {wire} in metadata entry")


def onnx_output_width(path: Path) -> int | None:
    """The last dimension of the graph's first output (e.g. a joiner's logits), or None when
    it is symbolic, absent or the file is not well-formed protobuf.

    ModelProto.graph (7) -> GraphProto.output (12, the first) -> ValueInfoProto.type (2)
    -> TypeProto.tensor_type (1) -> shape (2) -> dim (1, the last) -> dim_value (1).
    """
    try:
        with open(path, "rb") as handle:
            graph = next(
                (v for n, v in _fields(handle, path.stat().st_size, frozenset({7})) if n == 7),
                None,
            )
        if not isinstance(graph, bytes):
            return None
        value = _first(graph, 12)
        for number in (2, 1, 2):  # type, tensor_type, shape
            value = _first(value, number) if value is not None else None
        if value is None:
            return None
        dims = [v for n, v in _fields_of(value) if n == 1 and isinstance(v, bytes)]
        if not dims:
            return None
        width = _first(dims[-1], 1, want=int)
        return width if isinstance(width, int) else None
    except (OSError, ValueError):
        return None


def _first(data: bytes, number: int, want: type = bytes) -> Any:
    """The first field `number` of a message, if it has the wanted wire type."""
    for n, value in _fields_of(data):
        if n == number and isinstance(value, want):
            return value
    return None
