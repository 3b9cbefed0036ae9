"""The shortcuts of `scoring.metric` give the numbers of the long way, bit for bit.

A block under `SMALL` rows is figured in plain Python (no numpy: `--bootstrap 0` on a small
file, each speaker of a corpus of one-utterance speakers); its figures are held against
the numpy path on random rows, as floats compared with `==` and by type (an int where
numpy gave a float would change results.json). A block whose every resample is the value
itself (one row; for a micro rate one cluster, or rows all alike) takes [value, value]
without a draw: held against `bootstrap_ci` itself, under both generators.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.errors import EarmarkError
from earmark.scoring.metric import (
    SMALL,
    MetricSettings,
    _array_figures,
    _row_figures,
    metric_result,
)
from earmark.stats.bootstrap import bootstrap_ci
from earmark.stats.settings import GENERATORS

_ROW = st.tuples(*(st.integers(0, 40) for _ in range(4)))
_ROWS = st.lists(_ROW, min_size=1, max_size=SMALL - 1)


def _same(a: object, b: object) -> bool:
    """Equal and of the same type, element by element (0.0 is not 0)."""
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and (a == b or (a != a and b != b))


@settings(max_examples=500, deadline=None)
@given(_ROWS, st.sampled_from(["micro", "macro"]))
def test_python_figures_are_numpy_figures(rows: list[tuple[int, ...]], aggregate: str) -> None:
    arr = np.array(rows, dtype=np.int64).reshape(-1, 4)
    python = _row_figures([list(r) for r in rows], None, aggregate, Counter())
    # `_array_figures` takes any number of rows; below SMALL only the scorer skips it.
    array = _array_figures(arr, None, aggregate, Counter())
    assert python.totals == array.totals
    assert _same(python.median, array.median)
    assert _same(python.value, array.value)
    assert python.null_reason == array.null_reason
    assert _same(python.ser, array.ser)
    assert python.alike == array.alike or len(rows) == 1


@pytest.mark.parametrize(
    "rows",
    [
        [[0, 0, 0, 0]],  # empty reference and hypothesis
        [[0, 0, 3, 0]],  # output on no speech
        [[1, 0, 0, 2], [0, 0, 0, 0]],
        [[1, 2, 0, 3], [2, 1, 0, 3]],  # an even count: the mean of the two middle rates
        [[1, 0, 0, 2], [1, 0, 0, 5], [3, 0, 0, 0], [0, 1, 0, 6]],
    ],
)
@pytest.mark.parametrize("aggregate", ["micro", "macro"])
def test_edge_rows(rows: list[list[int]], aggregate: str) -> None:
    python = _row_figures(rows, None, aggregate, Counter())
    array = _array_figures(np.array(rows), None, aggregate, Counter())
    assert _same(tuple(python)[1:5], tuple(array)[1:5])


def test_median_of_an_even_count_is_the_mean_of_the_middle_two() -> None:
    rows = [[1, 0, 0, 2], [1, 0, 0, 3]]  # rates 1/3 and 1/4
    assert _row_figures(rows, None, "micro", Counter()).median == ((1 / 4 + 1 / 3) / 2, 2, None)
    assert float(np.median([1 / 3, 1 / 4])) == (1 / 4 + 1 / 3) / 2


def _drawn(rows: list[list[int]], clusters: list[int] | None, s: MetricSettings) -> object:
    arr = np.array(rows)
    r = bootstrap_ci(
        arr[:, 0] + arr[:, 1] + arr[:, 2],
        arr[:, 0] + arr[:, 1] + arr[:, 3],
        clusters=clusters,
        resamples=s.resamples,
        seed=s.seed,
        level=s.level,
        aggregate="macro" if s.aggregate == "macro" else "micro",
        generator=s.generator,
    )
    return None if r.low is None else (r.low, r.high)


_FIXED_CASES = [
    ([[1, 0, 2, 7]], None, "micro"),
    ([[1, 0, 2, 7]], None, "macro"),
    ([[0, 0, 4, 0]], None, "macro"),  # empty reference: the macro rate is 1.0
    ([[0, 0, 0, 0]], None, "macro"),
    ([[1, 2, 0, 7], [3, 0, 1, 2], [0, 0, 0, 9]], [5, 5, 5], "micro"),  # one cluster
    ([[1, 2, 0, 7]] * 12, None, "micro"),  # all alike (the array path)
    ([[1, 2, 0, 7]] * 3, [0, 1, 1], "micro"),  # all alike, clusters of unequal size
    ([[0, 0, 0, 5]] * 40, None, "micro"),
]


@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("resamples", [1, 3, 1000])
@pytest.mark.parametrize(("rows", "clusters", "aggregate"), _FIXED_CASES)
def test_fixed_intervals_are_the_drawn_ones(
    rows: list[list[int]],
    clusters: list[int] | None,
    aggregate: str,
    resamples: int,
    generator: str,
) -> None:
    s = MetricSettings(aggregate, resamples, 20260926, 0.95, False, generator)
    result = metric_result(np.array(rows), clusters, s)
    assert result.value is not None and result.ci == (result.value, result.value)
    assert result.ci == _drawn(rows, clusters, s)


@pytest.mark.parametrize("generator", GENERATORS)
def test_blocks_that_are_not_fixed_still_draw(generator: str) -> None:
    rows = [[1, 2, 0, 7], [3, 0, 1, 2], [0, 0, 0, 9]]
    # A macro mean of one cluster of several rows sums floats as the draw orders them:
    # drawn, not assumed.
    for aggregate, clusters in (("micro", [0, 1, 2]), ("macro", [0, 1, 2]), ("macro", [4] * 3)):
        s = MetricSettings(aggregate, 500, 7, 0.9, False, generator)
        result = metric_result(np.array(rows), clusters, s)
        assert result.ci is not None and result.ci == _drawn(rows, clusters, s)
        assert result.ci[0] < result.ci[1] or clusters == [4] * 3


@pytest.mark.parametrize(
    "bad",
    [
        MetricSettings("micro", 10, 1, 1.5),
        MetricSettings("micro", 10, -1, 0.95),
        MetricSettings("micro", True, 1, 0.95),
        MetricSettings("micro", 10, 1, 0.95, False, "mersenne"),
    ],
)
def test_a_fixed_interval_refuses_what_the_bootstrap_refuses(bad: MetricSettings) -> None:
    with pytest.raises(EarmarkError) as fixed:
        metric_result(np.array([[1, 0, 0, 3]]), None, bad)
    with pytest.raises(EarmarkError) as drawn:
        metric_result(np.array([[1, 0, 0, 3], [0, 1, 0, 4]]), None, bad)
    assert str(fixed.value) == str(drawn.value)


def test_rows_as_lists_need_no_numpy_array() -> None:
    s = MetricSettings("micro", 0, 1, 0.95)
    listed = metric_result([[1, 0, 0, 3], [0, 1, 1, 4]], None, s)
    assert listed == metric_result(np.array([[1, 0, 0, 3], [0, 1, 1, 4]]), None, s)
    # errors 1 + 2 over references 4 + 5; per-row rates 1/4 and 2/5
    assert listed.value == 3 / 9 and listed.median_per_utterance == (1 / 4 + 2 / 5) / 2
