"""The fast decoder (no JSON paths, no deep copies) reads exactly what the checked one reads.

`Record.from_dict` first tries a decoder that builds no path and copies no immutable data,
and decodes again on the checked path (`_from_dict_checked`, which names the JSON path of
a bad value) only when the fast one refuses. These tests pin that the two agree on every
file kept under tests/ and on hostile variations of a row, that errors still name the
path, and that nothing read is shared with the caller's dict unless the caller asked.
How much faster the fast path is lives in `benchmarks/bench_prediction_rows.py`.
"""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.errors import EarmarkError
from earmark.results import PredictionRow, Results
from earmark.results.record import Record

TESTS = Path(__file__).resolve().parent.parent
PREDICTIONS = sorted(p for p in TESTS.rglob("predictions.jsonl") if p.stat().st_size < 5_000_000)
RESULTS = sorted(p for p in TESTS.rglob("results.json") if p.stat().st_size < 5_000_000)
EXAMPLE = TESTS / "report" / "data" / "example-run"


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _same(a: Record, b: Record) -> None:
    """Equal content, key order and extras, and the same JSON written back."""
    assert a == b
    assert a.key_order == b.key_order
    assert dict(a.extra) == dict(b.extra)
    assert a.to_dict() == b.to_dict()
    assert json.dumps(a.to_dict()) == json.dumps(b.to_dict())


def test_there_are_files_to_check() -> None:
    assert len(PREDICTIONS) >= 3 and len(RESULTS) >= 3


@pytest.mark.parametrize("path", PREDICTIONS, ids=lambda p: str(p.relative_to(TESTS)))
def test_every_checked_in_row_reads_the_same_on_both_paths(path: Path) -> None:
    rows = _rows(path)
    for data in rows:
        fast = PredictionRow.from_dict(data)
        _same(fast, PredictionRow._from_dict_checked(data, ""))
        assert fast.to_dict() == data  # and it round-trips
        line = json.dumps(data, ensure_ascii=False)
        _same(PredictionRow.from_line(line), fast)


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: str(p.relative_to(TESTS)))
def test_every_checked_in_results_file_reads_the_same_on_both_paths(path: Path) -> None:
    data = json.loads(path.read_text("utf-8"))
    if data.get("schema") != "earmark.results/1":
        pytest.skip("not a results file")
    fast = Results.from_dict(data)
    _same(fast, Results._from_dict_checked(data, ""))
    assert fast.to_dict() == data


def _base_row() -> dict[str, Any]:
    return _rows(EXAMPLE / "predictions.jsonl")[0]


#: Values of every JSON kind, including the ones the fast path refuses by exact type
#: (a bool where an int is wanted, a float where a string is).
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


def _outcome(read: Any) -> tuple[str, Any]:
    try:
        return "ok", read()
    except EarmarkError as exc:
        return "error", str(exc)


@settings(max_examples=300, deadline=None)
@given(
    where=st.sampled_from(
        [
            (),
            ("views",),
            ("views", "raw"),
            ("views", "raw", "wer"),
            ("views", "normalized", "cer"),
        ]
    ),
    key=st.sampled_from(
        [
            "id",
            "reference",
            "hypothesis",
            "repeat",
            "audio_seconds",
            "slices",
            "language_mismatch",
            "engine",
            "segments",
            "views",
            "substitutions",
            "hits",
            "null_reason",
            "wer",
            "unknown_key",
        ]
    ),
    value=JSON_VALUES,
    drop=st.booleans(),
)
def test_a_changed_row_reads_and_fails_alike_on_both_paths(
    where: tuple[str, ...], key: str, value: Any, drop: bool
) -> None:
    """Any value at any key (or the key removed): the same record, or the same error
    naming the same JSON path, whichever path reads it."""
    data = _base_row()
    target: Any = data
    for step in where:
        target = target[step]
    if drop:
        target.pop(key, None)
    else:
        target[key] = value
    fast = _outcome(lambda: PredictionRow.from_dict(copy.deepcopy(data)))
    checked = _outcome(lambda: PredictionRow._from_dict_checked(copy.deepcopy(data), ""))
    assert fast[0] == checked[0]
    if fast[0] == "ok":
        _same(fast[1], checked[1])
    else:
        assert fast[1] == checked[1]


def test_errors_still_name_the_json_path() -> None:
    data = _base_row()
    data["views"]["raw"]["wer"]["hits"] = "9"
    with pytest.raises(EarmarkError) as caught:
        PredictionRow.from_dict(data)
    assert caught.value.field == "views.raw.wer.hits"
    assert "expected an integer, found a string" in str(caught.value)
    with pytest.raises(EarmarkError) as caught:
        PredictionRow.from_line(json.dumps({"reference": "x"}), file="p.jsonl", number=7)
    assert (caught.value.field, caught.value.file, caught.value.line) == ("id", "p.jsonl", 7)


def test_a_record_owns_what_it_read_unless_the_caller_gave_it_away() -> None:
    data = _base_row()
    data["custom"] = {"speaker": ["s1"]}
    row = PredictionRow.from_dict(data)
    data["engine"]["segments"] = 99
    data["segments"][0][2] = "changed"
    data["custom"]["speaker"].append("s2")
    assert row.engine is not None and row.engine["segments"] == 1
    assert isinstance(row.segments, list) and row.segments[0][2] != "changed"
    assert row.extra["custom"] == {"speaker": ["s1"]}
    shared = PredictionRow.from_dict(data, copy=False)  # the caller parsed it and drops it
    assert shared.engine is data["engine"]


def test_the_shared_empty_extra_cannot_be_changed_and_copies_plainly() -> None:
    row = PredictionRow.from_dict(_base_row())
    counts = row.views["raw"].wer if row.views else None
    assert counts is not None and counts.extra == {}
    with pytest.raises(TypeError):
        counts.extra["x"] = 1  # type: ignore[index]
    again = pickle.loads(pickle.dumps(row))
    _same(again, row)
    _same(copy.deepcopy(row), row)
