"""JSON lines read a block at a time give exactly the records, rows and errors of the
line-by-line reader.

Oracles: `records.json_objects(records.read_records(path))` (the careful reader: UTF-8
decode, then `json.loads` where orjson and json may disagree) for `json_blocks`, and the
record-by-record row builder (`combined._record_rows`) for the batch row builder. Blocks
are made tiny so every boundary (a CRLF split across two reads, a line longer than a
block, a BOM) is crossed.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import earmark.records as records
from earmark.errors import EarmarkError
from earmark.formats.combined import _record_rows, iter_combined
from earmark.formats.fields import DEFAULT_FIELDS
from earmark.formats.structured import structured_records
from earmark.records import MAX_RECORD_BYTES_ENV, json_blocks, json_objects, read_records

LINES = [
    b'{"id": "a", "reference": "x y", "hypothesis": "x"}',
    b'{"id": "b", "reference": "", "hypothesis": ""}',
    b'{"id": "c", "reference": "nul \\u0000 here", "hypothesis": "u2028 \xe2\x80\xa8 in"}',
    b'{"id": "d", "reference": "r", "hypothesis": null}',
    b'{"id": "e", "reference": "r"}',
    b"",
    b"   ",
    b"\xc2\xa0",
    b'{"id": "f", "slices": ["x"], "n": 18446744073709551616}',
    b'{"id": "g", "x": NaN, "y": 1e400, "z": 0.5}',
    b'{"a": 1, "a": 2}',
    b'  {"id": "h", "reference": "caf\xc3\xa9"}  ',
    b'{"id": "i", "reference": "' + b"long " * 40 + b'"}',
    b'{"id": "j", "reference": "a", "language": "ga", "clip": "c"}',
    b'{"id": "k", "reference": "a", "hypothesis": "b", "arm": "m"}',
]


def _file(tmp_path: Path, lines: list[bytes], newline: bytes, *, last: bool = True) -> Path:
    path = tmp_path / "f.jsonl"
    body = newline.join(lines) + (newline if last else b"")
    path.write_bytes(body)
    return path


def _flat(path: Path) -> list[tuple[int, dict[str, Any]]]:
    return [(n, obj) for start, objs in json_blocks(path) for n, obj in enumerate(objs, start)]


def _oracle(path: Path) -> list[tuple[int, dict[str, Any]]]:
    return list(json_objects(read_records(path), str(path)))


def _same(a: Any, b: Any) -> bool:
    # NaN != NaN: compare the JSON text of both sides (key order included)
    return json.dumps(a) == json.dumps(b)


@pytest.mark.parametrize("block", [1, 5, 17, 64, 1 << 18])
@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
@pytest.mark.parametrize("bom", [False, True])
def test_blocks_give_the_careful_readers_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int, newline: bytes, bom: bool
) -> None:
    monkeypatch.setattr(records, "_BLOCK_BYTES", block)
    rng = random.Random(block)
    for trial in range(6):
        lines = [rng.choice(LINES) for _ in range(rng.randint(1, 30))]
        if bom:
            lines[0] = b"\xef\xbb\xbf" + lines[0]
        path = _file(tmp_path, lines, newline, last=trial % 2 == 0)
        got, want = _flat(path), _oracle(path)
        assert [n for n, _ in got] == [n for n, _ in want]
        assert all(_same(a, b) for (_, a), (_, b) in zip(got, want, strict=True))


@pytest.mark.parametrize("block", [3, 16, 1 << 18])
@pytest.mark.parametrize(
    "bad",
    [
        b'{"a": 1',  # not JSON
        b"[1]",  # not an object
        b'{"a": "\xff"}',  # not UTF-8
        b'{"a": "' + b"x" * 64 + b'"}',  # over the record bound set below
        b'{"a": "' + b"x" * 500 + b"",  # over it, never ending
        b'\xef\xbb\xbf{"a": 1}',  # a BOM after line 1 is not dropped
        b'{"a": "\\ud800"}',  # a lone surrogate
        b'{"a": "x"}\r{"b": 1}',  # a lone CR inside a line
    ],
)
def test_errors_at_the_same_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int, bad: bytes
) -> None:
    monkeypatch.setattr(records, "_BLOCK_BYTES", block)
    monkeypatch.setenv(MAX_RECORD_BYTES_ENV, "40")
    path = _file(tmp_path, [b'{"a": "b"}', b"", bad, b'{"a": "c"}'], b"\n", last=bad[-1:] != b"")
    seen: list[int] = []
    with pytest.raises(EarmarkError) as fast:
        for start, objs in json_blocks(path):
            seen.extend(range(start, start + len(objs)))
    with pytest.raises(EarmarkError) as careful:
        _oracle(path)
    assert str(fast.value) == str(careful.value)
    assert fast.value.line == 3
    assert seen == [1]  # the records before the bad line were handed out first


def test_a_line_as_long_as_the_bound_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(records, "_BLOCK_BYTES", 7)
    monkeypatch.setenv(MAX_RECORD_BYTES_ENV, "40")
    line = b'{"a": "' + b"x" * 31 + b'"}'
    assert len(line) == 40
    path = _file(tmp_path, [line, line], b"\r\n")
    assert _flat(path) == _oracle(path) == [(1, {"a": "x" * 31}), (2, {"a": "x" * 31})]


def _record_by_record(path: Path, arm: str | None = None) -> list[Any]:
    recs = list(structured_records(path, "jsonl"))
    shaping = frozenset(("language", "clip", "slices", "repeat", "status"))
    arms: set[str] = set()
    out = []
    for line, record in recs:
        out.extend(
            row for _, row in _record_rows([record], line, path, DEFAULT_FIELDS, arm, arms, shaping)
        )
    return out


ROW_RECORDS: list[dict[str, Any]] = [
    {"id": "a", "reference": "x y", "hypothesis": "x"},
    {"id": "b", "reference": "", "hypothesis": ""},
    {"id": "c", "reference": "nul \x00 here", "hypothesis": "\u2028 \ud7ff \U0001f600"},
    {"id": "d", "reference": "r", "hypothesis": None},
    {"id": "e", "reference": "r"},
    {"id": "f", "reference": "r", "hypothesis": "h", "extra_field": {"deep": [[[1]]]}},
    {"id": "g", "reference": "r", "hypothesis": "h", "language": "ga"},
    {"id": "h", "reference": "r", "hypothesis": "h", "clip": "c1"},
    {"id": "i", "reference": "r", "hypothesis": "h", "slices": ["n", "m"]},
    {"id": "j", "reference": "r", "hypothesis": "h", "repeat": 2, "clip": "c2"},
    {"id": "k", "reference": "r", "status": "engine_exception:x"},
    {"id": "l", "reference": "r " * 3000, "hypothesis": "q " * 3000},
    {"id": "../../etc/passwd", "reference": "<script>alert(1)</script>", "hypothesis": "&"},
    {"id": "m", "reference": "r", "hypothesis": "h", "arm": "one"},
]


@pytest.mark.parametrize("block", [11, 300, 1 << 18])
def test_batch_rows_equal_the_record_by_record_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    monkeypatch.setattr(records, "_BLOCK_BYTES", block)
    rng = random.Random(block)
    for trial in range(8):
        # mostly plain records (the batch path), now and then one that is not
        chosen = [
            dict(rng.choice(ROW_RECORDS[:6] if trial % 2 else ROW_RECORDS)) for _ in range(60)
        ]
        for k, record in enumerate(chosen):
            record["id"] = f"{record['id']}-{k}"
        path = tmp_path / "p.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in chosen), "utf-8")
        want = _record_by_record(path)
        for check_ids in (True, False):
            got = list(iter_combined(path, "jsonl", DEFAULT_FIELDS, None, check_ids=check_ids))
            assert got == want
            assert [r.extra for r in got] == [r.extra for r in want]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"id": " ", "reference": "r"}, "empty id"),
        ({"id": 5, "reference": "r"}, "expected a string, got int"),
        ({"id": "z"}, "missing field"),
        ({"id": "z", "reference": "r", "hypothesis": 1.5}, "expected a string, got float"),
        ({"id": "a1", "reference": "r", "hypothesis": "dup"}, "duplicate utterance id 'a1'"),
    ],
)
def test_a_bad_record_in_a_plain_block_is_its_error(
    tmp_path: Path, bad: dict[str, Any], message: str
) -> None:
    rows = [{"id": f"a{k}", "reference": "r", "hypothesis": "h"} for k in range(50)]
    rows.insert(30, bad)
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    with pytest.raises(EarmarkError) as caught:
        list(iter_combined(path, "jsonl", DEFAULT_FIELDS, None))
    assert message in str(caught.value)
    assert caught.value.line == 31


def test_no_records_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_bytes(b"\n  \n")
    with pytest.raises(EarmarkError, match="no records"):
        list(iter_combined(path, "jsonl", DEFAULT_FIELDS, None))
