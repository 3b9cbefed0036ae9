"""The `numpy-pcg64-poisson` generator: the same cluster bootstrap, drawn several times faster.

`numpy-pcg64` (`earmark.stats.resampling`) draws each group's count from a chain of
conditional binomials, ~100 ns a draw (numpy redoes a binomial's set-up whenever its `n`
changes, and in the chain it always does), and draws every cluster of a group smaller
than 32 one index at a time. A corpus of character counts has thousands of distinct
(errors, ref_units) pairs, so that is most of a CER interval's cost. Here every group's
count is an independent Poisson variate, taken from a table in a few nanoseconds, and an
exact correction turns the Poisson counts into the multinomial. The law of the replicates
is the same; the numbers for a seed are not, so results drawn this way name the generator.

The algorithm (its constants are part of it: a change changes the numbers for a seed):

1. Group clusters by their total vector (`numpy-pcg64`'s order). Groups of at least
   `MIN_GROUP` clusters are *categories*; the single clusters form the *tail*, which
   counts as one more column, of size `n_tail`, whose count is a number of tail draws.
2. Blocks of `BLOCK_REPLICATES` replicates; block `b` draws from numpy's PCG64 seeded
   with `SeedSequence(seed, spawn_key=(b,))`, as `numpy-pcg64` does.
3. `lam = max(0, 1 - Z / sqrt(n))`. Each column's count is `Poisson(lam * m)` (m its
   size), drawn from a Walker alias table of that Poisson law (built with Vose's method
   over the support where all but less than 1e-20 of its mass lies, probabilities from
   `math.lgamma`): two `Generator.random` doubles per count, the first picks the table
   cell, the second decides between the cell and its alias. A pass draws the first
   doubles of `rows` replicates (every column, row-major), then the second doubles, with
   `rows = max(1, PASS_ELEMENTS // columns)`; replicates whose counts sum to more than
   `n` are drawn again, in order, in the same way, until none does.
4. Each replicate's shortfall `n - sum` (about `Z * sqrt(n)`) is drawn as that many
   indices uniform in `[0, n)` over the clusters laid out category by category and then
   the tail (`numpy-pcg64`'s 32-bit Lemire mapping, `CHUNK` at a time, replicate after
   replicate); each index adds one to the count of the column it falls in.
5. The tail's draws are then made and summed exactly as `numpy-pcg64` makes them.

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

import numpy as np
from numpy.typing import NDArray

from earmark.errors import EarmarkError
from earmark.stats.resampling import (
    CHUNK,
    FloatMatrix,
    _distinct_rows,
    _IndexDraw,
    _TailTable,
    run_blocks,
)

#: The name results record for this generator.
GENERATOR = "numpy-pcg64-poisson"
# Two clusters with the same totals cost one table draw (~8 ns) instead of two tail draws
# (~4 ns each). Part of the algorithm.
MIN_GROUP = 2
# The Poisson means are lam = 1 - Z / sqrt(n) times the group sizes: about Z * sqrt(n)
# draws a replicate are left to the uniform correction, and a replicate is drawn again
# with probability about P(normal > Z) (2.3%). Part of the algorithm.
Z = 2.0
# Table draws made per pass (rows x columns): bounds the pass's arrays (~8 MB each).
PASS_ELEMENTS = 1 << 16
# Each table covers the mean +- SPREAD standard deviations (+- 12 more counts), where all
# but < 1e-20 of a Poisson law's mass lies.
SPREAD = 12.0


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
    """Walker alias tables of Poisson laws, one per distinct mean, concatenated: column j
    draws from cells `offset[j] .. offset[j] + length[j] - 1`."""

    def __init__(self, means: NDArray[np.float64]) -> None:
        distinct, which = np.unique(means, return_inverse=True)
        probs, aliases, starts, lengths, lows = [], [], [], [], []
        start = 0
        for mean in distinct.tolist():
            low, pmf = _poisson_pmf(mean)
            prob, alias = _vose(pmf)
            probs.append(prob)
            aliases.append(alias + start)
            starts.append(start)
            lengths.append(pmf.size)
            lows.append(low)
            start += pmf.size
        self.prob = np.concatenate(probs)
        self.alias = np.concatenate(aliases)
        inverse = which.reshape(-1)
        self.offset = np.asarray(starts, dtype=np.int64)[inverse]
        self.length = np.asarray(lengths, dtype=np.float64)[inverse]
        # A cell's count is its place in its table plus the table's lowest count.
        self.base = self.offset - np.asarray(lows, dtype=np.int64)[inverse]

    def draw(self, rows: int, rng: np.random.Generator) -> NDArray[np.int64]:
        """(rows x columns) counts: the cells from the first doubles, then the coins."""
        cell = (rng.random((rows, self.offset.size)) * self.length).astype(np.int64)
        cell += self.offset
        keep = rng.random((rows, self.offset.size)) < self.prob[cell]
        counts: NDArray[np.int64] = np.where(keep, cell, self.alias[cell])
        counts -= self.base
        return counts


def _poisson_pmf(mean: float) -> tuple[int, NDArray[np.float64]]:
    """The lowest count of the support (mean +- SPREAD sd, +- 12) and the probabilities of
    Poisson(mean) on it."""
    if mean <= 0.0:
        return 0, np.ones(1)
    spread = SPREAD * math.sqrt(mean) + 12.0
    low, high = max(0, math.floor(mean - spread)), math.ceil(mean + spread)
    support = np.arange(low, high + 1, dtype=np.int64)
    log_mean = math.log(mean)
    logs = np.array([k * log_mean - mean - math.lgamma(k + 1.0) for k in support.tolist()])
    pmf = np.exp(logs - logs.max())
    return low, pmf / pmf.sum()


def _vose(pmf: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Vose's alias method: per cell, the chance of keeping it and the cell taken instead."""
    size = pmf.size
    scaled = (pmf * size).tolist()
    prob = [1.0] * size
    alias = list(range(size))
    small = [i for i, q in enumerate(scaled) if q < 1.0]
    large = [i for i, q in enumerate(scaled) if q >= 1.0]
    while small and large:
        s, big = small.pop(), large.pop()
        prob[s], alias[s] = scaled[s], big
        scaled[big] += scaled[s] - 1.0
        (small if scaled[big] < 1.0 else large).append(big)
    # What is left is 1 up to rounding: kept always (prob 1, its own alias).
    return np.asarray(prob), np.asarray(alias, dtype=np.int64)


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
        tail_values = distinct[~is_category]
        self.n_tail = tail_values.shape[0]
        self.tail = _TailTable(tail_values, self.n)
        columns = np.append(self.sizes, self.n_tail)
        lam = max(0.0, 1.0 - Z / math.sqrt(self.n))
        self.tables = _PoissonTables(lam * columns.astype(np.float64))
        self.width = columns.size
        self.rows_per_pass = max(1, PASS_ELEMENTS // self.width)
        # The column each cluster of the layout counts in (int32: a smaller table to gather).
        self.owner = np.repeat(np.arange(self.width, dtype=np.int32), columns)

    def block_totals(self, size: int, rng: np.random.Generator) -> FloatMatrix:
        counts = np.empty((size, self.width), dtype=np.int64)
        for start in range(0, size, self.rows_per_pass):
            stop = min(start + self.rows_per_pass, size)
            counts[start:stop] = self._poisson_counts(stop - start, rng)
        counts += self._correction(self.n - counts.sum(axis=1), rng)
        k = self.width - 1
        if self.integral:
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

    def _correction(self, short: NDArray[np.int64], rng: np.random.Generator) -> NDArray[np.int64]:
        """Step 4: `short[r]` uniform draws among the n clusters for replicate r, counted
        per column."""
        total = int(short.sum())
        replicate = np.repeat(np.arange(short.size, dtype=np.int64) * self.width, short)
        if total:
            draw = _IndexDraw(rng, self.n)
            for a in range(0, total, CHUNK):
                b = min(a + CHUNK, total)
                replicate[a:b] += self.owner[draw.indices(b - a)]
        added: NDArray[np.int64] = np.bincount(replicate, minlength=short.size * self.width)
        return added.reshape(short.size, self.width)
