"""Paired significance tests on per-utterance error counts, and Holm's multiplicity adjustment.

Used by `earmark compare`: x and y are the error counts of two systems on the same
utterances (row i is the same utterance in both). Pure numpy and `math`; scipy is only a
test oracle.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from earmark.errors import EarmarkError
from earmark.stats.settings import StatRecord

# Up to this many non-zero pairs the sign test sums exact integer binomial coefficients;
# above it, log-space terms (relative error ~1e-12) keep it fast.
SIGN_TEST_EXACT_INTEGER_MAX = 5_000
# Wilcoxon: exact null distribution up to this many non-zero differences without ties.
WILCOXON_EXACT_MAX = 50


@dataclass(frozen=True, slots=True)
class SignTestResult:
    """Exact two-sided sign test on the non-zero differences x - y."""

    n: int
    """Pairs with a non-zero difference (the ones the test uses)."""
    n_positive: int
    """Pairs with x > y."""
    n_negative: int
    n_zero: int
    """Pairs with x == y, dropped."""
    p_value: float

    def to_dict(self) -> StatRecord:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class WilcoxonResult:
    """Wilcoxon signed-rank test of x - y (zero differences dropped, ties mid-ranked)."""

    n: int
    n_zero: int
    w_plus: float
    """Sum of ranks of the positive differences (x > y)."""
    w_minus: float
    statistic: float
    """min(w_plus, w_minus), as usually reported for the two-sided test."""
    p_value: float
    method: str
    """'exact' (no ties, n <= 50) or 'normal' (tie- and continuity-corrected)."""
    z: float | None = None

    def to_dict(self) -> StatRecord:
        return asdict(self)


def _differences(x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1:
        raise EarmarkError("paired tests take 1-D arrays", field="x")
    if a.shape != b.shape:
        raise EarmarkError(
            f"x has {a.shape[0]} rows but y has {b.shape[0]}",
            field="y",
            hint="pair the systems by utterance id first; rows must be aligned",
        )
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise EarmarkError("contains NaN or infinite values", field="x")
    return a - b


def _binomial_half_cdf(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if n <= SIGN_TEST_EXACT_INTEGER_MAX:
        term, total = 1, 1
        for i in range(k):
            term = term * (n - i) // (i + 1)
            total += term
        return total / (1 << n)
    logs = [
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2)
        for i in range(k + 1)
    ]
    top = max(logs)
    return float(math.exp(top) * math.fsum(math.exp(v - top) for v in logs))


def sign_test(x: ArrayLike, y: ArrayLike) -> SignTestResult:
    """Exact two-sided sign test: p = min(1, 2 P(X <= min(k, n - k))), X ~ Bin(n, 1/2).

    n counts only the pairs that differ. With no differing pair, p = 1.

    >>> sign_test([3, 2, 5, 1, 4], [1, 1, 2, 1, 2]).p_value
    0.125
    """
    d = _differences(x, y)
    n_positive = int(np.count_nonzero(d > 0))
    n_negative = int(np.count_nonzero(d < 0))
    n = n_positive + n_negative
    p = min(1.0, 2.0 * _binomial_half_cdf(min(n_positive, n_negative), n)) if n else 1.0
    return SignTestResult(
        n=n,
        n_positive=n_positive,
        n_negative=n_negative,
        n_zero=int(d.size - n),
        p_value=p,
    )


def _average_ranks(values: NDArray[np.float64]) -> tuple[NDArray[np.float64], list[int]]:
    """Ranks 1..n with ties given their mean rank, and the sizes of the tie groups."""
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    ranks = np.empty(values.size, dtype=np.float64)
    tie_sizes: list[int] = []
    start = 0
    boundaries = np.flatnonzero(np.diff(sorted_values)) + 1
    for end in [*boundaries.tolist(), values.size]:
        ranks[order[start:end]] = (start + 1 + end) / 2.0
        if end - start > 1:
            tie_sizes.append(end - start)
        start = end
    return ranks, tie_sizes


def _signed_rank_counts(n: int) -> list[int]:
    """Number of subsets of {1..n} with each rank sum 0..n(n+1)/2 (exact null law)."""
    counts = [1] + [0] * (n * (n + 1) // 2)
    for r in range(1, n + 1):
        for s in range(r * (r + 1) // 2, r - 1, -1):
            counts[s] += counts[s - r]
    return counts


def wilcoxon_signed_rank(x: ArrayLike, y: ArrayLike) -> WilcoxonResult:
    """Two-sided Wilcoxon signed-rank test on d = x - y.

    Zero differences are dropped (Wilcoxon's "wilcox" zero method), then |d| is ranked
    with tied values sharing their average rank. The p-value is exact (full null
    distribution of W+) when n <= 50 and no |d| is tied; otherwise it is the normal
    approximation with the tie correction to the variance and a continuity correction of
    0.5 toward the mean (as `scipy.stats.wilcoxon(..., correction=True,
    method="asymptotic")`, except that |W+ - mean| < 0.5 gives p = 1). With no non-zero
    difference, p = 1.

    >>> r = wilcoxon_signed_rank([5, 6, 7, 9], [1, 1, 1, 1])
    >>> (r.w_plus, r.w_minus, r.p_value, r.method)
    (10.0, 0.0, 0.125, 'exact')
    """
    d = _differences(x, y)
    nonzero = d[d != 0]
    n = int(nonzero.size)
    n_zero = int(d.size - n)
    if n == 0:
        return WilcoxonResult(n, n_zero, 0.0, 0.0, 0.0, 1.0, "exact")
    ranks, tie_sizes = _average_ranks(np.abs(nonzero))
    w_plus = float(ranks[nonzero > 0].sum())
    w_minus = float(ranks[nonzero < 0].sum())
    statistic = min(w_plus, w_minus)
    if not tie_sizes and n <= WILCOXON_EXACT_MAX:
        counts = _signed_rank_counts(n)
        tail = sum(counts[: int(statistic) + 1])
        p = min(1.0, 2.0 * tail / (1 << n))
        return WilcoxonResult(n, n_zero, w_plus, w_minus, statistic, p, "exact")
    mean = n * (n + 1) / 4.0
    variance = n * (n + 1) * (2 * n + 1) / 24.0 - sum(t**3 - t for t in tie_sizes) / 48.0
    distance = max(abs(w_plus - mean) - 0.5, 0.0)
    z = distance / math.sqrt(variance) if variance > 0 else 0.0
    p = min(1.0, math.erfc(z / math.sqrt(2.0)))
    return WilcoxonResult(n, n_zero, w_plus, w_minus, statistic, p, "normal", z=-z)


def holm_adjust(pvalues: Sequence[float] | ArrayLike) -> list[float]:
    """Holm-Bonferroni step-down adjusted p-values, in the input order.

    Sorted ascending, the i-th smallest (0-based) becomes max over j <= i of
    min(1, (m - j) p_(j)). Controls the family-wise error rate without independence.

    >>> holm_adjust([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise EarmarkError("expected a 1-D list of p-values", field="pvalues")
    if np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise EarmarkError("p-values must lie in [0, 1]", field="pvalues")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m, dtype=np.float64)
    adjusted[order] = np.maximum.accumulate(scaled)
    return [float(v) for v in adjusted]


@dataclass(frozen=True, slots=True)
class McNemarResult:
    """McNemar's test on sentence-level correct/incorrect, as NIST sc_stats runs it."""

    both_correct: int
    only_x_correct: int
    """Sentences x got right and y got wrong (y made at least one error)."""
    only_y_correct: int
    both_wrong: int
    p_value: float
    method: str = "exact binomial (two-sided)"

    def to_dict(self) -> StatRecord:
        return asdict(self)


def mcnemar_test(x: ArrayLike, y: ArrayLike) -> McNemarResult:
    """McNemar's test on paired per-sentence error counts (a sentence is correct at 0).

    Only the discordant sentences count: with b = only x correct and c = only y correct,
    p = min(1, 2 P(X <= min(b, c))) for X ~ Binomial(b + c, 1/2), the exact binomial
    form sclite's sc_stats uses (`sentmcn.c`); b == c (including none) gives p = 1. No
    chi-square or continuity correction: the exact tail is available at every size.

    >>> mcnemar_test([0, 0, 1, 2, 0, 3], [1, 2, 0, 4, 3, 0]).p_value
    1.0
    >>> mcnemar_test([0] * 6, [1] * 6).p_value
    0.03125
    """
    d = _differences(x, y)  # validates shapes and values
    del d
    x_ok = np.asarray(x, dtype=np.float64) == 0
    y_ok = np.asarray(y, dtype=np.float64) == 0
    b = int(np.count_nonzero(x_ok & ~y_ok))
    c = int(np.count_nonzero(~x_ok & y_ok))
    n = b + c
    p = 1.0 if b == c else min(1.0, 2.0 * _binomial_half_cdf(min(b, c), n))
    return McNemarResult(
        both_correct=int(np.count_nonzero(x_ok & y_ok)),
        only_x_correct=b,
        only_y_correct=c,
        both_wrong=int(np.count_nonzero(~x_ok & ~y_ok)),
        p_value=p,
    )


#: sclite's default minimum run of words both systems got right that closes a segment.
MAPSSWE_MIN_GOOD = 2


_LETTERS = frozenset("CSDI")
_C, _I = ord("C"), ord("I")

IntArray = NDArray[np.int64]


def mapsswe_segments(
    x_evals: str, y_evals: str, min_good: int = MAPSSWE_MIN_GOOD
) -> list[tuple[int, int, int]]:
    """(reference words, x errors, y errors) of each MAPSSWE segment of one sentence.

    `x_evals` and `y_evals` are the two systems' alignments to the *same* reference, one
    letter per aligned column: C (correct), S, D (each on one reference word) or I (an
    inserted word). A segment is a stretch of the sentence bounded on each side by
    `min_good` consecutive reference words that *both* systems got right (or by the
    sentence edge); an insertion by either system breaks such a run. The bounding words
    belong to the segment, so neighbouring segments may share them. Segments where
    neither system errs are not segments. This is the state machine of sclite's
    `mtchprs.c` (states b, e, g), run until *both* alignments are used up, so trailing
    insertions of either system count (sc_stats counts them too); `segment_columns`
    finds the same segments for many sentences at once.

    >>> mapsswe_segments("CSCCCIC", "CCCCCC")
    [(4, 1, 0), (3, 1, 0)]
    """
    if min_good < 1:
        raise EarmarkError("min_good must be at least 1", field="min_good")
    for name, evals in (("x_evals", x_evals), ("y_evals", y_evals)):
        if not _LETTERS.issuperset(evals):
            raise EarmarkError("evaluation letters are C, S, D and I", field=name)
    _, refs, errors_x, errors_y = segment_columns([x_evals], [y_evals], min_good)
    return list(zip(refs.tolist(), errors_x.tolist(), errors_y.tolist(), strict=True))


def segment_columns(
    x_evals: Sequence[str], y_evals: Sequence[str], min_good: int = MAPSSWE_MIN_GOOD
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """`mapsswe_segments` of many sentences as columns (sentence index, reference words,
    x errors, y errors), in sentence order, with numpy over all their letters at once
    and without checking the letters: for letters earmark's own alignment wrote (a
    comparison segments 100,000s of sentences; a column-by-column loop was most of
    MAPSSWE's time). A sentence whose two alignments cover different numbers of
    reference words is refused.

    The state machine in words: both alignments cover the same reference words, so it
    walks them in step. A word is good when both systems have C there; a run of good
    words is broken by a word that is not good or by an insertion (either system's)
    before a word. A run bounds when it has `min_good` words or more, or when it opens
    the sentence (the machine starts between segments). A segment ends at the
    `min_good`-th word of a bounding run and starts `min_good - 1` columns before the
    last word of the previous bounding run (or at the sentence start); what follows the
    last bounding run is the final segment, unless that run ends the sentence in both
    alignments (no trailing insertion)."""
    same = x_evals is y_evals  # one alignment on both sides: its letters read once
    found = []
    for at in range(0, max(len(x_evals), 1), _CHUNK):
        x = _Letters(x_evals[at : at + _CHUNK])
        y = x if same else _Letters(y_evals[at : at + _CHUNK])
        sentence, refs, errors_x, errors_y = _chunk_segments(x, y, min_good)
        found.append((sentence + at, refs, errors_x, errors_y))
    sentence, refs, errors_x, errors_y = (np.concatenate(c) for c in zip(*found, strict=True))
    return sentence, refs, errors_x, errors_y


#: Sentences segmented per numpy pass: a few arrays per letter live at once, so a
#: bounded chunk keeps them small (and in cache) however many sentences there are.
_CHUNK = 2048


class _Letters:
    """One system's letters of a chunk of sentences, joined, with what segmenting reads:
    where each sentence starts, the column of each reference word (not I), and prefix
    counts of reference words and of errors (not C), so a span's count is a difference."""

    def __init__(self, evals: Sequence[str]) -> None:
        self.at = np.zeros(len(evals) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, evals), dtype=np.int64, count=len(evals)), out=self.at[1:])
        letters = np.frombuffer("".join(evals).encode("ascii"), dtype=np.uint8)
        is_word = letters != _I
        self.words: IntArray = np.flatnonzero(is_word)
        self.correct: NDArray[np.bool_] = letters[self.words] == _C
        self.word_counts = _prefix_counts(is_word)
        self.error_counts = _prefix_counts(letters != _C)

    def words_per_sentence(self) -> IntArray:
        """Reference words (columns not I) of each sentence."""
        return self.word_counts[self.at[1:]] - self.word_counts[self.at[:-1]]

    def gap_before(self, first: NDArray[np.bool_], sentence: IntArray) -> NDArray[np.bool_]:
        """Per word: some column (an insertion) lies between it and the previous word
        of its sentence, or the sentence start."""
        expected = np.empty(self.words.size, dtype=np.int64)
        expected[1:] = self.words[:-1] + 1
        expected[first] = self.at[sentence[first]]
        gap: NDArray[np.bool_] = self.words != expected
        return gap

    def span_counts(self, start: IntArray, stop: IntArray) -> tuple[IntArray, IntArray]:
        """Reference words and errors in each span [start, stop) of the joined letters."""
        words, errors = self.word_counts, self.error_counts
        return words[stop] - words[start], errors[stop] - errors[start]


def _prefix_counts(mask: NDArray[np.bool_]) -> IntArray:
    """counts[i] = how many of mask[:i] are set."""
    counts = np.zeros(mask.size + 1, dtype=np.int64)
    np.cumsum(mask, out=counts[1:])
    return counts


def _chunk_segments(
    x: _Letters, y: _Letters, min_good: int
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """`segment_columns` of one chunk of sentences (sentence indices within it)."""
    n_words = x.words_per_sentence()
    if y is not x and not np.array_equal(n_words, y.words_per_sentence()):
        raise EarmarkError(
            "the two alignments cover different numbers of reference words",
            field="y_evals",
            hint="align both systems to the same reference",
        )
    sentence = np.repeat(np.arange(n_words.size, dtype=np.int64), n_words)
    first = np.ones(sentence.size, dtype=bool)
    first[1:] = sentence[1:] != sentence[:-1]
    broken = x.gap_before(first, sentence)
    if y is not x:
        broken |= y.gap_before(first, sentence)
    good = x.correct if y is x else x.correct & y.correct
    starts, ends, opening = _bounding_runs(good, first, broken, min_good)
    owner = sentence[starts]
    last = _last_per_sentence(owner, ends, n_words.size)
    owners, opened_by, close_word = _segment_ends(
        owner, starts, ends, opening, last, _ends_open(x, y, last), min_good
    )
    refs_x, errors_x = x.span_counts(*_spans(x, owners, opened_by, close_word, min_good))
    if y is x:
        refs_y, errors_y = refs_x, errors_x
    else:
        refs_y, errors_y = y.span_counts(*_spans(y, owners, opened_by, close_word, min_good))
    kept = (errors_x + errors_y) > 0
    refs = (refs_x + refs_y) // 2
    return owners[kept], refs[kept], errors_x[kept], errors_y[kept]


def _bounding_runs(
    good: NDArray[np.bool_], first: NDArray[np.bool_], broken: NDArray[np.bool_], min_good: int
) -> tuple[IntArray, IntArray, NDArray[np.bool_]]:
    """First and last word of each run of good words that bounds a segment (`min_good`
    words or more, or opening its sentence), and whether it opens its sentence."""
    goes_on = good & ~first & ~broken
    goes_on[1:] &= good[:-1]
    starts = np.flatnonzero(good & ~goes_on)
    next_goes_on = np.zeros(goes_on.size, dtype=bool)
    next_goes_on[:-1] = goes_on[1:]
    ends = np.flatnonzero(good & ~next_goes_on)
    opening = first[starts] & ~broken[starts]
    bounding = opening | (ends - starts + 1 >= min_good)
    return starts[bounding], ends[bounding], opening[bounding]


def _last_per_sentence(owner: IntArray, ends: IntArray, n: int) -> IntArray:
    """Per sentence: the last word of its last bounding run (-1: none); the runs are in
    order, with their sentences (`owner`)."""
    last = np.full(n, -1, dtype=np.int64)
    is_last = np.ones(owner.size, dtype=bool)
    is_last[:-1] = owner[1:] != owner[:-1]
    last[owner[is_last]] = ends[is_last]
    return last


def _ends_open(x: _Letters, y: _Letters, last: IntArray) -> NDArray[np.bool_]:
    """Per sentence: whether the machine ends inside a segment. It ends between segments
    only after a bounding run that reaches both alignments' last column (`last`: each
    sentence's last bounding word), or in a sentence without any column."""
    inside = (x.at[1:] > x.at[:-1]) | (y.at[1:] > y.at[:-1])
    has = np.flatnonzero(last >= 0)
    word = last[has]
    reaches = (x.words[word] + 1 == x.at[has + 1]) & (y.words[word] + 1 == y.at[has + 1])
    inside[has[reaches]] = False
    return inside


def _segment_ends(
    owner: IntArray,
    starts: IntArray,
    ends: IntArray,
    opening: NDArray[np.bool_],
    last: IntArray,
    open_at_end: NDArray[np.bool_],
    min_good: int,
) -> tuple[IntArray, IntArray, IntArray]:
    """Each segment in order: its sentence, the last word of the bounding run before it
    (-1: none, it starts with its sentence) and its closing word (-1: it runs to the
    sentence's end). A bounding run that does not open its sentence closes one; a
    sentence the machine ends inside of has a final one after its `last` run."""
    before = np.full(starts.size, -1, dtype=np.int64)
    same = np.flatnonzero(owner[1:] == owner[:-1]) + 1
    before[same] = ends[same - 1]
    closing = ~opening
    final = np.flatnonzero(open_at_end)
    keys = np.concatenate([owner[closing] * 2, final * 2 + 1])
    order = np.argsort(keys, kind="stable")
    owners = np.concatenate([owner[closing], final])[order]
    opened_by = np.concatenate([before[closing], last[final]])[order]
    close_word = np.concatenate(
        [starts[closing] + (min_good - 1), np.full(final.size, -1, dtype=np.int64)]
    )[order]
    return owners, opened_by, close_word


def _spans(
    letters: _Letters, owners: IntArray, opened_by: IntArray, close_word: IntArray, min_good: int
) -> tuple[IntArray, IntArray]:
    """Each segment's columns [start, stop) in one system's joined letters: from
    `min_good - 1` columns before the word that opens it (not before its sentence), to
    its closing word, or to its sentence's end."""
    begin = letters.at[owners]
    start = begin.copy()
    opened = opened_by >= 0
    start[opened] = np.maximum(letters.words[opened_by[opened]] - (min_good - 1), begin[opened])
    stop = letters.at[owners + 1]
    closes = close_word >= 0
    stop[closes] = letters.words[close_word[closes]] + 1
    return start, stop


@dataclass(frozen=True, slots=True)
class MapssweResult:
    """NIST's Matched Pairs Sentence-Segment Word Error test (Gillick & Cox 1989)."""

    n_segments: int
    min_good: int
    errors_x: int
    errors_y: int
    reference_words: int
    mean_difference: float | None
    """Mean over segments of (x errors - y errors): positive when y makes fewer."""
    std_dev: float | None
    z: float | None
    p_value: float | None
    null_reason: str | None = None

    def to_dict(self) -> StatRecord:
        return asdict(self)


def mapsswe_test(
    sentences: Iterable[tuple[str, str]], min_good: int = MAPSSWE_MIN_GOOD
) -> MapssweResult:
    """MAPSSWE over sentences given as (x evaluation letters, y evaluation letters).

    Per segment (`mapsswe_segments`) the difference z_i = x errors - y errors; with n
    segments, mean m and sample standard deviation s (divisor n - 1), W = m / (s /
    sqrt(n)) and p = 2 (1 - Phi(|W|)), the normal approximation sc_stats uses. No
    segment (neither system errs anywhere), or all differences 0, gives p = 1. When
    every difference is the same non-zero value (s = 0), W is undefined: p is null with
    that reason (sc_stats prints Z = 0 and "no difference" there).

    >>> r = mapsswe_test([("CSCCCCCS", "CCCCCCCC"), ("CCCC", "CCDC"), ("CC", "CCI")])
    >>> (r.n_segments, r.errors_x, r.errors_y, r.mean_difference)
    (4, 2, 2, 0.0)
    """
    return mapsswe_from_segments(
        (seg for x, y in sentences for seg in mapsswe_segments(x, y, min_good)), min_good
    )


def mapsswe_from_segments(
    segments: Iterable[tuple[int, int, int]], min_good: int = MAPSSWE_MIN_GOOD
) -> MapssweResult:
    """`mapsswe_test` from segments already found (`mapsswe_segments` of each sentence, in
    sentence order): a caller testing several subsets of the same sentences finds each
    sentence's segments once."""
    table = np.asarray(list(segments), dtype=np.int64).reshape(-1, 3)
    return mapsswe_from_columns(table[:, 0], table[:, 1], table[:, 2], min_good)


def mapsswe_from_columns(
    reference_words: NDArray[np.int64],
    errors_x: NDArray[np.int64],
    errors_y: NDArray[np.int64],
    min_good: int = MAPSSWE_MIN_GOOD,
) -> MapssweResult:
    """`mapsswe_from_segments` with the segments as three columns, in the same order (a
    comparison of 100,000 sentences holds them as arrays, not as tuples)."""
    diffs = (errors_x - errors_y).astype(np.float64)
    n = int(diffs.size)

    def result(
        mean: float | None, sd: float | None, z: float | None, p: float | None, why: str | None
    ) -> MapssweResult:
        return MapssweResult(
            n_segments=n,
            min_good=min_good,
            errors_x=int(errors_x.sum()),
            errors_y=int(errors_y.sum()),
            reference_words=int(reference_words.sum()),
            mean_difference=mean,
            std_dev=sd,
            z=z,
            p_value=p,
            null_reason=why,
        )

    if not n:
        return result(None, None, None, 1.0, None)
    mean = float(diffs.mean())
    if not np.any(diffs != diffs[0]):
        if mean == 0.0:
            return result(0.0, 0.0, 0.0, 1.0, None)
        why = (
            "every segment differs by the same count (zero variance): "
            "the normal statistic is undefined"
        )
        return result(mean, 0.0, None, None, why)
    sd = float(diffs.std(ddof=1))
    z = mean / (sd / math.sqrt(diffs.size))
    return result(mean, sd, z, min(1.0, math.erfc(abs(z) / math.sqrt(2.0))), None)
