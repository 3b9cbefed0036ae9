"""`records.json_objects` reads through orjson but must give exactly what `json.loads` gives.

The oracle is the standard library: for every line below, the object (value, types, key
order) or the refusal must be the same as `json.loads` would give.
"""

from __future__ import annotations

import json
import math

import pytest

from earmark.errors import EarmarkError
from earmark.records import json_objects

AGREE = [
    '{"id": "a", "reference": "x y", "hypothesis": "x"}',
    '{"a": 1, "b": 2, "a": 3}',  # duplicate key: last value, first position
    '{"a": 18446744073709551615}',  # largest u64: exact in both
    '{"a": 18446744073709551616}',  # beyond 64 bits: orjson would give a float
    '{"a": 123456789012345678901234567890}',
    '{"a": 1e400}',  # json: inf; orjson refuses
    '{"a": NaN, "b": -Infinity}',
    '{"a": "\\ud800"}',  # lone surrogate: json accepts it
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
