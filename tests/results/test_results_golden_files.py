"""Every results, compare and decision file kept under tests/ (example runs, HTML and
decision goldens, compare goldens) reads into the typed model and writes back byte for
byte, with every key in a typed field (nothing left to `extra`)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from earmark.results import Comparison, Decision, PredictionRow, Record, Results, ViewResult

TESTS = Path(__file__).resolve().parents[1]
FILES: list[tuple[type[Record], Path]] = [
    *((Results, p) for p in sorted(TESTS.glob("**/results.json"))),
    *((Comparison, p) for p in sorted(TESTS.glob("**/compare.json"))),
    *((Decision, p) for p in sorted(TESTS.glob("report/data/decision-golden/*.json"))),
]
PREDICTIONS = sorted(TESTS.glob("**/predictions.jsonl"))


def untyped_keys(value: object, path: str = "") -> list[str]:
    """Paths of keys that landed in some record's `extra`."""
    if isinstance(value, Record):
        out = [f"{path}.{k}" for k in value.extra]
        for f in dataclasses.fields(value):
            if f.name not in ("extra", "key_order"):
                out += untyped_keys(getattr(value, f.name), f"{path}.{f.name}")
        return out
    if isinstance(value, ViewResult):
        return untyped_keys(value.metrics, path)
    if isinstance(value, dict):
        return [k for key, v in value.items() for k in untyped_keys(v, f"{path}.{key}")]
    if isinstance(value, tuple):
        return [k for i, v in enumerate(value) for k in untyped_keys(v, f"{path}[{i}]")]
    return []


def test_the_goldens_are_found() -> None:
    kinds = {cls for cls, _ in FILES}
    assert kinds == {Results, Comparison, Decision} and len(FILES) >= 20
    assert len(PREDICTIONS) >= 4


@pytest.mark.parametrize(
    ("cls", "path"), FILES, ids=lambda x: str(x.relative_to(TESTS)) if isinstance(x, Path) else ""
)
def test_golden_round_trips_and_is_fully_typed(cls: type[Record], path: Path) -> None:
    text = path.read_text("utf-8")
    record = cls.from_json(text)
    assert record.to_json() == text
    assert untyped_keys(record) == []


@pytest.mark.parametrize("path", PREDICTIONS, ids=lambda p: str(p.relative_to(TESTS)))
def test_golden_predictions_round_trip(path: Path) -> None:
    for line in path.read_text("utf-8").splitlines():
        data = json.loads(line)
        row = PredictionRow.from_line(line)
        assert row.to_dict() == data and list(row.to_dict()) == list(data)
