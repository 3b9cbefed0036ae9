"""The resampling engine: summed count columns of clusters drawn with replacement.

Every statistic in `earmark.stats` is a function of *summed* per-row counts (errors and
reference units for WER, TP/FP/FN for F1, k and n for an acceptance rate). So one bootstrap
replicate needs only the column totals of `n` clusters drawn uniformly with replacement,
and those totals depend only on how many times each cluster was drawn: a count vector
`c ~ Multinomial(n, 1/n, ..., 1/n)`, total = `c @ values`.

Drawing that vector cluster by cluster costs `n` random indices per replicate (10,000
replicates x 100,000 clips = 1e9 indices, several seconds). It can be drawn exactly and
much faster because clusters with *identical* total vectors are interchangeable: summing
the multinomial cells of a group of `m` identical clusters gives the joint law
`Multinomial(n, m_1/n, ..., m_K/n)` over the K distinct vectors. Real corpora have few
distinct (errors, ref_units) pairs, so this is a few hundred binomial draws per replicate.

The algorithm, per block of replicates (`rng = numpy.random.default_rng(seed)`, PCG64):

1. Group clusters by their total vector (`numpy.unique`, lexicographic order). Groups of
   at least `MIN_GROUP` clusters are *categories*; all other clusters form the *tail*,
   laid out in the same sorted order.
2. Category counts come from the chain of conditional binomials that defines a
   multinomial: `k_j ~ Binomial(n - k_1 - ... - k_{j-1}, m_j / (m_j + ... + m_K + n_tail))`,
   with probabilities computed from integer cluster counts (so they never exceed 1).
3. Whatever is left, `r = n - sum(k)`, is the number of draws that fall in the tail;
   conditional on `r` those are `r` uniform draws with replacement among the tail
   clusters (`rng.integers`), gathered and summed.

This is exactly the nonparametric (cluster) bootstrap, not an approximation such as the
Poisson bootstrap. Because groups are formed by value and ordered by value, the replicates
depend only on the multiset of cluster totals: reordering rows or renaming clusters gives
the same numbers for the same seed. Results are reproducible for the same seed, data,
`MIN_GROUP`/`BLOCK_ELEMENTS` and numpy version (numpy does not promise identical
`Generator.binomial`/`integers` streams across releases).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from earmark.errors import EarmarkError

# A group this large is cheaper as one binomial draw (~50-100 ns) than as `m` index draws
# and gathers in the tail (~5 ns each), per replicate. Part of the algorithm: changing it
# changes the random stream for a given seed.
MIN_GROUP = 8
# Tail indices drawn per block of replicates (bounds memory to a few tens of MB).
BLOCK_ELEMENTS = 1 << 21
MIN_BLOCK = 32

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


def cluster_totals(rows: FloatMatrix, index: NDArray[np.intp], n_clusters: int) -> FloatMatrix:
    """Sum the rows of each cluster: the unit that is resampled."""
    totals = np.empty((n_clusters, rows.shape[1]), dtype=np.float64)
    for j in range(rows.shape[1]):
        totals[:, j] = np.bincount(index, weights=rows[:, j], minlength=n_clusters)
    return totals


def resample_totals(values: FloatMatrix, resamples: int, seed: int) -> FloatMatrix:
    """Column totals of `resamples` bootstrap samples of the rows of `values`.

    `values` is (n_clusters x C); the result is (resamples x C). Each replicate draws
    n_clusters clusters uniformly with replacement (see the module docstring).
    """
    n, width = values.shape
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, width), dtype=np.float64)
    if n == 0:
        raise EarmarkError("cannot bootstrap an empty set of rows", field="errors")

    distinct, counts = _distinct_rows(values)
    is_category = counts >= MIN_GROUP
    category_values = distinct[is_category]
    category_sizes = counts[is_category].astype(np.int64)
    tail_values = np.repeat(distinct[~is_category], counts[~is_category], axis=0)
    n_tail = tail_values.shape[0]
    # Clusters not yet assigned when category j is drawn: m_j + ... + m_K + n_tail.
    still_open = np.cumsum(category_sizes[::-1])[::-1] + n_tail
    tail = _TailTable(tail_values, n)
    index_dtype = np.int32 if n_tail < 2**31 else np.int64

    # Blocks bound the tail's memory; at least MIN_BLOCK replicates share each numpy call.
    block = int(min(resamples, max(MIN_BLOCK, BLOCK_ELEMENTS // max(n_tail, 1))))
    for start in range(0, resamples, block):
        size = min(block, resamples - start)
        left = np.full(size, n, dtype=np.int64)
        drawn = np.empty((size, len(category_sizes)), dtype=np.int64)
        for j, (m_j, open_j) in enumerate(zip(category_sizes, still_open, strict=True)):
            k = left if m_j == open_j else rng.binomial(left, m_j / open_j)
            drawn[:, j] = k
            left = left - k
        totals = drawn.astype(np.float64) @ category_values
        if n_tail:
            totals += tail.sums(left, rng, index_dtype)
        out[start : start + size] = totals
    return out


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
            _, first, counts = np.unique(key, return_index=True, return_counts=True)
            return values[first], counts.astype(np.int64)
    distinct, counts = np.unique(values, axis=0, return_counts=True)
    return distinct, counts.astype(np.int64)


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

    def sums(
        self,
        draws: NDArray[np.int64],
        rng: np.random.Generator,
        index_dtype: type[np.signedinteger[Any]],
    ) -> FloatMatrix:
        """Per replicate, sum `draws[i]` uniform draws with replacement from the tail."""
        sums = np.zeros((draws.shape[0], self.width), dtype=np.float64)
        total = int(draws.sum())
        if total == 0:
            return sums
        picks = rng.integers(0, self.words[0].shape[0], size=total, dtype=index_dtype)
        starts = np.concatenate(([0], np.cumsum(draws)[:-1]))
        # reduceat wants starts < len; an empty segment's row is zeroed below anyway.
        starts = np.minimum(starts, total - 1)
        for word, fields in zip(self.words, self.fields, strict=True):
            word_sums = np.add.reduceat(word[picks], starts)
            for column, shift, bits in fields:
                if shift < 0:
                    sums[:, column] = word_sums
                else:
                    sums[:, column] = (word_sums >> shift) & ((1 << bits) - 1)
        sums[draws == 0] = 0.0
        return sums
