"""The headline's counter where earmark's plain batch alignment is not what was asked for.

Three things change how a pair is counted (`ScoringOptions.word_counter`):

- `--alignment sclite|kaldi`: every word unit is split as `sctk sclite` (weights sub 4,
  ins/del 3, `metrics.sclite_alignment`) or Kaldi's `compute-wer`
  (`metrics.kaldi_alignment`) splits it, so the headline S/D/I, the error analysis (the
  same alignment's edits) and the sclite block agree. Character units keep earmark's
  alignment: the option names a word alignment.
- `--glm` rules: word units aligned against the rules' slots (`scoring.glm`).
- sclite markup in a trn reference (`{ ok / okay }`, `(uh)`, `{ um / @ }`; the row's
  `extra["reference_markup"]`): its word units are aligned against the markup's slots
  at sclite's weights (`metrics.slot_alignment`), as `sctk sclite -D` and the sclite
  block score them, whatever `--alignment` says (an optional word's cost 2 only means
  something against 3 and 4). Its character units are counted against the reference
  that word alignment resolved (`resolved_reference`): each alternation as the spelling
  the hypothesis matched (else its first), an `@` the hypothesis took as nothing left
  out, an optional word left out counted Correct, its characters (and one space) still
  in N, as sclite keeps it in # Wrd.

Markup is read from the raw trn text, so it can only be honoured in a view whose
normalised reference is still the markup's plain text (`--normalizer none` keeps it;
a case-folding normaliser keeps it for lower-case references). Where a normaliser
changes it, scoring is refused with one line naming the normaliser, the view and the
utterance: a headline that silently scored the first alternative would disagree with
sclite's (issue 23).

Pairs nothing applies to go to `metrics.alignment.count_errors_array` in one batch, so
a corpus without markup, GLM or another alignment never reaches this module's loops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from operator import attrgetter
from typing import TYPE_CHECKING, Literal

import numpy as np

from earmark.errors import EarmarkError
from earmark.metrics.alignment import (
    Alignment,
    AlignmentTooLarge,
    EditTally,
    align,
    check_alignment_size,
    count_errors_array,
)

if TYPE_CHECKING:
    import numpy.typing as npt

    from earmark.formats.rows import ScoringRow
    from earmark.metrics.slot_alignment import Slot
    from earmark.scoring.glm import Glm

AlignmentName = Literal["earmark", "sclite", "kaldi"]
ALIGNMENTS: tuple[AlignmentName, ...] = ("earmark", "sclite", "kaldi")
#: Each alignment's rule, as results record it (`alignment.rule`, the sclite block).
ALIGNMENT_RULES: dict[AlignmentName, str] = {
    "earmark": "fewest edits (S+D+I), rapidfuzz tie rule (see earmark.metrics.alignment)",
    "sclite": "sclite's weighted alignment: correct 0, substitution 4, insertion and "
    "deletion 3; ties: diagonal, then deletion, then insertion (sctk net_dp.c)",
    "kaldi": "Kaldi compute-wer's LevenshteinEditDistance: unit costs; ties: the diagonal "
    "only when strictly cheaper, then deletion, then insertion (see "
    "earmark.metrics.kaldi_alignment)",
}
#: Where a non-default alignment applies, recorded beside its name.
ALIGNMENT_SCOPE = (
    "word units of every view, the error analysis and the sclite reports; character "
    "units keep earmark's alignment; references with sclite markup or a GLM align at "
    "sclite's weights"
)
#: The row field a trn reader keeps a reference's sclite markup in.
MARKUP = "reference_markup"
_EXTRA = attrgetter("extra")


def checked_alignment(name: str) -> AlignmentName:
    """`name` as an `AlignmentName`; anything else is a one-line error."""
    for known in ALIGNMENTS:
        if name == known:
            return known
    raise EarmarkError(
        f"unknown alignment {name!r}", field="alignment", hint="earmark, sclite or kaldi"
    )


def align_words(
    reference: Sequence[str], hypothesis: Sequence[str], alignment: AlignmentName
) -> Alignment:
    """One pair's columns and counts under the named alignment."""
    # The other alignments, the markup and the GLM rules are imported where a run asks for
    # them: the earmark alignment's start-up does not pay for them.
    if alignment == "sclite":
        from earmark.metrics.sclite_alignment import align_sclite

        return align_sclite(reference, hypothesis)
    if alignment == "kaldi":
        from earmark.metrics.kaldi_alignment import align_kaldi

        return align_kaldi(reference, hypothesis)
    return align(reference, hypothesis)


@dataclass(frozen=True)
class WordCounter:
    """Counts (reference, hypothesis) pairs as `count_errors_array` does, honouring the
    named alignment, GLM rules and each row's reference markup (module docstring)."""

    alignment: AlignmentName = "earmark"
    glm: Glm | None = None

    def __post_init__(self) -> None:
        checked_alignment(self.alignment)

    def for_rows(self, rows: Sequence[ScoringRow]) -> WordCounter | None:
        """This counter when it changes a count of `rows`, else None (the batch path):
        one pass over the rows' extras, only to find markup."""
        if self.alignment != "earmark" or self.glm is not None:
            return self
        if not any(map(_EXTRA, rows)):  # no row has extras (the common chunk)
            return None
        for row in rows:
            if row.extra and MARKUP in row.extra:
                return self
        return None

    def count_pairs(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        unit: str = "word",
        tallies: Sequence[EditTally | None] | None = None,
        rows: Sequence[ScoringRow] = (),
        positions: Sequence[int] = (),
        where: str = "",
    ) -> npt.NDArray[np.int64]:
        """Counts of `pairs` as an n x 4 array (S, D, I, hits); `rows[positions[k]]` is
        pair k's row (its markup), `where` names the normaliser and view in a refusal.

        `tallies` record each pair's edits from the same alignment. A pair over its
        alignment's cell limit raises `AlignmentTooLarge` with its position."""
        markups = [_markup(rows[p]) for p in positions] if positions else [None] * len(pairs)
        out = np.zeros((len(pairs), 4), dtype=np.int64)
        batch = [k for k, m in enumerate(markups) if m is None]
        if len(batch) == len(pairs) and (unit != "word" or self._plain_batch):
            units: Literal["given", "words"] = "words" if unit == "word" else "given"
            return count_errors_array(pairs, units=units, tallies=tallies)
        from earmark.scoring.glm import MAX_SLOT_CELLS

        for k, markup in enumerate(markups):
            if markup is None:
                continue
            ref_text, hyp_text = pairs[k]
            slots = self._slots(markup, ref_text, rows[positions[k]].id, where)
            hypothesis = hyp_text.split()
            check_alignment_size(len(slots), len(hypothesis), MAX_SLOT_CELLS, index=k)
            done = self._align_slots(slots, hypothesis)
            if unit != "word":
                done = _char_alignment(done, slots, hyp_text)
            _record(out, k, done, None if tallies is None else tallies[k])
        self._count_plain(out, pairs, batch, unit, tallies)
        return out

    @property
    def _plain_batch(self) -> bool:
        """Whether plain word pairs go to the batch counter as they are."""
        return self.alignment == "earmark" and self.glm is None

    def _slots(self, markup: str, reference: str, row_id: str, where: str) -> list[Slot]:
        from earmark.formats.sclite_markup import markup_slots, plain_text

        slots = markup_slots(markup)
        if plain_text(slots).split() != reference.split():
            raise EarmarkError(
                f"utterance {row_id!r}: its trn reference has sclite markup that the "
                f"normaliser changes ({where or 'a view'}), so the markup cannot be honoured",
                field="normalizer",
                hint="score trn references with markup using --normalizer none, or write "
                "the references and their markup in the normaliser's output form",
            )
        return slots

    def _align_slots(self, slots: list[Slot], hypothesis: list[str]) -> Alignment:
        if self.glm is not None:
            return self.glm.align(slots, hypothesis)
        from earmark.metrics.slot_alignment import align_slots

        return align_slots(slots, hypothesis)

    def _count_plain(
        self,
        out: npt.NDArray[np.int64],
        pairs: Sequence[tuple[str, str]],
        batch: list[int],
        unit: str,
        tallies: Sequence[EditTally | None] | None,
    ) -> None:
        """Counts of the pairs at `batch` (no markup) into `out`."""
        if not batch:
            return
        chosen = [pairs[k] for k in batch]
        chosen_tallies = None if tallies is None else [tallies[k] for k in batch]
        at = np.asarray(batch, dtype=np.int64)
        try:
            if unit != "word" or self._plain_batch:
                units: Literal["given", "words"] = "words" if unit == "word" else "given"
                out[at] = count_errors_array(chosen, units=units, tallies=chosen_tallies)
            elif self.glm is not None:
                out[at] = self.glm.count_pairs(chosen, tallies=chosen_tallies)
            else:
                from earmark.scoring.glm import MAX_SLOT_CELLS

                for j, (ref_text, hyp_text) in enumerate(chosen):
                    reference, hypothesis = ref_text.split(), hyp_text.split()
                    check_alignment_size(len(reference), len(hypothesis), MAX_SLOT_CELLS, index=j)
                    done = align_words(reference, hypothesis, self.alignment)
                    _record(out, batch[j], done, None if tallies is None else tallies[batch[j]])
        except AlignmentTooLarge as exc:  # its position among all the pairs
            if exc.index is not None:
                exc.index = batch[exc.index]
            raise


def _markup(row: ScoringRow) -> str | None:
    extra = row.extra
    if not extra:
        return None
    value = extra.get(MARKUP)
    return value if isinstance(value, str) else None


def _record(out: npt.NDArray[np.int64], k: int, done: Alignment, tally: EditTally | None) -> None:
    """Pair k's counts into `out`, its edits into its tally."""
    c = done.counts
    out[k] = (c.substitutions, c.deletions, c.insertions, c.hits)
    if tally is not None:
        tally.add_alignment(done)


def resolved_reference(done: Alignment, slots: Sequence[Slot]) -> tuple[list[str], list[str]]:
    """The reference words a slot alignment resolved, and the optional words it left out.

    A slot matched by one of its own spellings is that spelling, any other the slot's
    first spelling; an
    `@` the alignment skipped is no word; an optional word left out is in the second list
    (Correct, still counted)."""
    words: list[str | None] = [None] * len(slots)
    left_out: list[str] = []
    for op in done.ops:
        i = op.ref_index
        if i is None:
            continue
        slot = slots[i]
        if op.kind == "equal" and op.hyp is not None:
            # the markup's own spelling; one a GLM added stays the first (CER is the
            # rules' to leave alone: they name words)
            words[i] = op.hyp if op.hyp in slot.accepts else slot.accepts[0]
        elif op.kind == "equal":  # an optional word left out
            left_out.append(slot.accepts[0])
            words[i] = ""
        else:
            words[i] = slot.accepts[0]
    return [w for w in words if w], left_out


def _char_alignment(done: Alignment, slots: Sequence[Slot], hyp_text: str) -> Alignment:
    """Character columns of a marked reference against `hyp_text`: the text the word
    alignment resolved, aligned by earmark's alignment, each optional word left out
    (and one space) added as hits, as sclite keeps it in # Wrd."""
    words, left_out = resolved_reference(done, slots)
    resolved = " ".join(words)
    chars = align(list(resolved), list(hyp_text))
    if not left_out:
        return chars
    full = len(" ".join([*words, *left_out]))
    c = chars.counts
    return Alignment(chars.ops, replace(c, hits=c.hits + full - len(resolved)))


__all__ = [
    "ALIGNMENTS",
    "ALIGNMENT_RULES",
    "ALIGNMENT_SCOPE",
    "AlignmentName",
    "WordCounter",
    "align_words",
    "checked_alignment",
    "resolved_reference",
]
