"""A block of one row (each speaker of a corpus of one-utterance speakers) takes its own
path in `scoring.metric`: its record is the general path's, field for field and by type
(0.0 is not 0), key order included, under every aggregate, bootstrap setting and
generator, with rows left out or not."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.errors import EarmarkError
from earmark.results.metric import MetricResult
from earmark.scoring import metric
from earmark.scoring.metric import MetricSettings, metric_result
from earmark.stats.settings import GENERATORS

_ROW = st.tuples(*(st.integers(0, 60) for _ in range(4)))
_SETTINGS = st.builds(
    MetricSettings,
    aggregate=st.sampled_from(["micro", "macro"]),
    resamples=st.sampled_from([0, 1, 200]),
    seed=st.integers(0, 5),
    level=st.sampled_from([0.9, 0.95]),
    wip=st.booleans(),
    generator=st.sampled_from(GENERATORS),
)
_REASONS = st.sampled_from([Counter(), Counter({"no_hypothesis": 2}), Counter({"b": 1, "a": 3})])


def _same(a: object, b: object) -> bool:
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and (a == b or (a != a and b != b))


def _general(
    row: tuple[int, ...], s: MetricSettings, reasons: Counter[str], n_rows: int
) -> MetricResult:
    return metric._block_result(np.array([row], dtype=np.int64), None, s, reasons, n_rows)


@settings(max_examples=600, deadline=None)
@given(_ROW, _SETTINGS, _REASONS, st.booleans())
def test_one_row_record_is_the_general_paths(
    row: tuple[int, ...], s: MetricSettings, reasons: Counter[str], as_list: bool
) -> None:
    n_rows = 1 + sum(reasons.values())
    counts = [list(row)] if as_list else np.array([row], dtype=np.int64)
    fast = metric_result(counts, np.array([7]), s, null_reasons=reasons, n_rows=n_rows)
    general = _general(row, s, reasons, n_rows)
    assert _same(vars(fast), vars(general))
    assert _same(fast.to_dict(), general.to_dict())


@pytest.mark.parametrize("row", [(0, 0, 0, 0), (0, 0, 3, 0), (2, 1, 0, 0), (0, 0, 0, 9)])
@pytest.mark.parametrize("aggregate", ["micro", "macro"])
def test_edge_rows(row: tuple[int, ...], aggregate: str) -> None:
    for resamples in (0, 50):
        s = MetricSettings(aggregate, resamples, 1, 0.95, True)
        fast = metric_result(np.array([row]), None, s)
        assert _same(vars(fast), vars(_general(row, s, Counter(), 1)))


def test_bad_settings_are_refused_on_one_row_too() -> None:
    with pytest.raises(EarmarkError):
        metric_result(np.array([[1, 0, 0, 3]]), None, MetricSettings("micro", 10, 1, 1.5))
    with pytest.raises(EarmarkError):
        metric_result(np.array([[1, 0, 0, 3]]), None, MetricSettings("micro", 10, -1, 0.9))
