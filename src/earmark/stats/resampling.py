"""The resampling engine: summed count columns of clusters drawn with replacement.

Every statistic in `earmark.stats` is a function of *summed* per-row counts (errors and
reference units for WER, TP/FP/FN for F1, k and n for an acceptance rate). So one bootstrap
replicate needs only the column totals of `n` clusters drawn uniformly with replacement,
and those totals depend only on how many times each cluster was drawn: a count vector
`c ~ Multinomial(n, 1/n, ..., 1/n)`, total = `c @ values`. All columns passed together
are resampled together: several statistics of one scope (WER and CER of every view) come
from the same draws, so their intervals are jointly consistent and cost one draw.

Clusters with *identical* total vectors are interchangeable: summing the multinomial cells
of a group of `m` identical clusters gives the joint law `Multinomial(n, m_1/n, ...,
m_K/n)` over the K distinct vectors, a few hundred binomial draws per replicate for real
WER corpora instead of `n` index draws.

The algorithm (the generator, the block layout and the mapping of random bits are part of
it: a change changes the numbers for a seed):

1. Group clusters by their total vector (lexicographic order of the distinct vectors).
   Groups of at least `MIN_GROUP` clusters are *categories*; all other clusters form the
   *tail*, laid out in the same sorted order.
2. Replicates are drawn in blocks of `BLOCK_REPLICATES`. Block `b` (replicates
   `b * BLOCK_REPLICATES` onwards) has its own stream: numpy's PCG64 seeded with
   `SeedSequence(seed, spawn_key=(b,))` (what `SeedSequence(seed).spawn()` gives its
   child `b`). Blocks are independent, so they can run on any number of threads and give
   the same numbers.
3. In a block, category counts come from the chain of conditional binomials that defines a
   multinomial: `k_j ~ Binomial(n - k_1 - ... - k_{j-1}, m_j / (m_j + ... + m_K +
   n_tail))` (`Generator.binomial`, one call per category for the whole block).
4. Whatever is left, `r = n - sum(k)` per replicate, is the number of draws that fall in
   the tail; conditional on `r` those are `r` uniform draws with replacement among the
   `n_tail` tail clusters, made replicate after replicate. Each index comes from 32
   random bits `u` (each 64-bit PCG64 output gives two, its low half first) as
   `floor(u * n_tail / 2**32)` (Lemire's multiply-shift), rejecting `u` when
   `u * n_tail mod 2**32 < 2**32 mod n_tail` and taking the next fresh 64-bit output's low
   half instead (so every index is exactly uniform). They are drawn and gathered
   `CHUNK` at a time, so each chunk's indices and gathered values stay in cache.

This is exactly the nonparametric (cluster) bootstrap, not an approximation such as the
Poisson bootstrap. Because groups are formed by value and ordered by value, the replicates
depend only on the multiset of cluster total vectors: reordering rows or renaming clusters
gives the same numbers for the same seed. Results are reproducible for the same seed,
data and numpy version (numpy does not promise identical `Generator.binomial` streams
across releases; PCG64's raw output is stable), on little-endian hosts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from earmark.errors import EarmarkError
from earmark.stats.cores import usable_cores

# A group this large is cheaper as one binomial draw (~90 ns with numpy's BTPE, whose
# set-up is redone per replicate) than as `m` index draws and gathers in the tail (~3 ns
# each), per replicate. Part of the algorithm: changing it changes the random stream.
MIN_GROUP = 32
# Replicates per independent random stream (part of the algorithm, like MIN_GROUP); also
# the unit of work handed to a thread.
BLOCK_REPLICATES = 512
# Tail draws generated and gathered at a time: 32k indices and gathered words (256 KiB
# each) stay in a core's cache, which makes a draw and gather cost ~3 ns instead of ~10.
CHUNK = 1 << 15
# Below this much work (tail draws, plus ~20 per binomial draw, in all), threads cost
# more than they save.
PARALLEL_MIN_DRAWS = 1 << 22

FloatMatrix = NDArray[np.float64]


def as_count_columns(columns: Sequence[ArrayLike], names: Sequence[str]) -> FloatMatrix:
    """Stack equally long 1-D numeric columns into a (rows x C) float64 matrix.

    float64 holds integer sums exactly up to 2**53, far beyond any corpus count.
    """
    if len(columns) == 0:
        raise EarmarkError("at least one count column is needed", field="columns")
    arrays = []
    length: int | None = None
    for column, name in zip(columns, names, strict=True):
        array = np.asarray(column)
        if array.ndim != 1:
            raise EarmarkError(
                f"expected a 1-D array, got shape {array.shape}",
                field=name,
                hint="pass one value per utterance (row)",
            )
        if array.dtype.kind not in "biuf":
            raise EarmarkError(f"expected numbers, got dtype {array.dtype}", field=name)
        if length is None:
            length = array.shape[0]
        elif array.shape[0] != length:
            raise EarmarkError(
                f"has {array.shape[0]} rows but '{names[0]}' has {length}",
                field=name,
                hint="all arrays must be aligned: one entry per utterance, same order",
            )
        as_float = array.astype(np.float64)
        if not np.all(np.isfinite(as_float)):
            raise EarmarkError("contains NaN or infinite values", field=name)
        arrays.append(as_float)
    return np.stack(arrays, axis=1)


def cluster_index(clusters: ArrayLike | None, n_rows: int) -> tuple[NDArray[np.intp], int]:
    """Map cluster keys (strings, ints, any hashable) to 0..n_clusters-1 per row."""
    if clusters is None:
        return np.arange(n_rows, dtype=np.intp), n_rows
    keys = np.asarray(clusters)
    if keys.ndim != 1 or keys.shape[0] != n_rows:
        raise EarmarkError(
            f"clusters has shape {keys.shape}, expected ({n_rows},)",
            field="clusters",
            hint="give one cluster key (e.g. the clip id) per row",
        )
    if keys.dtype.kind in "iu" and _is_arange(keys):
        # Every row its own cluster, numbered in order (a scorer's distinct clips): the
        # numbering `np.unique` would give, without sorting the rows.
        return keys.astype(np.intp), n_rows
    if keys.dtype.kind in "biuUS":
        _, inverse = np.unique(keys, return_inverse=True)
        index = inverse.reshape(-1).astype(np.intp)
    else:
        seen: dict[Any, int] = {}
        index = np.fromiter(
            (seen.setdefault(key, len(seen)) for key in keys.tolist()),
            dtype=np.intp,
            count=n_rows,
        )
    n_clusters = int(index.max()) + 1 if n_rows else 0
    return index, n_clusters


def _is_arange(keys: NDArray[Any]) -> bool:
    """Whether integer keys are exactly 0, 1, ..., n-1 in order."""
    return bool(keys.size and keys[0] == 0 and np.all(np.diff(keys) == 1))


def cluster_totals(rows: FloatMatrix, index: NDArray[np.intp], n_clusters: int) -> FloatMatrix:
    """Sum the rows of each cluster: the unit that is resampled."""
    if n_clusters == rows.shape[0] and _is_arange(index):
        same: FloatMatrix = rows.copy()
        return same
    totals = np.empty((n_clusters, rows.shape[1]), dtype=np.float64)
    for j in range(rows.shape[1]):
        totals[:, j] = np.bincount(index, weights=rows[:, j], minlength=n_clusters)
    return totals


def resample_totals(
    values: FloatMatrix, resamples: int, seed: int, *, workers: int | None = None
) -> FloatMatrix:
    """Column totals of `resamples` bootstrap samples of the rows of `values`.

    `values` is (n_clusters x C); the result is (resamples x C). Each replicate draws
    n_clusters clusters uniformly with replacement (see the module docstring). `workers`
    threads share the blocks (default: the usable cores when the work is large); the
    numbers do not depend on it.
    """
    n, width = values.shape
    if n == 0:
        raise EarmarkError("cannot bootstrap an empty set of rows", field="errors")
    if n == 1:
        # Every replicate draws the one cluster: the blocks' draws would all land on it
        # (0.0 plus its totals, as the tail sums them). A speaker of one utterance costs
        # no generators; the other blocks' streams do not depend on these.
        return np.repeat(values + 0.0, resamples, axis=0)
    plan = _Plan(values)
    work = (plan.n_tail + 20 * len(plan.category_sizes)) * resamples
    return run_blocks(plan.block_totals, width, resamples, seed, work, workers)


BlockTotals = Callable[[int, np.random.Generator], FloatMatrix]
"""`block_totals(size, rng)`: the (size x C) replicate totals of one block, from its stream."""


def run_blocks(
    block_totals: BlockTotals,
    width: int,
    resamples: int,
    seed: int,
    work: int,
    workers: int | None,
) -> FloatMatrix:
    """Every block of `BLOCK_REPLICATES` replicates from its own stream, on one thread or
    several (chosen by `work`, the draws in all): the numbers do not depend on which."""
    n_blocks = -(-resamples // BLOCK_REPLICATES)
    out = np.empty((resamples, width), dtype=np.float64)

    def run(block: int) -> None:
        start = block * BLOCK_REPLICATES
        size = min(BLOCK_REPLICATES, resamples - start)
        out[start : start + size] = block_totals(size, _block_generator(seed, block))

    threads = _threads(workers, n_blocks, work)
    if threads <= 1:
        for block in range(n_blocks):
            run(block)
    else:
        # Imported here: a run that never draws in threads does not load concurrent.futures.
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=threads) as pool:
            list(pool.map(run, range(n_blocks)))
    return out


def _block_generator(seed: int, block: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(block,))))


#: The threads a bootstrap draws on when its caller names none: None for the usable
#: cores, or this process's share of them (`share_cores`).
_core_share: int | None = None


def share_cores(threads: int) -> None:
    """Draw on at most `threads` threads (at least one) when a caller names none: for a
    forked worker whose siblings use the other cores, where more threads only contend
    (and each pool costs its start-up). The numbers do not depend on it."""
    global _core_share
    _core_share = max(1, int(threads))


def _threads(workers: int | None, n_blocks: int, work: int) -> int:
    if workers is None:
        if work < PARALLEL_MIN_DRAWS:
            return 1
        workers = _core_share or usable_cores()
    return max(1, min(int(workers), n_blocks))


class _Plan:
    """What every block shares: the categories, the tail table, the binomial chain."""

    def __init__(self, values: FloatMatrix) -> None:
        self.n, self.width = values.shape
        distinct, counts = _distinct_rows(values)
        is_category = counts >= MIN_GROUP
        self.category_values = distinct[is_category]
        self.category_sizes = counts[is_category].astype(np.int64)
        self.integral_categories = bool(
            np.all(self.category_values == np.floor(self.category_values))
            and np.all(np.abs(self.category_values) < 2.0**31)
        )
        tail_values = np.repeat(distinct[~is_category], counts[~is_category], axis=0)
        self.n_tail = tail_values.shape[0]
        # Clusters not yet assigned when category j is drawn: m_j + ... + m_K + n_tail.
        self.still_open = np.cumsum(self.category_sizes[::-1])[::-1] + self.n_tail
        self.tail = _TailTable(tail_values, self.n)

    def block_totals(self, size: int, rng: np.random.Generator) -> FloatMatrix:
        left = np.full(size, self.n, dtype=np.int64)
        drawn = np.empty((size, len(self.category_sizes)), dtype=np.int64)
        for j, (m_j, open_j) in enumerate(zip(self.category_sizes, self.still_open, strict=True)):
            k = left if m_j == open_j else rng.binomial(left, m_j / open_j)
            drawn[:, j] = k
            left = left - k
        if self.integral_categories:
            # Integer products and sums: exact, and no BLAS (whose threads could reorder).
            totals = (drawn @ self.category_values.astype(np.int64)).astype(np.float64)
        else:
            totals = np.einsum("rk,kc->rc", drawn.astype(np.float64), self.category_values)
        if self.n_tail:
            totals += self.tail.sums(left, rng)
        return totals


def _distinct_rows(values: FloatMatrix) -> tuple[FloatMatrix, NDArray[np.int64]]:
    """`np.unique(values, axis=0, return_counts=True)`, fast for count columns.

    Non-negative integer columns are packed into one int64 key, first column in the
    highest bits, so sorting keys sorts rows lexicographically: the same distinct rows in
    the same order as `np.unique(axis=0)` (and so the same random stream), about 10x
    faster. Anything else (floats, negative or huge values) takes the general path.
    """
    if values.size and np.all(values >= 0) and np.all(values == np.floor(values)):
        widths = [int(values[:, j].max()).bit_length() or 1 for j in range(values.shape[1])]
        if sum(widths) <= 63:
            key = np.zeros(values.shape[0], dtype=np.int64)
            for j, bits in enumerate(widths):
                key = (key << bits) | values[:, j].astype(np.int64)
            top = int(key.max()) + 1
            if top <= _DENSE_KEYS_PER_ROW * key.size and not np.signbit(values).any():
                return _distinct_dense(values, key, top)
            _, first, counts = np.unique(key, return_index=True, return_counts=True)
            return values[first], counts.astype(np.int64)
    distinct, counts = np.unique(values, axis=0, return_counts=True)
    return distinct, counts.astype(np.int64)


# Keys below this many per row are counted in an array (a bincount) instead of sorted:
# the array costs about what sorting would.
_DENSE_KEYS_PER_ROW = 4


def _distinct_dense(
    values: FloatMatrix, key: NDArray[np.int64], top: int
) -> tuple[FloatMatrix, NDArray[np.int64]]:
    """`_distinct_rows` of rows whose keys are below `top`: the keys counted, not sorted
    (several times faster), the distinct keys in increasing order. Any row of a key is
    that key's row (non-negative integers without -0.0: the same bits)."""
    counts = np.bincount(key, minlength=top)
    keys = np.flatnonzero(counts)
    row_of = np.empty(top, dtype=np.intp)
    row_of[key] = np.arange(key.size, dtype=np.intp)
    return values[row_of[keys]], counts[keys].astype(np.int64)


class _PackedTotals:
    """`counts @ values` for non-negative integer `values` (categories x C), several
    columns per int64 word: one integer matrix-vector product per word instead of a
    product per column (numpy's integer products do not use BLAS: one pass over `counts`
    for each output column). A column's field holds its largest possible total (`draws`
    times its largest value), so the sums are exact and no field carries into the next.
    `None` from `build` where a value is negative, fractional or too large to pack.
    """

    def __init__(self, words: list[NDArray[np.int64]], fields: list[list[tuple[int, int, int]]]):
        self.words = words
        self.fields = fields  # (column, shift, bits) per word
        self.width = sum(len(f) for f in fields)

    @classmethod
    def build(cls, values: FloatMatrix, draws: int) -> _PackedTotals | None:
        if not values.size or np.any(values < 0) or np.any(values != np.floor(values)):
            return None
        words: list[NDArray[np.int64]] = []
        fields: list[list[tuple[int, int, int]]] = []
        bits_used = 64  # forces a new word for the first column
        for j in range(values.shape[1]):
            bits = (int(values[:, j].max()) * draws).bit_length() or 1
            if bits > 62:
                return None
            if bits_used + bits > 63:
                words.append(np.zeros(values.shape[0], dtype=np.int64))
                fields.append([])
                bits_used = 0
            words[-1] |= values[:, j].astype(np.int64) << bits_used
            fields[-1].append((j, bits_used, bits))
            bits_used += bits
        return cls(words, fields)

    def totals(self, counts: NDArray[np.int64]) -> FloatMatrix:
        """(rows x C) totals of `counts` (rows x categories, non-negative, each row
        summing to at most `draws`)."""
        out = np.empty((counts.shape[0], self.width), dtype=np.float64)
        for word, fields in zip(self.words, self.fields, strict=True):
            # einsum's integer sum of products: exact, as `counts @ word`, half the work.
            packed = np.einsum("rk,k->r", counts, word)
            for column, shift, bits in fields:
                out[:, column] = (packed >> shift) & ((1 << bits) - 1)
        return out


class _TailTable:
    """The tail clusters' columns, packed for gathering.

    Gathering costs about as much as drawing an index, per array gathered, so non-negative
    integer columns share one int64 word when their largest possible replicate sums fit
    (e.g. errors and ref_units of a WER corpus: one gather instead of two). Float columns
    (per-row rates) are gathered on their own.
    """

    def __init__(self, tail_values: FloatMatrix, n_draws: int) -> None:
        self.width = tail_values.shape[1]
        self.words: list[NDArray[Any]] = []
        self.fields: list[list[tuple[int, int, int]]] = []  # (column, shift, bits) per word
        bits_used = 64  # forces a new word for the first integer column
        for j in range(self.width):
            column = tail_values[:, j]
            largest = float(column.max()) if column.size else 0.0
            integral = bool(np.all(column >= 0) and np.all(column == np.floor(column)))
            bits = (int(largest) * n_draws).bit_length() or 1
            if not integral or bits > 62:
                self.words.append(np.ascontiguousarray(column))
                self.fields.append([(j, -1, 0)])
                continue
            if bits_used + bits > 63:
                self.words.append(np.zeros(column.shape[0], dtype=np.int64))
                self.fields.append([])
                bits_used = 0
            self.words[-1] |= column.astype(np.int64) << bits_used
            self.fields[-1].append((j, bits_used, bits))
            bits_used += bits

    def sums(self, draws: NDArray[np.int64], rng: np.random.Generator) -> FloatMatrix:
        """Per replicate, sum `draws[i]` uniform draws with replacement from the tail."""
        n_tail = self.words[0].shape[0]
        ends = np.cumsum(draws)
        starts = ends - draws
        total = int(ends[-1]) if ends.size else 0
        word_sums = [np.zeros(draws.shape[0], dtype=word.dtype) for word in self.words]
        if total:
            draw = _IndexDraw(rng, n_tail)
            gathered = np.empty(min(CHUNK, total), dtype=np.float64)
            for a in range(0, total, CHUNK):
                b = min(a + CHUNK, total)
                picks = draw.indices(b - a)
                # Replicates with draws in [a, b) and where each begins inside the chunk.
                first = int(np.searchsorted(ends, a, side="right"))
                stop = int(np.searchsorted(starts, b, side="left"))
                seg_starts = np.maximum(starts[first:stop], a) - a
                empty = np.minimum(ends[first:stop], b) - a == seg_starts
                for word, acc in zip(self.words, word_sums, strict=True):
                    values = gathered[: b - a].view(word.dtype)
                    # Indices in range: "clip" writes `out` directly ("raise" buffers).
                    np.take(word, picks, out=values, mode="clip")
                    part = np.add.reduceat(values, seg_starts)
                    part[empty] = 0
                    acc[first:stop] += part
        sums = np.zeros((draws.shape[0], self.width), dtype=np.float64)
        for acc, fields in zip(word_sums, self.fields, strict=True):
            for column, shift, bits in fields:
                if shift < 0:
                    sums[:, column] = acc
                else:
                    sums[:, column] = (acc >> shift) & ((1 << bits) - 1)
        return sums


class _IndexDraw:
    """Exactly uniform indices in [0, n) from PCG64's raw bits, a chunk at a time.

    32 bits per index (two per 64-bit output, low half first), mapped by Lemire's
    multiply-shift with rejection; see the module docstring.
    """

    def __init__(self, rng: np.random.Generator, n: int) -> None:
        if not 0 < n <= 1 << 32:
            raise EarmarkError(f"cannot draw among {n} clusters", field="clusters")
        self.bits = rng.bit_generator
        self.n = np.uint64(n)
        self.reject_below = (1 << 32) % n
        self.buffer = np.empty(CHUNK, dtype=np.uint64)

    def indices(self, k: int) -> NDArray[np.int64]:
        raw = self.bits.random_raw((k + 1) // 2)
        product = self.buffer[:k]
        np.multiply(raw.view(np.uint32)[:k], self.n, out=product, casting="unsafe")
        if self.reject_below:
            low = product.view(np.uint32)[0::2]
            if int(low.min()) < self.reject_below:
                self._redraw(product, np.flatnonzero(low < self.reject_below))
        np.right_shift(product, np.uint64(32), out=product)
        return product.view(np.int64)

    def _redraw(self, product: NDArray[np.uint64], rejected: NDArray[np.intp]) -> None:
        mask = np.uint64(0xFFFFFFFF)
        while rejected.size:
            fresh = (self.bits.random_raw(rejected.size) & mask) * self.n
            ok = (fresh & mask) >= self.reject_below
            product[rejected[ok]] = fresh[ok]
            rejected = rejected[~ok]
