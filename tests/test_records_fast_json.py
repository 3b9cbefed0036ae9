"""`records.json_objects` reads through orjson but must give exactly what `json.loads` gives.

The oracle is the standard library: for every line below, the object (value, types, key
order) or the refusal must be the same as `json.loads` would give.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from earmark.errors import EarmarkError
from earmark.records import MAX_RECORD_BYTES_ENV, json_lines, json_objects, read_records

AGREE = [
    '{"id": "a", "reference": "x y", "hypothesis": "x"}',
    '{"a": 1, "b": 2, "a": 3}',  # duplicate key: last value, first position
    '{"a": 18446744073709551615}',  # largest u64: exact in both
    '{"a": 18446744073709551616}',  # beyond 64 bits: orjson would give a float
    '{"a": 123456789012345678901234567890}',
    '{"a": 1e400}',  # json: inf; orjson refuses
    '{"a": NaN, "b": -Infinity}',
    '{"a": 0.1, "b": [1, {"c": 2.5e-3}], "d": null, "e": true}',
    '{"a": -0.0, "b": -0}',
    '  {"a": "caf\\u00e9 \\"q\\""}  ',
    '{"id": "u", "slices": ["noisy", "x"], "n": 3}',  # list of str: orjson's result kept
    '{"slices": ["a", 1e400]}',  # list with a non-str: back to json
    '{"slices": ["a", 18446744073709551616]}',
    '{"a": [], "b": {}}',
]


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and repr(a) == repr(b))
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)  # type: ignore[index]
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))  # type: ignore[arg-type]
    return a == b


@pytest.mark.parametrize("line", AGREE)
def test_same_object_as_json_loads(line: str) -> None:
    [(number, obj)] = list(json_objects([(7, line)], "f.jsonl"))
    assert number == 7
    assert _same(obj, json.loads(line))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"a": 1', "invalid JSON (Expecting ',' delimiter at column 8)"),
        ("[1, 2]", "expected a JSON object per line"),
        ('"text"', "expected a JSON object per line"),
        ('{"a": "x\ty"}', "invalid JSON (Invalid control character at at column 9)"),
        ('{"a": ' + "9" * 5000 + "}", "invalid JSON (ValueError)"),
        # json accepts a lone surrogate, but no writer can encode it (issue 24, item 1)
        ('{"a": "\\ud800"}', "text that is not Unicode"),
        ('{"a": {"b": ["x", "\\udfff"]}}', "text that is not Unicode"),
    ],
)
def test_refusals_unchanged(line: str, message: str) -> None:
    with pytest.raises(EarmarkError) as caught:
        list(json_objects([(3, line)], "f.jsonl"))
    assert message in str(caught.value)
    assert caught.value.line == 3


def test_blank_lines_skipped() -> None:
    got = list(json_objects([(1, ""), (2, "  "), (3, '{"a": "b"}')], "f.jsonl"))
    assert got == [(3, {"a": "b"})]


# `json_lines(path)`: the file-level fast path, oracle `json_objects(read_records(path))`.

FILE_LINES = [
    b'\xef\xbb\xbf{"id": "bom", "reference": "a"}',  # a BOM on line 1 is dropped
    b"",
    b"   ",
    b"\xc2\xa0",  # NBSP only: blank to str.strip(), so skipped
    b'{"id": "u", "slices": ["x"], "n": 18446744073709551616}',
    b'{"id": "v", "x": NaN, "y": 1e400}',
    b'{"a": 1, "a": 2}\r',
    b'{"a": "caf\xc3\xa9"}',
    b'{"a": 0.5}',
]


def _write(tmp_path: Path, lines: list[bytes], newline: bytes = b"\n") -> Path:
    path = tmp_path / "f.jsonl"
    path.write_bytes(newline.join(lines) + newline)
    return path


def _oracle(path: Path) -> list[tuple[int, dict[str, Any]]]:
    return list(json_objects(read_records(path), str(path)))


@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
def test_json_lines_same_as_careful_reader(tmp_path: Path, newline: bytes) -> None:
    path = _write(tmp_path, FILE_LINES, newline)
    got = list(json_lines(path))
    want = _oracle(path)
    assert [n for n, _ in got] == [n for n, _ in want] == [1, 5, 6, 7, 8, 9]
    assert all(_same(a, b) for (_, a), (_, b) in zip(got, want, strict=True))


@pytest.mark.parametrize(
    "bad",
    [
        b'{"a": 1',  # not JSON
        b"[1]",  # not an object
        b'{"a": "\xff"}',  # not UTF-8
        b'{"a": "' + b"x" * 64 + b'"}',  # over the record bound set below
        b'\xef\xbb\xbf{"a": 1}',  # a BOM after line 1 is not dropped
    ],
)
def test_json_lines_errors_at_the_same_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: bytes
) -> None:
    monkeypatch.setenv(MAX_RECORD_BYTES_ENV, "40")
    path = _write(tmp_path, [b'{"a": "b"}', b"", bad, b'{"a": "c"}'])
    with pytest.raises(EarmarkError) as fast:
        list(json_lines(path))
    with pytest.raises(EarmarkError) as careful:
        _oracle(path)
    assert str(fast.value) == str(careful.value)
    assert fast.value.line == 3
