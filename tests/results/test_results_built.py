"""`Record.built` makes the record its dataclass constructor makes, or refuses the names."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from earmark.results.metric import MetricResult

_FIELDS: dict[str, object] = {
    "value": 0.25,
    "ci": (0.125, 0.5),
    "substitutions": 1,
    "deletions": 0,
    "insertions": 1,
    "hits": 7,
    "ref_units": 8,
    "hyp_units": 9,
    "aggregate": "micro",
    "n_scored": 3,
    "median_per_utterance": 0.2,
    "median_per_utterance_n": 3,
    "key_order": ("value", "ci95", "hits"),
}


def test_built_is_the_constructed_record() -> None:
    made = MetricResult(**_FIELDS)  # type: ignore[arg-type]
    values = {f.name: getattr(made, f.name) for f in dataclasses.fields(MetricResult)}
    built = MetricResult.built(dict(values))
    assert built == made and repr(built) == repr(made)
    assert built.to_dict() == made.to_dict() and built.to_json() == made.to_json()
    assert built.key_order == made.key_order
    assert pickle.loads(pickle.dumps(built)) == made
    assert copy.deepcopy(built) == made
    assert dataclasses.replace(built, value=0.5).value == 0.5
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.value = 1.0  # type: ignore[misc]


@pytest.mark.parametrize("change", ["missing", "extra", "typo"])
def test_built_refuses_other_names(change: str) -> None:
    made = MetricResult(**_FIELDS)  # type: ignore[arg-type]
    values = {f.name: getattr(made, f.name) for f in dataclasses.fields(MetricResult)}
    if change == "missing":
        del values["ser"]
    elif change == "extra":
        values["sre"] = 0.0
    else:
        values["valeu"] = values.pop("value")
    with pytest.raises(TypeError, match="not its fields"):
        MetricResult.built(values)
