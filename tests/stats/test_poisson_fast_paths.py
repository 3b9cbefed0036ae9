"""`numpy-pcg64-poisson`'s shortcuts give exactly the numbers of its general rules.

The `sure` table must give the guide search's count for every double of a bucket (the
doubles at each bucket's edges included), the bit trick numpy's double-to-integer cast,
the packed products the integer products, and the draws as a whole the replicates that
the code before these shortcuts drew (pinned digests, the same seed and data).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import numpy as np
import pytest

from earmark.stats import poisson_resampling
from earmark.stats.poisson_resampling import poisson_resample_totals
from earmark.stats.resampling import _distinct_rows, _PackedTotals


def _bucket_edges(length: int) -> np.ndarray:
    """Doubles in [0, 1) at and beside every edge i / L: the first and last doubles of
    each bucket as `floor(u * L)` rounds them, and their neighbours."""
    edges = np.arange(length + 1) / length
    near = [edges]
    for direction in (0.0, 2.0):
        step = edges
        for _ in range(3):
            step = np.nextafter(step, direction)
            near.append(step)
    u = np.concatenate(near)
    return np.unique(u[(u >= 0.0) & (u < 1.0)])


def _doubles(length: int, cdf: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Bucket edges, the table's own cumulative probabilities and their neighbours, and
    uniform doubles."""
    around_cdf = [cdf, np.nextafter(cdf, 0.0), np.nextafter(cdf, 2.0)]
    u = np.concatenate([_bucket_edges(length), *around_cdf, rng.random(4_000)])
    return np.unique(u[(u >= 0.0) & (u < 1.0)])


@pytest.mark.parametrize(
    "means",
    [[0.0], [0.5, 3.0], [3.97, 47.5, 9.9], [250.0, 0.02], [9_900.0], [1.0, 1.0, 2.0]],
)
def test_sure_counts_equal_the_guide_search_for_every_double(means: list[float]) -> None:
    tables = poisson_resampling._PoissonTables(np.array(means), rows=3)
    rng = np.random.default_rng(len(means))
    width = len(means)
    for column, mean in enumerate(means):
        low, pmf = poisson_resampling._poisson_pmf(mean)
        cdf, _ = poisson_resampling._guided_cdf(pmf)
        length = int(tables.length[column])
        u = _doubles(length, cdf, rng)
        # Laid out as whole replicates, the column's doubles in its place.
        grid = rng.random((u.size, width))
        grid[:, column] = u
        fast = tables.counts_of(grid.reshape(-1)).reshape(u.size, width)[:, column]
        bucket = (u * tables.length[column]).astype(np.int64) + tables.guide_offset[column]
        general = tables.search(bucket, u) - tables.base[column]
        assert np.array_equal(fast, general)
        # And the rule the search implements: the first cell above u, from the guide's.
        guide_cell = tables.guide[bucket] - (tables.base[column] + low)
        expected = np.maximum(guide_cell, np.searchsorted(cdf, u, side="right")) + low
        assert np.array_equal(fast, expected)


def test_a_sure_entry_is_the_guide_cell_and_most_are_sure() -> None:
    tables = poisson_resampling._PoissonTables(np.array([0.5, 3.97, 47.5, 400.0]))
    sure = tables.sure >= 0
    assert sure.mean() > 0.8  # the shortcut is the common case
    tables_base = tables.guide - tables.sure
    assert np.unique(tables_base[sure]).size <= 4  # one base per table


@pytest.mark.parametrize("length", [1, 7, 16, 160, 4_000, 1 << 20])
def test_floor_index_is_numpys_cast(length: int) -> None:
    u = np.concatenate([_bucket_edges(min(length, 4_096)), np.random.default_rng(1).random(999)])
    x = u * float(length)
    expected = x.astype(np.int64)
    got = poisson_resampling._floor_index(x.copy()) - poisson_resampling._TWO_52_BITS
    assert np.array_equal(got, expected)


def _count_matrices() -> Iterator[tuple[np.ndarray, np.ndarray, int]]:
    rng = np.random.default_rng(5)
    for columns, largest in [(1, 9), (2, 300), (3, 5_000), (2, 2**30), (5, 1)]:
        values = rng.integers(0, largest + 1, (40, columns)).astype(np.float64)
        draws = 1_000
        counts = rng.multinomial(draws, np.full(40, 1 / 40), size=25)
        yield values, counts, draws
    values = np.zeros((6, 2))
    yield values, np.full((3, 6), 2), 12


@pytest.mark.parametrize("case", list(_count_matrices()))
def test_packed_totals_are_the_integer_products(case: tuple[np.ndarray, np.ndarray, int]) -> None:
    values, counts, draws = case
    packed = _PackedTotals.build(values, draws)
    assert packed is not None
    expected = (counts @ values.astype(np.int64)).astype(np.float64)
    assert np.array_equal(packed.totals(counts), expected)


@pytest.mark.parametrize(
    "values",
    [np.array([[1.5, 2.0]]), np.array([[-1.0, 2.0]]), np.array([[2.0**61, 1.0]])],
)
def test_values_that_cannot_be_packed_are_refused(values: np.ndarray) -> None:
    assert _PackedTotals.build(values, 4) is None


def _corpora() -> Iterator[tuple[str, np.ndarray, int]]:
    rng = np.random.default_rng(12)
    ref = rng.poisson(60, 20_000) + 1
    err = rng.binomial(ref, 0.1) + rng.poisson(1.0, 20_000)
    yield "cer-like", np.stack([err, ref], 1).astype(float), 1500
    w = rng.poisson(12, 5_000) + 1
    e_a, e_b = rng.binomial(w, 0.15), rng.binomial(w, 0.12)
    yield "paired", np.stack([e_a, e_b, w], 1).astype(float), 700
    yield "macro", np.stack([np.ones(3_000), rng.random(3_000)], 1), 600
    yield "small", np.array([[0, 3], [1, 3], [2, 5], [0, 0], [7, 9]], dtype=float), 1100
    huge = np.stack([rng.integers(0, 2**40, 300), rng.integers(0, 9, 300)], 1)
    yield "huge-values", huge.astype(float), 520


#: sha256 of the replicate totals (seed 20260926) as the draws before the shortcuts gave
#: them (earmark at b2bab6b): the shortcuts change no number.
PINNED = {
    "cer-like": "ea49c687d73f16d17f7801cec8d7844ae7f5deb10531cdceaae02f68b4c75a6b",
    "paired": "82844a059a30ea1b891cb093f9daf2373732a6b376e99ddb6a3f6ddd1b42ab84",
    "macro": "3744975deb086dd5aac54b49ead52b7f035b91468199e171507ce4eb9dd35264",
    "small": "041ef0e441e9eba94c6856936176fd81f8c9a0b18d8e0135ba4e4f92dbd150ab",
    "huge-values": "8f2b9284e839b1a2df51a0b9658616eacfdf4c9eccfbcacc65299b939ac0f35a",
}


@pytest.mark.parametrize("case", list(_corpora()), ids=lambda case: case[0])
def test_replicates_are_those_drawn_before_the_shortcuts(
    case: tuple[str, np.ndarray, int],
) -> None:
    name, values, resamples = case
    for workers in (1, 2):
        totals = poisson_resample_totals(values, resamples, 20260926, workers=workers)
        assert hashlib.sha256(totals.tobytes()).hexdigest() == PINNED[name]


def _fresh_tables(means: list[float]) -> dict[str, np.ndarray]:
    """Every array of `_PoissonTables(means)` with an empty table cache."""
    poisson_resampling._TABLES.clear()
    tables = poisson_resampling._PoissonTables(np.array(means), rows=3)
    names = ("cdf", "guide", "sure", "guide_offset", "length", "base", "lengths", "offsets")
    return {name: getattr(tables, name) for name in names}


def test_cached_tables_are_the_bytes_of_fresh_ones() -> None:
    means = [0.0, 0.5, 3.97, 47.5, 9_900.0, 3.97, 250.0]
    fresh = _fresh_tables(means)
    for warm in ([], means[2:5], means, [9_900.0, 0.5]):
        poisson_resampling._TABLES.clear()
        poisson_resampling._PoissonTables(np.array(warm or [1.0]))
        cached = poisson_resampling._PoissonTables(np.array(means), rows=3)
        for name, array in fresh.items():
            got = getattr(cached, name)
            assert got.dtype == array.dtype and got.tobytes() == array.tobytes(), name


def test_table_cache_keeps_its_budget_and_rebuilds_the_same() -> None:
    cache = poisson_resampling._TableCache(budget=200_000, most_cells=5_000)
    for mean in (9_900.0, 400.0, 3.0, 9_900.0, 0.5, 2_000.0, 9_000_000.0):
        table = cache.get(mean)
        again = poisson_resampling._Table.build(mean)
        for name in ("cdf", "guide", "sure"):
            assert getattr(table, name).tobytes() == getattr(again, name).tobytes()
        assert table.low == again.low and not table.cdf.flags.writeable
        assert cache.nbytes == sum(t.nbytes for t in cache.tables.values()) <= cache.budget
    assert 9_000_000.0 not in cache.tables  # over `most_cells`: built, not kept


def _value_sets() -> Iterator[np.ndarray]:
    rng = np.random.default_rng(3)
    yield rng.integers(0, 30, (5_000, 2)).astype(float)  # dense keys: counted
    yield rng.integers(0, 2**20, (300, 3)).astype(float)  # sparse keys: sorted
    yield np.array([[-0.0, 2.0], [0.0, 2.0], [1.0, 0.0], [0.0, 2.0]])  # -0.0: sorted
    yield rng.random((200, 2)).round(1)  # fractions: the general path


@pytest.mark.parametrize("values", list(_value_sets()))
def test_distinct_rows_are_numpys_unique_rows(values: np.ndarray) -> None:
    distinct, counts = _distinct_rows(values)
    expected, expected_counts = np.unique(values, axis=0, return_counts=True)
    assert distinct.tobytes() == values[_first_rows(values, expected)].tobytes()
    assert np.array_equal(distinct, expected) and np.array_equal(counts, expected_counts)
    assert counts.dtype == np.int64


def _first_rows(values: np.ndarray, distinct: np.ndarray) -> list[int]:
    """The first row equal to each distinct row (the bits `np.unique` keeps)."""
    return [int(np.flatnonzero((values == row).all(axis=1))[0]) for row in distinct]
