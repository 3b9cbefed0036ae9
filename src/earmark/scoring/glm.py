"""GLM rules files and sclite reference markup, turned into alignment slots.

A GLM file (after NIST's Global Mapping files; earmark reads a documented subset) names
alternate spellings and optionally deletable words. One rule a line; `;;` starts a
comment:

    ;; alternate spellings: any of them matches any other
    { ok / okay / o.k. }
    colour => color
    ;; optionally deletable words (fillers), as sclite -D scores `(uh)`
    (uh)
    ;; words the reference may simply not have (`@` is the empty alternative)
    { um / @ }
    hmm =>

`a => b` makes `a` and `b` alternates (NIST applies the rule to both texts, so either
spelling ends up matching the other: the same effect, without rewriting text). NIST's
context suffix `/ [ ] __ [ ]` (no context) is accepted; a rule with a real context, or a
multi-word term, is refused with its line, since this subset cannot honour it.

A reference word named `(uh)` may be deleted for 2 instead of 3 and then counts as
Correct (still in # Wrd); one with an `@` alternative (or `hmm =>`) may be skipped for
0.001 and is then not counted at all. Both are sclite's rules (`metrics.slot_alignment`).

Rules act during alignment (`metrics.slot_alignment`), on the tokens of the view being
aligned, so write them in the normalised form (`--normalizer none` keeps text as is).
They act on the headline too: with a GLM, the word counts of every view come from this
alignment (`Glm.count_pairs`), at sclite's weights for every row, since the costs of an
optional or skipped word (2, 0.001) only mean what sclite means against its 3 and 4.
Character units are left as they are: the rules name words. The file's name, SHA-256
and the rule version are recorded in results (`component`, `headline_component`).

Memory is linear in the rules: a class is one set shared by its words, and the headline
compares hypothesis words by their class's representative (`Glm.count_pairs`), so one
20,000-word rule costs a few MB. One pair's alignment is bounded by `MAX_SLOT_CELLS`.

sclite's own reference markup in trn files, `{ a / b }` and `(uh)`, reads into the same
slots (`formats.sclite_markup.markup_slots`), so both score the same way as `sctk sclite -D`.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from earmark.errors import EarmarkError
from earmark.formats.sclite_markup import (
    EMPTY,
    GROUP,
    Where,
    alternatives,
    optional_word,
    single_word,
)
from earmark.metrics.alignment import (
    AlignedOp,
    Alignment,
    EditTally,
    check_alignment_size,
)
from earmark.metrics.slot_alignment import Slot, align_slots
from earmark.records import require_regular_file

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: Version of the rules' meaning; bump when a file would score differently.
GLM_VERSION = "glm-v1"
#: How the headline applies a GLM, recorded beside its component.
HEADLINE_SCOPE = (
    "word units of every view, aligned against reference slots at sclite's weights "
    "(correct 0, substitution 4, insertion and deletion 3, optional word 2, `@` 0.001; "
    "ties: diagonal, then deletion, then insertion); character units unchanged"
)

#: Most cells (reference words x hypothesis words) one pair's GLM alignment may take:
#: its dynamic program is pure Python (~50 bytes and ~0.2 us a cell), so 16 million cells
#: (4,000 x 4,000 words, about 0.8 GB and a few seconds) is the most one pair may cost.
#: Far above any utterance; score a long recording with a GLM in segments.
MAX_SLOT_CELLS = 16_000_000

_NO_CONTEXT = re.compile(r"\s*/\s*\[\s*\]\s*__\s*\[\s*\]\s*$")


@dataclass(frozen=True)
class Glm:
    """Alternates (each word -> every spelling it may be) and optionally deletable words."""

    name: str
    sha256: str
    alternates: dict[str, frozenset[str]] = field(default_factory=dict)
    optional: frozenset[str] = frozenset()
    skippable: frozenset[str] = frozenset()
    #: The rules as read (UTF-8 of exactly the hashed bytes), so an output folder can keep
    #: a copy that `earmark verify` re-derives its figures from.
    text: str = field(default="", repr=False, compare=False)

    @property
    def component(self) -> dict[str, str]:
        """What results record, so a score names the exact rules it used."""
        return {"name": self.name, "sha256": self.sha256, "version": GLM_VERSION}

    @property
    def headline_component(self) -> dict[str, str]:
        """The component plus where the headline applies it (`ScoringOptions.to_dict`)."""
        return {**self.component, "applies_to": HEADLINE_SCOPE}

    def slot(self, token: str) -> Slot:
        others = self.alternates.get(token, frozenset())
        accepts = (token, *sorted(others - {token}))
        return Slot(accepts, optional=token in self.optional, skippable=token in self.skippable)

    @cached_property
    def _canonical(self) -> dict[str, str]:
        """Each word of a class -> one member standing for the whole class (its least).

        Classes are shared sets (`parse_glm`), so this is one pass over the words."""
        least: dict[int, str] = {}
        out: dict[str, str] = {}
        for word, group in self.alternates.items():
            rep = least.get(id(group))
            if rep is None:
                rep = least[id(group)] = min(group)
            out[word] = rep
        return out

    def count_pairs(
        self,
        pairs: Iterable[tuple[str, str]],
        *,
        tallies: Sequence[EditTally | None] | None = None,
    ) -> npt.NDArray[np.int64]:
        """Word counts of (reference, hypothesis) texts as an n x 4 array (S, D, I, hits),
        each reference word a slot of this GLM: what the headline counts with `--glm`.

        `tallies` (one per pair, or None) record each pair's edits from the same
        alignment, as `metrics.alignment.count_errors_array` does without a GLM.

        Memory stays linear in the rules: a hypothesis word is compared by its class's
        representative, so a slot holds its word and that one representative instead of
        the whole class (a 20,000-word class in every slot is 20,000 x 20,000 strings).
        A hypothesis word then matches exactly when it is in the reference word's class,
        as `slot` says, so costs, ties and counts are the same; edits are tallied with
        the words as written. A pair over `MAX_SLOT_CELLS` raises `AlignmentTooLarge`.
        """
        import numpy as np

        canonical = self._canonical
        slot_of: dict[str, Slot] = {}
        flat: list[int] = []
        for k, (ref_text, hyp_text) in enumerate(pairs):
            reference = ref_text.split()
            if ref_text == hyp_text:  # every slot matched at cost 0: all hits
                flat += (0, 0, 0, len(reference))
                continue
            hypothesis = hyp_text.split()
            check_alignment_size(len(reference), len(hypothesis), MAX_SLOT_CELLS, index=k)
            slots = []
            for token in reference:
                slot = slot_of.get(token)
                if slot is None:
                    slot = slot_of[token] = self._compact_slot(token)
                slots.append(slot)
            done = align_slots(slots, [canonical.get(w, w) for w in hypothesis])
            tally = tallies[k] if tallies is not None else None
            if tally is not None:
                tally.add_alignment(_as_written(done, slots, hypothesis))
            c = done.counts
            flat += (c.substitutions, c.deletions, c.insertions, c.hits)
        return np.array(flat, dtype=np.int64).reshape(-1, 4)

    def _compact_slot(self, token: str) -> Slot:
        """`slot(token)` for hypotheses mapped to their class's representative."""
        return self._compact(Slot.word(token))

    def _compact(self, slot: Slot) -> Slot:
        """`widen(slot)` for hypotheses mapped to their class's representative: the shown
        word, then each word's representative (a class of any size is one entry)."""
        canonical = self._canonical
        accepts = tuple(
            dict.fromkeys((*slot.accepts[:1], *(canonical.get(t, t) for t in slot.accepts)))
        )
        optional = slot.optional or any(t in self.optional for t in slot.accepts)
        skippable = slot.skippable or any(t in self.skippable for t in slot.accepts)
        return Slot(accepts, optional=optional, skippable=skippable)

    def align(self, slots: Sequence[Slot], hypothesis: Sequence[str]) -> Alignment:
        """`align_slots([self.widen(s) for s in slots], hypothesis)`, column for column, in
        memory linear in the rules (`count_pairs` says how) and bounded by
        `MAX_SLOT_CELLS` (`AlignmentTooLarge`). `Slot.word(t)` slots give `self.slot(t)`'s.
        """
        check_alignment_size(len(slots), len(hypothesis), MAX_SLOT_CELLS)
        compact = [self._compact(slot) for slot in slots]
        canonical = self._canonical
        done = align_slots(compact, [canonical.get(w, w) for w in hypothesis])
        return _as_written(done, compact, hypothesis)

    def widen(self, slot: Slot) -> Slot:
        """A markup slot with every alternate of its words added."""
        accepts = list(slot.accepts)
        for token in slot.accepts:
            accepts += sorted(self.alternates.get(token, frozenset()) - set(accepts))
        optional = slot.optional or any(t in self.optional for t in slot.accepts)
        skippable = slot.skippable or any(t in self.skippable for t in slot.accepts)
        return Slot(tuple(accepts), optional=optional, skippable=skippable)


def parse_glm(text: str, *, name: str = "glm", source: str | None = None) -> Glm:
    """Read GLM rules (module docstring); errors name the line."""
    groups: list[set[str]] = []
    optional: set[str] = set()
    skippable: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(";;", 1)[0].strip()
        if not line:
            continue
        where = Where(file=source, line=number, field="rule")
        if "=>" in line:
            left, right = line.split("=>", 1)
            right = _NO_CONTEXT.sub("", right)
            if "[" in right or "__" in right:
                raise EarmarkError(
                    "a GLM rule with a context is not supported",
                    **where,
                    hint="write the rule without `/ [ left ] __ [ right ]`",
                )
            term = single_word(left, where, "term")
            target = right.strip()
            if target in ("", EMPTY):
                skippable.add(term)
            else:
                groups.append({term, single_word(target, where, "replacement")})
            continue
        match = GROUP.fullmatch(line)
        if match:
            words, opt = alternatives(match.group(1), where)
            groups.append(set(words))
            if opt:
                skippable.update(words)
            continue
        word = optional_word(line)
        if word is not None and len(line.split()) == 1:
            optional.add(word)
            continue
        raise EarmarkError(
            f"not a GLM rule: {line!r}",
            **where,
            hint="expected `a => b`, `{ a / b }` or `(word)`",
        )
    alternates = _classes(groups)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Glm(name, digest, alternates, frozenset(optional), frozenset(skippable), text)


def _classes(groups: Sequence[set[str]]) -> dict[str, frozenset[str]]:
    """Rules sharing a word join one class; every word of a class maps to the SAME set.

    Union-find, so a 20,000-word rule costs 20,000 entries, not 20,000 copies of it."""
    parent: dict[str, str] = {}

    def root(word: str) -> str:
        parent.setdefault(word, word)
        while parent[word] != word:
            parent[word] = parent[parent[word]]
            word = parent[word]
        return word

    for group in groups:
        words = iter(group)
        first = root(next(words))
        for word in words:
            other = root(word)
            if other != first:
                parent[other] = first
    members: dict[str, set[str]] = {}
    for word in parent:
        members.setdefault(root(word), set()).add(word)
    shared = {r: frozenset(m) for r, m in members.items()}
    return {word: shared[root(word)] for word in parent}


def _as_written(done: Alignment, slots: Sequence[Slot], hypothesis: Sequence[str]) -> Alignment:
    """An alignment of representatives with each hypothesis word as written: what
    `align_slots` with the full `slot`s shows (a matched word shows the hypothesis's)."""
    ops = []
    for op in done.ops:
        if op.hyp_index is not None:
            word = hypothesis[op.hyp_index]
            ref = op.ref
            if op.kind == "equal" and op.ref_index is not None:
                ref = f"({word})" if slots[op.ref_index].optional else word
            op = AlignedOp(op.kind, ref, word, op.ref_index, op.hyp_index)
        ops.append(op)
    return Alignment(tuple(ops), done.counts)


def read_glm(path: str | os.PathLike[str]) -> Glm:
    """A GLM file from disk (UTF-8); its name and SHA-256 go into results."""
    p = Path(path)
    require_regular_file(p)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise EarmarkError(f"cannot read the GLM file: {exc.strerror}", file=str(p)) from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EarmarkError("the GLM file is not UTF-8", file=str(p)) from exc
    glm = parse_glm(text, name=p.name, source=str(p))
    digest = hashlib.sha256(data).hexdigest()
    return Glm(glm.name, digest, glm.alternates, glm.optional, glm.skippable, text)


__all__ = [
    "GLM_VERSION",
    "HEADLINE_SCOPE",
    "MAX_SLOT_CELLS",
    "Glm",
    "parse_glm",
    "read_glm",
]
