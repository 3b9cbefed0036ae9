"""Reading JSON-lines manifests (NeMo, lhotse), plain or gzip-compressed, with line numbers."""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from earmark.errors import EarmarkError
from earmark.formats.fields import column_list
from earmark.records import decode_records, require_regular_file


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; any bad line is an error there."""
    require_regular_file(path)
    try:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
    except (OSError, EOFError) as exc:
        raise EarmarkError(f"cannot read file: {exc}", file=str(path)) from exc
    for number, text in decode_records(io.BytesIO(data), str(path)):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise EarmarkError(
                f"not valid JSON: {exc.msg} (column {exc.colno})", file=str(path), line=number
            ) from exc
        except (ValueError, RecursionError) as exc:  # a 5000-digit number, deep nesting
            raise EarmarkError(
                f"not valid JSON: {type(exc).__name__}", file=str(path), line=number
            ) from None
        if not isinstance(obj, dict):
            raise EarmarkError("expected a JSON object per line", file=str(path), line=number)
        yield number, obj


def require(
    obj: Mapping[str, object],
    key: str,
    path: Path,
    line: int,
    kind: type | tuple[type, ...],
    *,
    hint: str | None = None,
) -> Any:
    """obj[key], which must exist and be of `kind`; otherwise an error naming the field
    (and, when it is absent, the fields the row does have)."""
    if key not in obj:
        raise EarmarkError(
            f"required field missing; fields found: {column_list(list(obj))}",
            file=str(path),
            line=line,
            field=key,
            hint=hint,
        )
    if obj[key] is None:
        raise EarmarkError("required field missing", file=str(path), line=line, field=key)
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise EarmarkError(
            f"wrong type {type(value).__name__}", file=str(path), line=line, field=key
        )
    return value
