"""NIST sclite's weighted word alignment, for results that must split errors as sclite does.

earmark's default alignment (`metrics.alignment`) minimises the number of edits S + D + I
with rapidfuzz's tie rule. sclite instead minimises a weighted cost: a correct word costs
0, an insertion or deletion 3, a substitution 4 (`wwd_WORD` in SCTK's `word.c`). The two
agree on most pairs but split equal-edit alternatives differently: ref `a b` / hyp `b c`
is two substitutions for earmark (2 edits, cost 8 for sclite) and one deletion plus one
insertion for sclite (also 2 edits, cost 6). Rarely the weighted optimum even has one
edit more (five substitutions cost 20, three deletions and three insertions 18).

Tie rule, as sclite's dynamic program (`net_dp.c`) resolves it, cell by cell: with
`diag` the cost through the diagonal (match or substitution), `del` and `ins` the costs
through a deletion and an insertion, the cell takes the diagonal when `diag <= del` and
`diag <= ins`, else the deletion when `del < ins`, else the insertion. The first row is
all insertions, the first column all deletions, and the path is traced back from the
bottom-right cell. Words are compared exactly (sclite folds case unless `-s`; earmark's
normalisers have already chosen the case).
"""

from __future__ import annotations

from collections.abc import Sequence

from earmark.metrics.alignment import AlignedOp, Alignment, OpKind
from earmark.metrics.counts import ErrorCounts

#: sclite's default word-weight costs (SCTK `wwd_WORD`).
SCLITE_COSTS = {"correct": 0, "substitution": 4, "insertion": 3, "deletion": 3}

_DIAG, _DEL, _INS = 0, 1, 2


def align_sclite(
    reference: Sequence[str],
    hypothesis: Sequence[str],
    *,
    substitution: int = 4,
    indel: int = 3,
) -> Alignment:
    """The alignment sclite reports for one pair (weights sub=4, ins=del=3 by default).

    >>> [op.kind for op in align_sclite(["a", "b"], ["b", "c"]).ops]
    ['delete', 'equal', 'insert']
    >>> align_sclite(["a", "b"], ["b", "c"]).counts
    ErrorCounts(substitutions=0, deletions=1, insertions=1, hits=1)
    """
    n, m = len(reference), len(hypothesis)
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    back = [[_DIAG] * (m + 1) for _ in range(n + 1)]
    for j in range(1, m + 1):
        cost[0][j] = cost[0][j - 1] + indel
        back[0][j] = _INS
    for i in range(1, n + 1):
        cost[i][0] = cost[i - 1][0] + indel
        back[i][0] = _DEL
        row, above = cost[i], cost[i - 1]
        brow = back[i]
        ref_word = reference[i - 1]
        for j in range(1, m + 1):
            diag = above[j - 1] + (0 if ref_word == hypothesis[j - 1] else substitution)
            delete = above[j] + indel
            insert = row[j - 1] + indel
            if diag <= delete and diag <= insert:
                row[j], brow[j] = diag, _DIAG
            elif delete < insert:
                row[j], brow[j] = delete, _DEL
            else:
                row[j], brow[j] = insert, _INS
    ops: list[AlignedOp] = []
    i, j = n, m
    while i > 0 or j > 0:
        step = back[i][j]
        if step == _DIAG:
            kind: OpKind = "equal" if reference[i - 1] == hypothesis[j - 1] else "substitute"
            ops.append(AlignedOp(kind, reference[i - 1], hypothesis[j - 1], i - 1, j - 1))
            i, j = i - 1, j - 1
        elif step == _DEL:
            ops.append(AlignedOp("delete", reference[i - 1], None, i - 1, None))
            i -= 1
        else:
            ops.append(AlignedOp("insert", None, hypothesis[j - 1], None, j - 1))
            j -= 1
    ops.reverse()
    return Alignment(tuple(ops), counts_of(ops))


def counts_of(ops: Sequence[AlignedOp]) -> ErrorCounts:
    """S, D, I and hits of a column-by-column alignment."""
    tally = {"equal": 0, "substitute": 0, "delete": 0, "insert": 0}
    for op in ops:
        tally[op.kind] += 1
    return ErrorCounts(tally["substitute"], tally["delete"], tally["insert"], tally["equal"])


__all__ = ["SCLITE_COSTS", "align_sclite", "counts_of"]
