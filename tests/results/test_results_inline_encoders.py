"""A warm record's encoder writes its nested records itself (`Nested.inline`): a record of
the very class without extras by that class's encoder (or by the one for its key order),
anything else by `to_dict`. Pinned against every class cold (loops over field specs, each
nested record through `to_dict`), key order included, on the shapes producers build:
records made in code (no key order), records read back (their order), extras, subclasses
and scopes nesting scopes (a language's speakers and slices).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import pytest

from earmark.results import Results, ScopeResult
from earmark.results import record as record_module
from earmark.results.codec import INT, STR, json_key
from earmark.results.metric import MetricResult, ViewResult
from earmark.results.record import Nested

EXAMPLE = (
    Path(__file__).resolve().parent.parent / "report" / "data" / "example-run" / "results.json"
)


class _Scope(ScopeResult):
    pass


def _language() -> ScopeResult:
    results = Results.from_dict(json.loads(EXAMPLE.read_text("utf-8")))
    arm = next(iter(results.arms.values()))
    return next(iter(arm.by_language.values()))


def _variants(block: ScopeResult) -> dict[str, ScopeResult]:
    """One speaker block of each shape, built from a block read from a file."""
    view_name, view = next(iter(block.views.items()))
    metric_name, metric = next(iter(view.metrics.items()))
    built = replace(block, key_order=(), by_slice=None, by_speaker=None)
    unordered = replace(metric, key_order=())
    reordered = replace(metric, key_order=tuple(reversed(metric.key_order)))
    return {
        "as read": replace(block, by_slice=None, by_speaker=None),
        "built": built,
        "extra": replace(built, extra={"note": [1, {"x": 0.5}]}),
        "subclass": _Scope(**{f.name: getattr(built, f.name) for f in fields(built)}),
        "metric built": replace(built, views={view_name: ViewResult({metric_name: unordered})}),
        "metric reordered": replace(built, views={view_name: ViewResult({metric_name: reordered})}),
        "metric extra": replace(
            built,
            views={view_name: ViewResult({metric_name: replace(metric, extra={"z": None})})},
        ),
        "normalizer extra": replace(built, normalizer=replace(built.normalizer, extra={"v": 2})),
    }


def _all_cold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every record class written by loops over its field specs, as if never used."""
    monkeypatch.setattr(record_module, "WARM_AFTER", 10**9)
    stack = [record_module.Record]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        for attr in ("_earmark_encode", "_earmark_ordered", "_earmark_writes"):
            if attr in cls.__dict__:
                monkeypatch.delattr(cls, attr)


def _written(record: ScopeResult) -> str:
    return json.dumps(record.to_dict(), ensure_ascii=False)  # key order kept in the text


@pytest.mark.parametrize("ordered", [True, False])
def test_nested_records_are_written_as_to_dict_writes_them(
    ordered: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    block = _language()
    speakers = _variants(block)
    whole = replace(
        block,
        key_order=block.key_order if ordered else (),
        by_speaker=speakers,
        by_slice={"slice": replace(block, by_slice={"inner": speakers["built"]}, by_speaker=None)},
    )
    _all_cold(monkeypatch)
    cold = _written(whole)
    assert "_earmark_encode" not in ScopeResult.__dict__
    monkeypatch.setattr(record_module, "WARM_AFTER", 0)  # every class warm
    for _ in range(3):  # the first writes the encoders; later ones use them
        assert _written(whole) == cold
    assert "_earmark_encode" in ScopeResult.__dict__
    assert "_earmark_encode" in MetricResult.__dict__


@dataclass(frozen=True, kw_only=True)
class _Ping(record_module.Record):
    name: str = field(metadata=json_key(STR))
    pong: _Pong | None = field(default=None, metadata=json_key(Nested(lambda: _Pong)))


@dataclass(frozen=True, kw_only=True)
class _Pong(record_module.Record):
    n: int = field(metadata=json_key(INT))
    ping: _Ping | None = field(default=None, metadata=json_key(Nested(lambda: _Ping)))


def test_records_nesting_each_other_are_written_as_to_dict_writes_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chain = _Ping(name="a", pong=_Pong(n=1, ping=_Ping(name="b", pong=_Pong(n=2, extra={"x": 1}))))
    _all_cold(monkeypatch)
    cold = json.dumps(chain.to_dict())
    monkeypatch.setattr(record_module, "WARM_AFTER", 0)
    for _ in range(3):
        assert json.dumps(chain.to_dict()) == cold
    assert "_earmark_encode" in _Ping.__dict__ and "_earmark_encode" in _Pong.__dict__
