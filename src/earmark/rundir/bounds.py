"""What one row of `predictions.jsonl` may hold: the bound and the encoding its writers and
readers share, so a writer never writes a row its reader refuses.

Every reader of the file splits it with `earmark.records` and refuses a line longer than
`max_record_bytes()` (1 MiB by default). The run store writes a clip's row before it is
scored, and scoring then adds the normalised texts of every view (a reference and a
hypothesis per view), so a stored row may take only `1 / STORE_SHARE` of the bound: with
at most `STORE_SHARE - 1` views the scored row still fits. A row over that share is not
written as it came: the clip fails with `hypothesis_too_long`, the engine's output is
dropped, and its length, UTF-8 size and SHA-256 (and its first characters) are kept in
`oversize`. Text that is not Unicode (a lone surrogate, which JSON's `"\\ud800"` escape
can carry) cannot be written as UTF-8 at all: the clip fails with `invalid_text` and
`detail` names the fields. Failing the clip rather than truncating the text keeps the
figures honest: a truncated hypothesis scored as the answer would understate its
insertions without any figure saying so, while a failed clip counts as all deletions
under its reason code, as every engine failure does.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence

from earmark.errors import EarmarkError
from earmark.records import MAX_RECORD_BYTES_ENV, max_record_bytes, surrogate_paths

#: A stored row may take one part in this many of the record bound; scoring's views the rest.
STORE_SHARE = 8
#: The reason codes of a row the store could not write as the engine gave it.
TOO_LONG = "hypothesis_too_long"
INVALID_TEXT = "invalid_text"
#: Row fields an engine fills (`arm_loop.prediction_row`): what a failed row drops.
ENGINE_FIELDS = ("hypothesis", "segments", "words", "stream", "engine", "language_used")
#: A row as the store writes it (a `RunRow`; its values are JSON).
Row = Mapping[str, object]
_SURROGATE = re.compile("[\ud800-\udfff]")
#: Characters of an over-long hypothesis kept in the row to show what it was.
HEAD_CHARS = 200


def store_row_bytes() -> int:
    """The longest row the run store writes: its share of the bound every reader applies."""
    return max_record_bytes() // STORE_SHARE


def encode_row(row: Row) -> str:
    """The store's one encoding of a row: keys sorted, UTF-8 as is, no NaN."""
    return json.dumps(row, ensure_ascii=False, sort_keys=True, allow_nan=False)


def fit_store_row(row: Row) -> bytes:
    """`row` as the bytes of one line (newline included) that every reader accepts.

    A row with text that is not Unicode becomes an `invalid_text` failure, one over
    `store_row_bytes()` a `hypothesis_too_long` failure (see the module's docstring)."""
    try:
        data = encode_row(row).encode("utf-8")
    except UnicodeEncodeError:
        return _line(_invalid_text(row))
    if len(data) > store_row_bytes():
        return _line(_too_long(row, len(data)))
    return data + b"\n"


def refuse_long_rows(lines: Sequence[bytes]) -> None:
    """Refuse, before they are written, scored rows (each line ending in its newline) that
    a reader would refuse: what makes one that long is its reference, for the store
    already bounded the engine's part. One `max` over a block's lengths: nothing per row."""
    bound = max_record_bytes()
    if not lines or max(map(len, lines)) <= bound + 1:
        return
    line = next(line for line in lines if len(line) > bound + 1)
    row = json.loads(line)
    raise EarmarkError(
        f"utterance {str(row.get('id'))[:80]!r}: its scored row would be {len(line) - 1} "
        f"bytes, over the {bound} every reader of predictions.jsonl accepts",
        hint=f"a reference or hypothesis this long is almost certainly not one utterance; "
        f"{MAX_RECORD_BYTES_ENV}=BYTES raises the bound for the writer and every reader",
    )


def _failed(row: Row, code: str) -> dict[str, object]:
    """`row` with the engine's output dropped, under reason code `code`."""
    out = {key: value for key, value in row.items() if key not in ENGINE_FIELDS}
    out["hypothesis"] = None
    out["status"] = code
    return out


def _invalid_text(row: Row) -> Row:
    paths = list(surrogate_paths(row))
    out = _failed(row, INVALID_TEXT)
    shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    out["detail"] = (
        f"the engine's answer holds text that is not Unicode (a lone surrogate) in {shown}; "
        f"the clip was {row.get('status')!s}"
    )
    if next(surrogate_paths(out), None) is not None:  # not from the engine: replace, keep
        return {str(_replaced(k)): _replaced(v) for k, v in out.items()}
    return out


def _replaced(value: object) -> object:
    """`value` with every lone surrogate replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {str(_replaced(k)): _replaced(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replaced(item) for item in value]
    return value


def _too_long(row: Row, size: int) -> Row:
    out = _failed(row, TOO_LONG)
    oversize: dict[str, object] = {
        "row_bytes": size,
        "bound_bytes": store_row_bytes(),
        "status": row.get("status"),
    }
    hypothesis = row.get("hypothesis")
    if isinstance(hypothesis, str):
        data = hypothesis.encode("utf-8")
        oversize.update(
            hypothesis_chars=len(hypothesis),
            hypothesis_utf8_bytes=len(data),
            hypothesis_sha256=hashlib.sha256(data).hexdigest(),
            hypothesis_head=hypothesis[:HEAD_CHARS],
        )
    out["oversize"] = oversize
    out["detail"] = (
        f"the row would be {size} bytes, over the {store_row_bytes()} a stored row may take "
        f"({MAX_RECORD_BYTES_ENV} / {STORE_SHARE}); the engine's output is not kept"
    )
    return out


def _line(row: Row) -> bytes:
    return encode_row(row).encode("utf-8") + b"\n"
