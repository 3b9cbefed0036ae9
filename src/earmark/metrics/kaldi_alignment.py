"""Kaldi's split of the errors, for results that must publish S/D/I as `compute-wer` does.

Kaldi's `compute-wer` counts with `LevenshteinEditDistance` (util/edit-distance-inl.h):
a forward dynamic program over the reference (rows) and the hypothesis (columns), unit
costs, in which each cell copies the running S/D/I of the one predecessor it chooses.
With `sub` the cost through the diagonal (a match costs 0, a substitution 1), `del` the
cost through deleting the reference unit and `ins` through inserting the hypothesis
unit, the cell takes

1. the diagonal only when `sub < ins` and `sub < del` (strictly),
2. else the deletion when `del < ins`,
3. else the insertion.

So a tie between a substitution (or even a match) and a deletion goes to the deletion,
and any tie with an insertion to the insertion: the total S + D + I is the edit distance,
as with earmark's and sclite's rules, but the split can differ on tie-heavy data (phone
strings, repeated words). The first row is all insertions, the first column all
deletions. The columns `align_kaldi` returns follow the chosen predecessors back from the
last cell, so they add up to the counts `compute-wer` prints.

Ties side by side: ref `a b` / hyp `b c` is two substitutions for earmark (rapidfuzz)
and a deletion, a match and an insertion for sclite and Kaldi; ref `a b` / hyp `b a` is
insert `b`, match `a`, delete `b` for earmark and delete `a`, match `b`, insert `a` for
Kaldi. docs/alignment.md has the three rules in one table. The columns equal
`kaldialign.align`'s and the counts `kaldialign.edit_distance`'s (tests/metrics).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from earmark.metrics.alignment import AlignedOp, Alignment
from earmark.metrics.counts import ErrorCounts

_DIAGONAL, _DELETE, _INSERT = 0, 1, 2


def _choices(reference: Sequence[Hashable], hypothesis: Sequence[Hashable]) -> list[bytearray]:
    """Each cell's chosen predecessor (`_DIAGONAL`, `_DELETE`, `_INSERT`), by Kaldi's rule."""
    n_hyp = len(hypothesis)
    prev = list(range(n_hyp + 1))
    rows = [bytearray([_INSERT] * (n_hyp + 1))]
    for j, ref_unit in enumerate(reference, 1):
        cur = [j] + [0] * n_hyp
        row = bytearray(n_hyp + 1)
        row[0] = _DELETE
        for i in range(1, n_hyp + 1):
            ins = cur[i - 1] + 1
            dele = prev[i] + 1
            sub = prev[i - 1] + (hypothesis[i - 1] != ref_unit)
            if sub < ins and sub < dele:
                cur[i] = sub
            elif dele < ins:
                cur[i], row[i] = dele, _DELETE
            else:
                cur[i], row[i] = ins, _INSERT
        rows.append(row)
        prev = cur
    return rows


def _path(
    reference: Sequence[Hashable], hypothesis: Sequence[Hashable]
) -> list[tuple[int, int, int]]:
    """(step, reference index, hypothesis index) of each column, first to last."""
    rows = _choices(reference, hypothesis)
    steps: list[tuple[int, int, int]] = []
    j, i = len(reference), len(hypothesis)
    while j or i:
        step = rows[j][i]
        j -= step != _INSERT
        i -= step != _DELETE
        steps.append((step, j, i))
    steps.reverse()
    return steps


def align_kaldi(reference: Sequence[str], hypothesis: Sequence[str]) -> Alignment:
    """The alignment whose counts `compute-wer` prints for one pair (see the module).

    >>> align_kaldi(["a", "b"], ["b", "c"]).counts
    ErrorCounts(substitutions=0, deletions=1, insertions=1, hits=1)
    >>> [op.kind for op in align_kaldi(["a", "b"], ["b", "a"]).ops]
    ['delete', 'equal', 'insert']
    """
    ops: list[AlignedOp] = []
    subs = dels = ins = hits = 0
    for step, j, i in _path(reference, hypothesis):
        if step == _DELETE:
            dels += 1
            ops.append(AlignedOp("delete", reference[j], None, j, None))
        elif step == _INSERT:
            ins += 1
            ops.append(AlignedOp("insert", None, hypothesis[i], None, i))
        elif reference[j] == hypothesis[i]:
            hits += 1
            ops.append(AlignedOp("equal", reference[j], hypothesis[i], j, i))
        else:
            subs += 1
            ops.append(AlignedOp("substitute", reference[j], hypothesis[i], j, i))
    return Alignment(tuple(ops), ErrorCounts(subs, dels, ins, hits))


def count_errors_kaldi(
    reference: Sequence[Hashable], hypothesis: Sequence[Hashable]
) -> ErrorCounts:
    """S, D, I and hits of one pair as Kaldi's `compute-wer` counts them.

    >>> count_errors_kaldi("a b".split(), "b c".split())
    ErrorCounts(substitutions=0, deletions=1, insertions=1, hits=1)
    """
    subs = dels = ins = 0
    for step, j, i in _path(reference, hypothesis):
        if step == _DELETE:
            dels += 1
        elif step == _INSERT:
            ins += 1
        else:
            subs += reference[j] != hypothesis[i]
    return ErrorCounts(subs, dels, ins, len(reference) - subs - dels)
