"""The `numpy-pcg64-poisson` generator: the same cluster bootstrap, drawn several times faster.

`numpy-pcg64` (`earmark.stats.resampling`) draws each group's count from a chain of
conditional binomials, ~100 ns a draw (numpy redoes a binomial's set-up whenever its `n`
changes, and in the chain it always does), and draws every cluster of a group smaller
than 32 one index at a time. A corpus of character counts has thousands of distinct
(errors, ref_units) pairs, so that is most of a CER interval's cost. Here every group's
count is an independent Poisson variate, read from a table in a few nanoseconds, and an
exact correction turns the Poisson counts into the multinomial. The law of the replicates
is the same; the numbers for a seed are not, so results drawn this way name the generator.

The algorithm (its constants are part of it: a change changes the numbers for a seed):

1. Group clusters by their total vector (`numpy-pcg64`'s order). Groups of at least
   `MIN_GROUP` clusters are *categories*; all other clusters form the *tail* (in the same
   order), which counts as one more column, of size `n_tail`, whose count is a number of
   tail draws.
2. Blocks of `BLOCK_REPLICATES` replicates; block `b` draws from numpy's PCG64 seeded
   with `SeedSequence(seed, spawn_key=(b,))`, as `numpy-pcg64` does.
3. `lam = max(0, 1 - Z / sqrt(n))`. Each column's count is `Poisson(lam * m)` (m its
   size), drawn by inversion from a table of that law's cumulative probabilities over
   the support where all but less than 1e-20 of its mass lies (`_poisson_pmf`): one
   `Generator.random` double `u` per count; the count is the first cell whose cumulative
   probability exceeds `u`, searched from the cell a guide table of L entries (`GUIDE`
   per cell) names for `floor(u * L)` (the guide only saves search steps: the count is
   the same whatever its size; tables are built once per process for each exact mean and
   reused, the same bytes as fresh ones). A block is drawn in passes of
   `rows = max(1, PASS_ELEMENTS // columns)` replicates (so memory stays bounded however
   many groups there are), each pass making steps 3 to 5 for its replicates: the doubles
   of every column of every replicate (row-major); replicates whose counts sum to more
   than `n` are drawn again, in order, in the same way, until none does.
4. Each replicate's shortfall `n - sum` (about `Z * sqrt(n)`) is drawn as that many
   indices uniform in `[0, n)` over the clusters laid out category by category and then
   the tail (`numpy-pcg64`'s 32-bit Lemire mapping, `CHUNK` at a time, replicate after
   replicate); each index adds one to the count of the column it falls in.
5. The pass's tail draws are then made and summed exactly as `numpy-pcg64` makes them.

Why it is exact: independent counts `Poisson(lam * m_j)` per group and a
`Poisson(lam * n_tail)` number of uniform tail draws are together a Poisson number `t` of
independent uniform draws among the `n` clusters; given `t <= n` they are `t` such draws
whatever `t` is (so drawing again when `t > n` keeps the law), and `n - t` more uniform
draws make them `n`: the draw counts are Multinomial(n, 1/n, ..., 1/n). The tables are
exact up to floating point (as numpy's own samplers are) and the support they leave out
holds less than 1e-20 of each law.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from earmark.errors import EarmarkError
from earmark.stats.resampling import (
    BLOCK_REPLICATES,
    CHUNK,
    FloatMatrix,
    _distinct_rows,
    _IndexDraw,
    _PackedTotals,
    _TailTable,
    run_blocks,
)

#: The name results record for this generator.
GENERATOR = "numpy-pcg64-poisson"
# A group this large costs one table draw (~15 ns) instead of `m` tail draws (~4 ns
# each). Part of the algorithm.
MIN_GROUP = 4
# The Poisson means are lam = 1 - Z / sqrt(n) times the group sizes: about Z * sqrt(n)
# draws a replicate are left to the uniform correction, and a replicate is drawn again
# with probability about P(normal > Z) (2.3%). Part of the algorithm.
Z = 2.0
# Table draws made per pass (rows x columns): bounds the pass's arrays (~1 MB each).
PASS_ELEMENTS = 1 << 17
# Each table covers the mean +- SPREAD standard deviations (+- 12 more counts), where all
# but < 1e-20 of a Poisson law's mass lies.
SPREAD = 12.0
# Guide entries per table cell: most searches end at the guide's cell or the next.
GUIDE = 4
# Bytes of tables kept per process for reuse, and the most cells a kept table has (not
# part of the algorithm: a cached table is the same bytes as a fresh one). Group sizes up
# to ~450 recur across a comparison's scopes and arms; larger ones mostly do not, and at
# 12 arms x 100k kept would push the small ones out (3.5 times the misses).
TABLE_CACHE_BYTES = 40 << 20
TABLE_CACHE_CELLS = 512


def poisson_resample_totals(
    values: FloatMatrix, resamples: int, seed: int, *, workers: int | None = None
) -> FloatMatrix:
    """`resample_totals` drawn by this generator: (resamples x C) column totals of
    bootstrap samples of the rows of `values` (n_clusters x C)."""
    n, width = values.shape
    if n == 0:
        raise EarmarkError("cannot bootstrap an empty set of rows", field="errors")
    if n == 1:
        # The one cluster is every draw: no streams are needed.
        return np.repeat(values + 0.0, resamples, axis=0)
    plan = _PoissonPlan(values)
    work = (plan.n_tail + 3 * len(plan.sizes) + int(Z * math.sqrt(n))) * resamples
    return run_blocks(plan.block_totals, width, resamples, seed, work, workers)


class _PoissonTables:
    """Inversion tables of Poisson laws with guide tables, one per distinct mean (from
    `_TABLES`), concatenated: column j's counts are the cells of its table (`cdf`) and its
    guide (`guide`, one entry per cell plus one) starts the search."""

    def __init__(self, means: NDArray[np.float64], rows: int = 1) -> None:
        distinct, which = np.unique(means, return_inverse=True)
        tables = [_TABLES.get(mean) for mean in distinct.tolist()]
        sizes = np.array([table.cdf.size for table in tables], dtype=np.int64)
        starts = np.cumsum(sizes) - sizes
        guide_sizes = GUIDE * sizes + 1
        guide_starts = np.cumsum(guide_sizes) - guide_sizes
        self.cdf = np.concatenate([table.cdf for table in tables])
        # Each guide names cells of its own table: shifted to where that table starts.
        self.guide = np.concatenate([table.guide for table in tables])
        self.guide += np.repeat(starts, guide_sizes)
        self.sure = np.concatenate([table.sure for table in tables])
        inverse = which.reshape(-1)
        self.guide_offset = guide_starts[inverse]
        self.length = (GUIDE * sizes).astype(np.float64)[inverse]
        # A cell's count is its place in its table plus the table's lowest count.
        lows = np.array([table.low for table in tables], dtype=np.int64)
        self.base = (starts - lows)[inverse]
        # Each column's L and guide offset repeated for `rows` replicates: numpy's
        # broadcast along rows costs several times a flat pass.
        self.lengths, self.offsets = self._tiled(rows)

    def _tiled(self, rows: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """L and the guide offset (less `_TWO_52_BITS`, see `_floor_index`) of every count
        of `rows` replicates, row-major."""
        return np.tile(self.length, rows), np.tile(self.guide_offset - _TWO_52_BITS, rows)

    def draw(self, rows: int, rng: np.random.Generator) -> NDArray[np.int64]:
        """(rows x columns) counts: per count one double `u` (row-major, as
        `rng.random((rows, columns))` draws them), inverted by `counts_of`."""
        width = self.length.size
        counts: NDArray[np.int64] = self.counts_of(rng.random(rows * width))
        return counts.reshape(rows, width)

    def counts_of(self, u: NDArray[np.float64]) -> NDArray[np.int64]:
        """The count of each double of `u` (whole replicates, row-major): the first cell
        whose cumulative probability exceeds it, searched from its guide bucket's cell
        (`search`), or read from `sure` where that cell is the answer for every double of
        the bucket."""
        size, width = u.size, self.length.size
        lengths, offsets = self.lengths, self.offsets
        if size > lengths.size:
            lengths, offsets = self._tiled(size // width)
        bucket = _floor_index(np.multiply(u, lengths[:size]))
        bucket += offsets[:size]
        counts = self.sure.take(bucket)
        unsure = np.flatnonzero(counts < 0)
        if unsure.size:
            cells = self.search(bucket.take(unsure), u.take(unsure))
            counts[unsure] = cells - self.base.take(unsure % width)
        return counts

    def search(self, bucket: NDArray[np.int64], u: NDArray[np.float64]) -> NDArray[np.int64]:
        """The cell of each double `u` in its guide bucket: the first cell from the guide's
        whose cumulative probability exceeds `u` (the general rule `sure` shortens)."""
        cell = self.guide.take(bucket)
        # Most counts are the guide's cell or the next one.
        moving = np.flatnonzero(self.cdf.take(cell) <= u)
        cell[moving] += 1
        moving = moving[self.cdf[cell[moving]] <= u[moving]]
        if moving.size:
            cell[moving] = self._bisect(cell[moving] + 1, self.guide[bucket[moving] + 1], u[moving])
        return cell

    def _bisect(
        self, low: NDArray[np.int64], high: NDArray[np.int64], u: NDArray[np.float64]
    ) -> NDArray[np.int64]:
        """The first cell in [low, high] whose cumulative probability exceeds u (that of
        `high`, the next bucket's guide cell, does): the rare long searches, in a table's
        far tails, where many cells share one bucket."""
        while True:
            open_ = np.flatnonzero(low < high)
            if not open_.size:
                return low
            mid = (low[open_] + high[open_]) // 2
            right = self.cdf[mid] <= u[open_]
            low[open_[right]] = mid[right] + 1
            high[open_[~right]] = mid[~right]


def _poisson_pmf(mean: float) -> tuple[int, NDArray[np.float64]]:
    """The lowest count of the support (mean +- SPREAD sd, +- 12) and the probabilities of
    Poisson(mean) on it (log p(k) = log p(k-1) + log(mean / k) from `math.lgamma`'s p(low))."""
    if mean <= 0.0:
        return 0, np.ones(1)
    spread = SPREAD * math.sqrt(mean) + 12.0
    low, high = max(0, math.floor(mean - spread)), math.ceil(mean + spread)
    log_mean = math.log(mean)
    steps = log_mean - np.log(np.arange(low + 1, high + 1, dtype=np.float64))
    first = low * log_mean - mean - math.lgamma(low + 1.0)
    logs = first + np.concatenate([[0.0], np.cumsum(steps)])
    pmf = np.exp(logs - logs.max())
    return low, pmf / pmf.sum()


def _guided_cdf(pmf: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """The cumulative probabilities (the last exactly 1, so every search ends in the
    table) and the guide: entry i is the first cell whose cumulative probability exceeds
    i / L (L cells; entry L, for a `u * L` that rounds up to L, is the last cell)."""
    cdf = np.minimum(np.cumsum(pmf), 1.0)
    cdf[-1] = 1.0
    size = GUIDE * cdf.size
    guide = np.searchsorted(cdf, np.arange(size) / size, side="right")
    guide = np.append(np.minimum(guide, cdf.size - 1), cdf.size - 1).astype(np.int64)
    return cdf, guide


#: 2**52: a double in [2**52, 2**53) is that number plus an integer below 2**52, which is
#: the low 52 bits of its representation.
_TWO_52 = 4503599627370496.0
_TWO_52_BITS = 0x4330000000000000


def _floor_index(x: NDArray[np.float64]) -> NDArray[np.int64]:
    """`x.astype(np.int64) + _TWO_52_BITS` for doubles in [0, 2**52), overwriting `x`:
    floor, add 2**52 (exact: both are integers below 2**53) and read the bits, two
    vectorised passes where numpy's double-to-integer cast is one element at a time. The
    caller's offsets take `_TWO_52_BITS` back off."""
    np.floor(x, out=x)
    x += _TWO_52
    index: NDArray[np.int64] = x.view(np.int64)
    return index


def _sure_counts(cdf: NDArray[np.float64], guide: NDArray[np.int64], low: int) -> NDArray[np.int64]:
    """Per guide entry of one table, the count `search` gives every double of its bucket,
    or -1 where that depends on the double. A double `u` lands in bucket i of L when
    `floor(u * L) == i` (as rounded), so `u * L < i + 1` exactly and `u <= (i + 1) / L` as
    rounded (no double lies between that quotient and its rounding): a guide cell whose
    cumulative probability exceeds the rounded `(i + 1) / L` (or is 1) is the answer for
    all of them. The last entry (a `u * L` that rounds up to L) names the table's last
    cell, whose cumulative probability is 1: sure too."""
    length = guide.size - 1
    first = cdf[guide[:-1]]
    upper = np.arange(1, length + 1) / length  # the guide's own edges, one bucket on
    fits = np.append((first > upper) | (first >= 1.0), True)
    sure: NDArray[np.int64] = np.where(fits, guide + low, -1)
    return sure


@dataclass(frozen=True)
class _Table:
    """One Poisson law's inversion table: its lowest count, the cumulative probabilities,
    the guide (cells of this table) and the sure counts (`_sure_counts`), read-only: the
    same arrays serve every plan whose columns have this mean."""

    low: int
    cdf: NDArray[np.float64]
    guide: NDArray[np.int64]
    sure: NDArray[np.int64]

    @classmethod
    def build(cls, mean: float) -> _Table:
        low, pmf = _poisson_pmf(mean)
        cdf, guide = _guided_cdf(pmf)
        sure = _sure_counts(cdf, guide, low)
        for array in (cdf, guide, sure):
            array.setflags(write=False)
        return cls(low, cdf, guide, sure)

    @property
    def nbytes(self) -> int:
        return self.cdf.nbytes + self.guide.nbytes + self.sure.nbytes


class _TableCache:
    """The tables of at most `most_cells` cells built in this process, by the exact mean
    (a float: the same bits, the same table), oldest dropped first beyond `budget` bytes.
    A comparison bootstraps many scopes of the same size, whose group sizes and so means
    mostly recur; building a table (Python per mean) cost more than drawing from it."""

    def __init__(self, budget: int, most_cells: int = TABLE_CACHE_CELLS) -> None:
        self.budget = budget
        self.most_cells = most_cells
        self.tables: dict[float, _Table] = {}
        self.nbytes = 0

    def get(self, mean: float) -> _Table:
        table = self.tables.get(mean)
        if table is None:
            table = _Table.build(mean)
            self._keep(mean, table)
        return table

    def _keep(self, mean: float, table: _Table) -> None:
        if table.cdf.size > self.most_cells or table.nbytes > self.budget:
            return
        while self.tables and self.nbytes + table.nbytes > self.budget:
            self.nbytes -= self.tables.pop(next(iter(self.tables))).nbytes
        self.tables[mean] = table
        self.nbytes += table.nbytes

    def clear(self) -> None:
        self.tables.clear()
        self.nbytes = 0


#: This process's tables (~72 bytes per cell: a mean of 10,000 is ~0.2 MB).
_TABLES = _TableCache(TABLE_CACHE_BYTES)


class _PoissonPlan:
    """What every block shares: the categories, the tables, the cluster layout, the tail."""

    def __init__(self, values: FloatMatrix) -> None:
        self.n = values.shape[0]
        distinct, counts = _distinct_rows(values)
        is_category = counts >= MIN_GROUP
        self.category_values = distinct[is_category]
        self.sizes = counts[is_category].astype(np.int64)
        self.integral = bool(
            np.all(self.category_values == np.floor(self.category_values))
            and np.all(np.abs(self.category_values) < 2.0**31)
        )
        tail_values = np.repeat(distinct[~is_category], counts[~is_category], axis=0)
        self.n_tail = tail_values.shape[0]
        self.tail = _TailTable(tail_values, self.n)
        # A replicate draws at most n clusters from the categories (the tail weighs 0).
        weights = np.vstack([self.category_values, np.zeros((1, distinct.shape[1]))])
        self.packed = _PackedTotals.build(weights, self.n)
        columns = np.append(self.sizes, self.n_tail)
        lam = max(0.0, 1.0 - Z / math.sqrt(self.n))
        self.width = columns.size
        self.rows_per_pass = max(1, PASS_ELEMENTS // self.width)
        # No pass draws more replicates than a block holds.
        tiled = min(self.rows_per_pass, BLOCK_REPLICATES)
        self.tables = _PoissonTables(lam * columns.astype(np.float64), tiled)
        # The column each cluster of the layout counts in (int32: a smaller table to gather).
        self.owner = np.repeat(np.arange(self.width, dtype=np.int32), columns)

    def block_totals(self, size: int, rng: np.random.Generator) -> FloatMatrix:
        totals = np.empty((size, self.category_values.shape[1]), dtype=np.float64)
        for start in range(0, size, self.rows_per_pass):
            stop = min(start + self.rows_per_pass, size)
            totals[start:stop] = self._pass_totals(stop - start, rng)
        return totals

    def _pass_totals(self, rows: int, rng: np.random.Generator) -> FloatMatrix:
        """Steps 3 to 5 for `rows` replicates: their column totals."""
        counts = self._poisson_counts(rows, rng)
        self._correct(counts, self.n - counts.sum(axis=1), rng)
        k = self.width - 1
        if self.packed is not None:
            # The tail's column weighs 0: the whole count matrix, no slice copied.
            totals = self.packed.totals(counts)
        elif self.integral:
            # Integer products and sums: exact, and no BLAS (whose threads could reorder).
            totals = (counts[:, :k] @ self.category_values.astype(np.int64)).astype(np.float64)
        else:
            totals = np.einsum("rk,kc->rc", counts[:, :k].astype(np.float64), self.category_values)
        if self.n_tail:
            totals += self.tail.sums(counts[:, k], rng)
        return totals

    def _poisson_counts(self, rows: int, rng: np.random.Generator) -> NDArray[np.int64]:
        """Step 3 for one pass: the table counts, replicates over `n` drawn again."""
        counts = self.tables.draw(rows, rng)
        over = np.flatnonzero(counts.sum(axis=1) > self.n)
        while over.size:
            counts[over] = self.tables.draw(over.size, rng)
            over = over[counts[over].sum(axis=1) > self.n]
        return counts

    def _correct(
        self, counts: NDArray[np.int64], short: NDArray[np.int64], rng: np.random.Generator
    ) -> None:
        """Step 4: `short[r]` uniform draws among the n clusters for replicate r, each
        adding one to the count of its column (in place)."""
        total = int(short.sum())
        if not total:
            return
        cell = np.repeat(np.arange(short.size, dtype=np.int64) * self.width, short)
        draw = _IndexDraw(rng, self.n)
        for a in range(0, total, CHUNK):
            b = min(a + CHUNK, total)
            cell[a:b] += self.owner.take(draw.indices(b - a))
        # One unbuffered add per draw: a count per cell of the pass would cost a pass over
        # the whole count matrix to add it.
        flat = counts.view()
        flat.shape = (-1,)  # a view or an error, never a copy the adds would be lost in
        np.add.at(flat, cell, 1)
