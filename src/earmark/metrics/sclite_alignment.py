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

from earmark.metrics.alignment import Alignment
from earmark.metrics.slot_alignment import Slot, align_slots

#: sclite's default word-weight costs (SCTK `wwd_WORD`).
SCLITE_COSTS = {"correct": 0, "substitution": 4, "insertion": 3, "deletion": 3}


def align_sclite(
    reference: Sequence[str],
    hypothesis: Sequence[str],
    *,
    substitution: int = 4,
    indel: int = 3,
) -> Alignment:
    """The alignment sclite reports for one pair (weights sub=4, ins=del=3 by default).

    One dynamic program serves both this and reference slots with alternates: a plain
    reference is a slot of one word per position (`metrics.slot_alignment`).

    >>> [op.kind for op in align_sclite(["a", "b"], ["b", "c"]).ops]
    ['delete', 'equal', 'insert']
    >>> align_sclite(["a", "b"], ["b", "c"]).counts
    ErrorCounts(substitutions=0, deletions=1, insertions=1, hits=1)
    """
    slots = [Slot.word(word) for word in reference]
    return align_slots(slots, hypothesis, substitution=substitution, indel=indel)


_LETTER = {"equal": "C", "substitute": "S", "delete": "D", "insert": "I"}


def sclite_evaluation_letters(reference: Sequence[str], hypothesis: Sequence[str]) -> str:
    """One letter (C, S, D, I) per column of sclite's alignment: the `<PATH>` evaluation
    sc_stats segments for MAPSSWE (what `sclite -o sgml` writes).

    >>> sclite_evaluation_letters(["a", "b"], ["b", "c"])
    'DCI'
    """
    return "".join(_LETTER[op.kind] for op in align_sclite(reference, hypothesis).ops)
