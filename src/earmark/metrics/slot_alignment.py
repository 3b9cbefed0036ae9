"""Alignment against reference *slots*: alternate spellings and optionally deletable words.

sclite lets a reference say "any of these spellings is right" (`{ ok / okay }`) and
"this word may be missing" (`(uh)`, scored with `sclite -D`). Rewriting the text cannot
express either without changing the reference per system, so both are applied while
aligning: each reference position is a `Slot` holding the set of tokens it accepts and
whether it may be deleted. A hypothesis token in the set is a hit at zero cost; an
optional slot with no hypothesis token is a hit at zero cost too (sclite counts it as
Correct, and it stays in # Wrd, so N is the same for every system).

The dynamic program is sclite's (`metrics.sclite_alignment`): O(n·m), weights
substitution 4 and insertion/deletion 3 by default, ties diagonal, then deletion, then
insertion. With `substitution=1, indel=1` it minimises edits instead. Slots with one
token and no optional flag give exactly `align_sclite`'s alignment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from earmark.metrics.alignment import AlignedOp, Alignment, OpKind
from earmark.metrics.sclite_alignment import counts_of

_DIAG, _DEL, _INS = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Slot:
    """One reference position: the tokens it accepts (the first is how it is shown)
    and whether it may be deleted at no cost."""

    accepts: tuple[str, ...]
    optional: bool = False

    @classmethod
    def word(cls, token: str) -> Slot:
        return cls((token,))

    @property
    def shown(self) -> str:
        """How reports print the slot: `(uh)` for an optional word, else its first token."""
        first = self.accepts[0] if self.accepts else ""
        return f"({first})" if self.optional else first


def align_slots(
    slots: Sequence[Slot],
    hypothesis: Sequence[str],
    *,
    substitution: int = 4,
    indel: int = 3,
) -> Alignment:
    """Align hypothesis tokens to reference slots (see the module docstring).

    >>> ref = [Slot.word("i"), Slot(("ok", "okay")), Slot(("uh",), optional=True)]
    >>> align_slots(ref, ["i", "okay"]).counts
    ErrorCounts(substitutions=0, deletions=0, insertions=0, hits=3)
    >>> [op.ref for op in align_slots(ref, ["i", "okay"]).ops]
    ['i', 'okay', '(uh)']
    """
    n, m = len(slots), len(hypothesis)
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    back = [[_DIAG] * (m + 1) for _ in range(n + 1)]
    for j in range(1, m + 1):
        cost[0][j] = cost[0][j - 1] + indel
        back[0][j] = _INS
    for i in range(1, n + 1):
        slot = slots[i - 1]
        accepts = frozenset(slot.accepts)
        drop = 0 if slot.optional else indel
        cost[i][0] = cost[i - 1][0] + drop
        back[i][0] = _DEL
        row, above, brow = cost[i], cost[i - 1], back[i]
        for j in range(1, m + 1):
            diag = above[j - 1] + (0 if hypothesis[j - 1] in accepts else substitution)
            delete = above[j] + drop
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
        step = back[i][j] if i > 0 else _INS
        if step == _DIAG:
            slot, word = slots[i - 1], hypothesis[j - 1]
            hit = word in slot.accepts
            kind: OpKind = "equal" if hit else "substitute"
            shown = (f"({word})" if slot.optional else word) if hit else slot.shown
            ops.append(AlignedOp(kind, shown, word, i - 1, j - 1))
            i, j = i - 1, j - 1
        elif step == _DEL:
            slot = slots[i - 1]
            kind = "equal" if slot.optional else "delete"
            ops.append(AlignedOp(kind, slot.shown, None, i - 1, None))
            i -= 1
        else:
            ops.append(AlignedOp("insert", None, hypothesis[j - 1], None, j - 1))
            j -= 1
    ops.reverse()
    return Alignment(tuple(ops), counts_of(ops))


__all__ = ["Slot", "align_slots"]
