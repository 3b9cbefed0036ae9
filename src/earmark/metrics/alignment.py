"""Minimum-edit alignment of a reference and a hypothesis, and its S/D/I/hit counts.

Everything here goes through rapidfuzz's Levenshtein `editops`, the same routine jiwer
uses underneath, so counts equal jiwer's `process_words` / `process_characters` exactly.

Units are whatever the sequences hold: a `str` is a sequence of code points (character
units); a list of words gives word units (see `earmark.metrics.tokens`).

Tie rule (when several minimum-edit alignments exist). This is rapidfuzz's backtrace,
stated so a reader can predict it and verified against a plain dynamic program in the
tests:

1. The longest common prefix, then the longest common suffix, are matched first.
2. On what is left, with D[i][j] the edit distance of the first i reference and first j
   hypothesis units, the path is traced back from the end. Among the steps that stay on
   a minimum-cost path it takes, in this order of preference: a **deletion** of the
   reference unit, a **substitution**, an **insertion** of the hypothesis unit, a
   **match**. (So edits are pushed towards the end, and when inserting a word and
   matching it cost the same, the match is kept for the earlier occurrence.)

Examples: ref `a b` / hyp `b a` aligns as insert `b`, match `a`, delete `b`;
ref `a a` / hyp `a` matches the first `a` and deletes the second.

Tokens that are not `str` are compared by rapidfuzz through their `hash()`; jiwer maps
words to integer ids instead. The two agree unless two different words collide on a
64-bit hash, which we accept (the id mapping would cost more than the alignment).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import itemgetter, mul
from typing import TYPE_CHECKING, Any, Literal

from rapidfuzz.distance import Levenshtein

from earmark.errors import EarmarkError
from earmark.metrics.counts import ErrorCounts

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

OpKind = Literal["equal", "substitute", "delete", "insert"]
Units = Literal["given", "words"]

__all__ = [
    "MAX_ALIGNMENT_CELLS",
    "AlignedOp",
    "Alignment",
    "AlignmentTooLarge",
    "EditTally",
    "align",
    "check_alignment_size",
    "count_errors",
    "count_errors_array",
    "count_errors_many",
]


#: Most cells (reference units x hypothesis units) one pair may be aligned over: about
#: 10 s of one core in rapidfuzz (~3e-10 s a cell). A 2-hour recording as one pair is
#: ~20k words (4e8 cells) or ~130k characters (1.7e10); a 400k x 400k-word pair (1.6e11,
#: minutes) is refused up front instead of running for ever.
MAX_ALIGNMENT_CELLS = 20_000_000_000


class AlignmentTooLarge(EarmarkError):
    """One pair would take more alignment cells than its limit allows.

    Raised before any work; `index` is the pair's position in a batch, so a caller that
    knows the utterance ids names it (`naming`)."""

    def __init__(self, n_ref: int, n_hyp: int, limit: int, *, index: int | None = None) -> None:
        self.n_ref, self.n_hyp, self.limit, self.index = n_ref, n_hyp, limit, index
        super().__init__(
            f"aligning {n_ref:,} reference units with {n_hyp:,} hypothesis units "
            f"({n_ref * n_hyp:,} cells) is over the limit of {limit:,} cells for one pair",
            hint="score a long recording in segments, or cut off a runaway hypothesis",
        )

    def naming(self, utterance: str) -> EarmarkError:
        """The same refusal, naming the utterance (one line)."""
        return EarmarkError(
            f"utterance {utterance!r}: {self.message}", field=self.field, hint=self.hint
        )


def check_alignment_size(
    n_ref: int, n_hyp: int, limit: int = MAX_ALIGNMENT_CELLS, *, index: int | None = None
) -> None:
    """Refuse a pair whose alignment would exceed `limit` cells (`AlignmentTooLarge`)."""
    if n_ref * n_hyp > limit:
        raise AlignmentTooLarge(n_ref, n_hyp, limit, index=index)


def _bounded(
    pairs: Iterable[tuple[Sequence[Hashable], Sequence[Hashable]]],
    units: Units,
    *,
    start: int = 0,
) -> Iterator[tuple[Sequence[Hashable], Sequence[Hashable]]]:
    """The pairs, each checked against `MAX_ALIGNMENT_CELLS` on the way through (the
    first at position `start`, which `AlignmentTooLarge` names).

    A text has at least as many characters as words, so the product of the lengths as
    given is checked first (one multiplication a pair); only a pair over it is split."""
    limit = MAX_ALIGNMENT_CELLS
    for k, pair in enumerate(pairs, start=start):
        reference, hypothesis = pair
        if len(reference) * len(hypothesis) > limit:
            if units == "words":
                reference, hypothesis = reference.split(), hypothesis.split()  # type: ignore[attr-defined]
            check_alignment_size(len(reference), len(hypothesis), limit, index=k)
        yield pair


def _refuse_oversized(
    pairs: Sequence[tuple[Sequence[Hashable], Sequence[Hashable]]], units: Units
) -> None:
    """Raise `AlignmentTooLarge` for the first pair over `MAX_ALIGNMENT_CELLS`, before
    any pair is counted: the products of the lengths as given in one C-level pass (a
    text has at least as many characters as words), `_bounded` only where one is over,
    so the counting loops carry no check per pair."""
    if not pairs:
        return
    lengths = map(mul, map(len, map(_FIRST, pairs)), map(len, map(_SECOND, pairs)))
    if max(lengths) > MAX_ALIGNMENT_CELLS:
        for _ in _bounded(pairs, units):
            pass


_FIRST, _SECOND = itemgetter(0), itemgetter(1)


@dataclass(frozen=True, slots=True)
class AlignedOp:
    """One column of an alignment; the side that has no unit is `None`."""

    kind: OpKind
    ref: str | None
    hyp: str | None
    ref_index: int | None
    hyp_index: int | None


@dataclass(frozen=True, slots=True)
class Alignment:
    """The aligned columns of one pair and the counts they imply."""

    ops: tuple[AlignedOp, ...]
    counts: ErrorCounts


@dataclass
class EditTally:
    """Substituted (ref, hyp) pairs, inserted and deleted units, counted over alignments.

    What the error analysis ranks. Filled by `count_errors_array(..., tallies=...)` in the
    same pass that counts S/D/I, so explaining the counts never aligns a pair twice.
    """

    substitutions: Counter[tuple[Hashable, Hashable]] = field(default_factory=Counter)
    insertions: Counter[Hashable] = field(default_factory=Counter)
    deletions: Counter[Hashable] = field(default_factory=Counter)

    def add_alignment(self, alignment: Alignment) -> None:
        """Count the edits of one column-by-column alignment (as `align` returns it)."""
        for op in alignment.ops:
            if op.kind == "substitute":
                self.substitutions[(op.ref, op.hyp)] += 1
            elif op.kind == "insert":
                self.insertions[op.hyp] += 1
            elif op.kind == "delete":
                self.deletions[op.ref] += 1


def _substitutions(
    reference: Sequence[Hashable], hypothesis: Sequence[Hashable]
) -> tuple[int, int]:
    """(distance, substitutions) from one rapidfuzz call."""
    edits = Levenshtein.editops(reference, hypothesis)
    forced = _forced_substitutions(len(edits), len(reference), len(hypothesis))
    if forced is not None:
        return len(edits), forced
    subs = 0
    for op in edits.as_list():
        if op[0] == "replace":
            subs += 1
    return len(edits), subs


def _forced_substitutions(dist: int, n_ref: int, n_hyp: int) -> int | None:
    """S of every minimum-edit alignment of a pair, where its distance and lengths alone
    fix it; else None (the alignment's operations decide).

    S + D + I = dist and D - I = n_ref - n_hyp give S + 2 * min(D, I) = dist -
    |n_ref - n_hyp|, so when that is 0 or 1, min(D, I) = 0 and S is it, whichever
    alignment a tie rule picks.

    >>> _forced_substitutions(1, 3, 3), _forced_substitutions(2, 5, 3)
    (1, 0)
    >>> _forced_substitutions(2, 2, 2) is None  # "ab"/"ba": 2 S, or 1 D + 1 I
    True
    """
    forced = dist - abs(n_ref - n_hyp)
    return forced if forced <= 1 else None


def _split(dist: int, subs: int, n_ref: int, n_hyp: int) -> tuple[int, int, int, int]:
    # D + I = dist - S and D - I = n_ref - n_hyp fix D and I once S is known.
    indels = dist - subs
    deletions = (indels + n_ref - n_hyp) // 2
    insertions = indels - deletions
    return subs, deletions, insertions, n_ref - subs - deletions


def count_errors(reference: Sequence[Hashable], hypothesis: Sequence[Hashable]) -> ErrorCounts:
    """S, D, I and hits of the rapidfuzz/jiwer alignment of one pair.

    >>> count_errors("the cat sat".split(), "the cat sat down".split())
    ErrorCounts(substitutions=0, deletions=0, insertions=1, hits=3)
    >>> count_errors("", "ab")
    ErrorCounts(substitutions=0, deletions=0, insertions=2, hits=0)
    """
    check_alignment_size(len(reference), len(hypothesis))
    dist, subs = _substitutions(reference, hypothesis)
    return ErrorCounts(*_split(dist, subs, len(reference), len(hypothesis)))


def count_errors_array(
    pairs: Iterable[tuple[Sequence[Hashable], Sequence[Hashable]]],
    *,
    units: Units = "given",
    tallies: Sequence[EditTally | None] | None = None,
    distinct: list[int] | None = None,
) -> npt.NDArray[np.int64]:
    """Counts of many pairs as an n x 4 int64 array of columns S, D, I, hits.

    The batch path the scorer uses: one tight loop, no per-pair objects, so 100k pairs
    take well under a second. `units="words"` whitespace-splits two strings per pair
    inside the loop (as `tokens.words`); `"given"` aligns the sequences as they are (a
    `str` is then character units). Sum the rows (`arr.sum(axis=0)`) for micro totals.

    `tallies`, one entry per pair (several pairs may share one `EditTally`, e.g. all rows
    of a language), records each pair's substituted, inserted and deleted units from the
    same alignment; `None` entries are not recorded. A pair over `MAX_ALIGNMENT_CELLS`
    raises `AlignmentTooLarge` (with its position) before any pair is counted.
    `distinct`, a list, receives the number of distinct units of each pair's hypothesis
    (from the split the count made: what a caller screening for repeated units needs).
    """
    import numpy as np

    if units not in ("given", "words"):
        raise ValueError(f"units must be 'given' or 'words', not {units!r}")
    batch: Sequence[tuple[Sequence[Hashable], Sequence[Hashable]]] = (
        pairs if isinstance(pairs, Sequence) else list(pairs)
    )
    _refuse_oversized(batch, units)
    if tallies is not None or distinct is not None:
        if tallies is None:
            tallies = [None] * len(batch)
        return _count_and_tally(batch, units, tallies, distinct)
    editops = Levenshtein.editops
    flat: list[int] = []
    push = flat.extend
    # Two copies of one loop so the per-pair path carries no branch on `units`;
    # the arithmetic is `_split` inlined (a call per pair costs ~10% here).
    if units == "words":
        for ref_text, hyp_text in batch:
            reference = ref_text.split()  # type: ignore[attr-defined]
            n_ref = len(reference)
            if ref_text == hyp_text:
                push((0, 0, 0, n_ref))
                continue
            hypothesis = hyp_text.split()  # type: ignore[attr-defined]
            edits = editops(reference, hypothesis)
            dist = len(edits)
            spread = n_ref - len(hypothesis)
            subs = dist - (spread if spread >= 0 else -spread)  # `_forced_substitutions`
            if subs > 1:
                subs = 0
                for op in edits.as_list():
                    if op[0] == "replace":
                        subs += 1
            indels = dist - subs
            deletions = (indels + spread) // 2
            push((subs, deletions, indels - deletions, n_ref - subs - deletions))
    else:
        for reference, hypothesis in batch:
            n_ref = len(reference)
            if reference == hypothesis:
                push((0, 0, 0, n_ref))
                continue
            edits = editops(reference, hypothesis)
            dist = len(edits)
            spread = n_ref - len(hypothesis)
            # S + 2*min(D, I) = dist - |n_ref - n_hyp| (`_forced_substitutions`): at
            # most 1 fixes S with no look at the operations (about one differing
            # character pair in five; the operations' Python list is what costs).
            subs = dist - (spread if spread >= 0 else -spread)
            if subs > 1:
                subs = 0
                for op in edits.as_list():
                    if op[0] == "replace":
                        subs += 1
            indels = dist - subs
            deletions = (indels + spread) // 2
            push((subs, deletions, indels - deletions, n_ref - subs - deletions))
    return np.array(flat, dtype=np.int64).reshape(-1, 4)


def _count_and_tally(
    pairs: Sequence[tuple[Sequence[Hashable], Sequence[Hashable]]],
    units: Units,
    tallies: Sequence[EditTally | None],
    distinct: list[int] | None = None,
) -> npt.NDArray[np.int64]:
    """`count_errors_array` that also records each pair's edits in its tally.

    The edits are gathered in plain lists per tally while the pairs are counted, in the
    same pass over each pair's edit operations, and counted into the tally's `Counter`s
    in bulk at the end (`Counter.update`, C speed): the same counts, inserted in the same
    order, as adding them one by one. Pairs that share one tally (a part of one
    language, the common case) go through `_tally_one`, without a look-up per pair.
    Sizes are checked before (`_refuse_oversized`).
    """
    import numpy as np

    flat: list[int] = []
    if tallies and len(set(map(id, tallies))) == 1:  # one tally shared (by identity)
        _tally_one(pairs, units, tallies[0], flat, distinct)
        return np.array(flat, dtype=np.int64).reshape(-1, 4)
    editops = Levenshtein.editops
    push = flat.extend
    split = units == "words"
    # Per tally (by identity): its substituted pairs, inserted and deleted units.
    edits: dict[
        int,
        tuple[EditTally, list[tuple[Hashable, Hashable]], list[Hashable], list[Hashable]],
    ] = {}
    keep = None if distinct is None else distinct.append
    for (reference, hypothesis), tally in zip(pairs, tallies, strict=True):
        if split:
            reference = reference.split()  # type: ignore[attr-defined]
            hypothesis = hypothesis.split()  # type: ignore[attr-defined]
        if keep is not None:
            keep(len(set(hypothesis)))
        n_ref = len(reference)
        if reference == hypothesis:
            push((0, 0, 0, n_ref))
            continue
        # (tag, i, j) tuples at run time; rapidfuzz's stubs name them `Editop`.
        ops: list[Any] = editops(reference, hypothesis).as_list()
        subs = 0
        if tally is None:
            for op in ops:
                if op[0] == "replace":
                    subs += 1
        else:
            lists = edits.get(id(tally))
            if lists is None:
                lists = edits[id(tally)] = (tally, [], [], [])
            _, substituted, inserted, deleted = lists
            for tag, i, j in ops:
                if tag == "replace":
                    subs += 1
                    substituted.append((reference[i], hypothesis[j]))
                elif tag == "insert":
                    inserted.append(hypothesis[j])
                else:
                    deleted.append(reference[i])
        indels = len(ops) - subs
        deletions = (indels + n_ref - len(hypothesis)) // 2
        push((subs, deletions, indels - deletions, n_ref - subs - deletions))
    for tally, substituted, inserted, deleted in edits.values():
        tally.substitutions.update(substituted)
        tally.insertions.update(inserted)
        tally.deletions.update(deleted)
    return np.array(flat, dtype=np.int64).reshape(-1, 4)


def _tally_one(
    pairs: Sequence[tuple[Sequence[Hashable], Sequence[Hashable]]],
    units: Units,
    tally: EditTally | None,
    flat: list[int],
    distinct: list[int] | None,
) -> None:
    """`_count_and_tally` where every pair shares `tally` (None: none is kept): S, D, I
    and hits of each pair onto `flat`."""
    editops = Levenshtein.editops
    push = flat.extend
    split = units == "words"
    substituted: list[tuple[Hashable, Hashable]] = []
    inserted: list[Hashable] = []
    deleted: list[Hashable] = []
    add_sub, add_ins, add_del = substituted.append, inserted.append, deleted.append
    keep = None if distinct is None else distinct.append
    for reference, hypothesis in pairs:
        if reference == hypothesis:
            # Equal texts split alike: one split, no alignment (a pair in five).
            if split:
                reference = reference.split()  # type: ignore[attr-defined]
            if keep is not None:
                keep(len(set(reference)))
            push((0, 0, 0, len(reference)))
            continue
        if split:
            reference = reference.split()  # type: ignore[attr-defined]
            hypothesis = hypothesis.split()  # type: ignore[attr-defined]
        if keep is not None:
            keep(len(set(hypothesis)))
        n_ref = len(reference)
        # Texts that differ only in spacing split alike: no operations, all hits.
        ops: list[Any] = editops(reference, hypothesis).as_list()
        subs = 0
        for tag, i, j in ops:
            if tag == "replace":
                subs += 1
                add_sub((reference[i], hypothesis[j]))
            elif tag == "insert":
                add_ins(hypothesis[j])
            else:
                add_del(reference[i])
        indels = len(ops) - subs
        deletions = (indels + n_ref - len(hypothesis)) // 2
        push((subs, deletions, indels - deletions, n_ref - subs - deletions))
    if tally is not None:
        tally.substitutions.update(substituted)
        tally.insertions.update(inserted)
        tally.deletions.update(deleted)


def count_errors_many(
    pairs: Iterable[tuple[Sequence[Hashable], Sequence[Hashable]]],
    *,
    units: Units = "given",
) -> list[ErrorCounts]:
    """`count_errors` for each pair, in order (built on `count_errors_array`)."""
    rows = count_errors_array(pairs, units=units).tolist()
    return [ErrorCounts(s, d, i, h) for s, d, i, h in rows]


def align(reference: Sequence[str], hypothesis: Sequence[str]) -> Alignment:
    """The column-by-column alignment behind `count_errors` (same counts, same tie rule).

    >>> [op.kind for op in align(["a", "b"], ["b", "a"]).ops]
    ['insert', 'equal', 'delete']
    """
    check_alignment_size(len(reference), len(hypothesis))
    ops: list[AlignedOp] = []
    subs = dels = ins = hits = 0
    for block in Levenshtein.opcodes(reference, hypothesis):
        tag, i1, i2 = block.tag, block.src_start, block.src_end
        j1, j2 = block.dest_start, block.dest_end
        if tag == "equal":
            hits += i2 - i1
            ops.extend(
                AlignedOp("equal", reference[i], hypothesis[j], i, j)
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            )
        elif tag == "replace":
            subs += i2 - i1
            ops.extend(
                AlignedOp("substitute", reference[i], hypothesis[j], i, j)
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            )
        elif tag == "delete":
            dels += i2 - i1
            ops.extend(AlignedOp("delete", reference[i], None, i, None) for i in range(i1, i2))
        else:
            ins += j2 - j1
            ops.extend(AlignedOp("insert", None, hypothesis[j], None, j) for j in range(j1, j2))
    return Alignment(tuple(ops), ErrorCounts(subs, dels, ins, hits))
