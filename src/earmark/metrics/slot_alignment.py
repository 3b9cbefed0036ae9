"""Alignment against reference *slots*: alternate spellings and optionally deletable words.

sclite lets a reference say "any of these spellings is right" (`{ ok / okay }`), "this
word may be missing" (`(uh)`, scored with `sclite -D`) and "this may be nothing at all"
(`{ um / @ }`). Rewriting the text cannot express these without changing the reference
per system, so they are applied while aligning: each reference position is a `Slot`
holding the set of tokens it accepts, and how it may go missing.

Costs are sclite's (SCTK `word.c`, `wwd_WORD`): correct 0, substitution 4, insertion
and deletion 3, deletion of an optional word `(uh)` 2, skipping an `@` alternative
0.001 (kept exact in integer thousandths). What is counted follows `sclite -D`:

- a hypothesis token in the slot's set is Correct (an alternation matched);
- an optional slot `(uh)` left out is Correct and stays in # Wrd (N is the same for
  every system); it can still be substituted, if that is cheaper;
- a skippable slot (`@` among the alternatives) left out is not counted at all: the
  reference took its empty path.

The dynamic program is O(n·m), with sclite's tie rule cell by cell (diagonal, then
deletion, then insertion; `metrics.sclite_alignment` states it); slots of one plain word
each are `align_sclite`. sclite aligns alternations as a network, and where
two paths cost the same its network search can split S/D/I differently from this slot
DP (the total cost is the same; seen in about 1 utterance in 1,000 of random tests
drawn from a 6-word vocabulary, where equal-cost paths are common).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from earmark.metrics.alignment import AlignedOp, Alignment, OpKind
from earmark.metrics.counts import ErrorCounts

_DIAG, _DEL, _INS = 0, 1, 2
#: Costs in thousandths, so that sclite's 0.001 for skipping an `@` stays exact.
_SCALE = 1000
_NULL_SKIP = 1


@dataclass(frozen=True, slots=True)
class Slot:
    """One reference position: the tokens it accepts (the first is how it is shown),
    whether it is an optional word `(uh)` and whether it may be skipped (`@`)."""

    accepts: tuple[str, ...]
    optional: bool = False
    skippable: bool = False

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
    optional_deletion: int = 2,
) -> Alignment:
    """Align hypothesis tokens to reference slots (see the module docstring).

    >>> ref = [Slot.word("i"), Slot(("ok", "okay")), Slot(("uh",), optional=True)]
    >>> align_slots(ref, ["i", "okay"]).counts
    ErrorCounts(substitutions=0, deletions=0, insertions=0, hits=3)
    >>> [op.ref for op in align_slots(ref, ["i", "okay"]).ops]
    ['i', 'okay', '(uh)']
    """
    n, m = len(slots), len(hypothesis)
    substitution, indel = substitution * _SCALE, indel * _SCALE
    optional_deletion *= _SCALE
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    back = [[_DIAG] * (m + 1) for _ in range(n + 1)]
    for j in range(1, m + 1):
        cost[0][j] = cost[0][j - 1] + indel
        back[0][j] = _INS
    for i in range(1, n + 1):
        slot = slots[i - 1]
        accepts = frozenset(slot.accepts)
        drop = _NULL_SKIP if slot.skippable else optional_deletion if slot.optional else indel
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
            if not slot.skippable:
                kind = "equal" if slot.optional else "delete"
                ops.append(AlignedOp(kind, slot.shown, None, i - 1, None))
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


__all__ = ["Slot", "align_slots", "counts_of"]
