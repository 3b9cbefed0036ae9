"""Punctuation position F1 and position+type F1 by alignment projection (seed 001).

Punctuation is scored where it sits in the *content* (the text with marks and spaces
removed), so a formatter that only adds punctuation is judged on its marks alone and an
ASR edit elsewhere in the sentence does not move every later mark.

Rules, frozen (a change is a new metric name, not a silent edit):

1. **Marks.** A character is a mark when its Unicode category is ``P*`` (quotes,
   brackets, ``·``, dashes, ``_``, ``%``, ``@``, ``/`` included; ``…`` is one mark per
   character, so ``……`` is two and ``...`` is three ``。``). Its *type* is its canonical
   form: a character whose NFKC form is one other punctuation character is folded to it
   (width folding: ``．``→``.``, ``｡``→``。``, ``﹐``→``,``), then ASCII
   ``, . ? ! : ; ( )`` map to ``， 。 ？ ！ ： ； （ ）``. ``、`` stays distinct from ``，``.
   Under the default mark rule ``word-internal``, two kinds of character are not marks
   although their category is ``P*``: an apostrophe (``'`` U+0027, ``’`` U+2019) with a
   letter directly on both sides (``don't``, ``O’Brien``), and a decimal point (``.``,
   ``．``, ``٫``) with a digit directly on both sides (``3.5``). They are skipped like
   whitespace, so ``don't`` and ``dont`` have the same content and no mark between them.
   The rule ``every-mark`` (the seed-001 scorer, kept by the ``mmv-punct-v024``
   protocol) counts them as marks. Hyphens (``well-known``, ``t-athair``), slashes and
   thousands separators (``1,000``) stay marks under both rules.
2. **Content.** Everything that is neither a mark nor whitespace; each run of content
   between two marks is NFKC-normalised and lower-cased *after* the marks are taken out
   (so full-width marks never turn back into ASCII first), and any punctuation or space
   that NFKC produces (``⑴``→``(1)``) is dropped.
3. **Boundaries.** A mark sits at boundary ``b`` = the number of content characters
   before it (``0..len(content)``). Several marks at one boundary are several marks.
4. **Alignment.** Global minimum edit distance (unit costs) between reference and
   hypothesis content. The backtrace starts at the end ``(n, m)`` and at each step
   prefers the diagonal (match/substitution), then a reference deletion, then a
   hypothesis insertion.
5. **Projection.** Hypothesis boundary ``j`` maps to the reference boundary ``i`` such
   that the alignment path passes through lattice point ``(i, j)``; when several do
   (the hypothesis skipped reference characters there), the *largest* ``i`` is taken:
   a mark closes the clause before it, so a mark after a dropped final character still
   lands where the reference's clause ends.
6. **Counting** per reference boundary: position matches = min(#ref marks, #hyp marks);
   type matches = Σ over types of min(#ref of type, #hyp of type). Precision = matches /
   #hyp marks, recall = matches / #ref marks, F1 = 2·matches / (#ref + #hyp) (equal to
   2PR/(P+R) whenever both are defined), all from summed (micro) counts. F1 is ``None``
   when neither side has a mark: there is nothing to score, and 1.0 would be invented.

>>> counts = punctuation_counts("你好，世界。", "你好,世界!")
>>> counts.position_f1(), counts.type_f1()
(1.0, 0.5)
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from earmark.errors import EarmarkError

#: ASCII marks and the full-width Chinese mark they are scored as.
ASCII_TO_FULLWIDTH: Mapping[str, str] = MappingProxyType(
    {
        ",": "，",
        ".": "。",
        "?": "？",
        "!": "！",
        ":": "：",
        ";": "；",
        "(": "（",
        ")": "）",
    }
)

#: The alignment DP keeps an (n+1)·(m+1) int32 table (4 bytes a cell) for the backtrace.
#: 25 million cells ≈ 100 MB ≈ 5,000 × 5,000 content characters; longer pairs must be
#: scored per segment.
MAX_ALIGNMENT_CELLS = 25_000_000

EditOp = Literal["match", "substitute", "delete", "insert"]

MarkRule = Literal["word-internal", "every-mark"]
#: The default: apostrophes inside words and decimal points inside numbers are not marks.
WORD_INTERNAL: MarkRule = "word-internal"
#: Every P* character is a mark (the seed-001 study's scorer; `mmv-punct-v024`).
EVERY_MARK: MarkRule = "every-mark"
MARK_RULES: tuple[MarkRule, ...] = (WORD_INTERNAL, EVERY_MARK)
_APOSTROPHES = frozenset("'\u2019")
_DECIMAL_POINTS = frozenset(".\uff0e\u066b")


def check_mark_rule(rule: str) -> MarkRule:
    """`rule` if it names a mark rule, else an `EarmarkError` listing the rules."""
    for known in MARK_RULES:
        if rule == known:
            return known
    raise EarmarkError(
        f"unknown punctuation mark rule {rule!r}; known: {', '.join(MARK_RULES)}",
        field="punctuation_marks",
        hint="word-internal (default) or every-mark (every Unicode P* character, as the "
        "mmv-voice study counted)",
    )


def _word_internal(text: str, index: int) -> bool:
    """Is the mark at `index` an apostrophe inside a word or a decimal point inside a number?"""
    if index == 0 or index + 1 >= len(text):
        return False
    char, before, after = text[index], text[index - 1], text[index + 1]
    if char in _APOSTROPHES:
        return before.isalpha() and after.isalpha()
    if char in _DECIMAL_POINTS:
        return before.isdigit() and after.isdigit()
    return False


def is_mark(char: str) -> bool:
    """True for a punctuation mark (Unicode category P*)."""
    return unicodedata.category(char).startswith("P")


def mark_type(char: str) -> str:
    """The canonical type a mark is scored as (width-folded, ASCII mapped to full-width)."""
    folded = unicodedata.normalize("NFKC", char)
    if len(folded) != 1 or not is_mark(folded):
        folded = char
    return ASCII_TO_FULLWIDTH.get(folded, folded)


def _clean_run(run: list[str]) -> str:
    normalised = unicodedata.normalize("NFKC", "".join(run)).lower()
    return "".join(c for c in normalised if not c.isspace() and not is_mark(c))


@dataclass(frozen=True, slots=True)
class PunctuationMark:
    """One mark: where it sits in the content, its scored type and the original character."""

    boundary: int
    type: str
    original: str


@dataclass(frozen=True, slots=True)
class SplitText:
    """A text taken apart into content characters and the marks between them."""

    content: str
    marks: tuple[PunctuationMark, ...]


def split_punctuation(text: str, mark_rule: MarkRule = WORD_INTERNAL) -> SplitText:
    """Separate `text` into content characters and boundary-attached marks (rules 1-3)."""
    content: list[str] = []
    marks: list[PunctuationMark] = []
    run: list[str] = []
    skip_internal = check_mark_rule(mark_rule) == WORD_INTERNAL
    for index, char in enumerate(text):
        if char.isspace():
            continue
        if is_mark(char):
            if skip_internal and _word_internal(text, index):
                continue
            if run:
                content.append(_clean_run(run))
                run = []
            boundary = sum(len(part) for part in content)
            marks.append(PunctuationMark(boundary, mark_type(char), char))
        else:
            run.append(char)
    if run:
        content.append(_clean_run(run))
    return SplitText("".join(content), tuple(marks))


def content_characters(text: str) -> str:
    """The text without punctuation and whitespace, NFKC-normalised and lower-cased."""
    return split_punctuation(text).content


@dataclass(frozen=True, slots=True)
class MarkTally:
    """Reference marks, hypothesis marks and type-matched marks of one mark type."""

    ref: int = 0
    hyp: int = 0
    matched: int = 0

    def __post_init__(self) -> None:
        if min(self.ref, self.hyp, self.matched) < 0 or self.matched > min(self.ref, self.hyp):
            raise ValueError(f"inconsistent mark tally: {self}")

    def __add__(self, other: MarkTally) -> MarkTally:
        if not isinstance(other, MarkTally):
            return NotImplemented
        return MarkTally(self.ref + other.ref, self.hyp + other.hyp, self.matched + other.matched)

    def precision(self) -> float | None:
        return _ratio(self.matched, self.hyp)

    def recall(self) -> float | None:
        return _ratio(self.matched, self.ref)

    def f1(self) -> float | None:
        return _f1(self.matched, self.ref, self.hyp)


def _ratio(numerator: int, denominator: int) -> float | None:
    return None if denominator == 0 else numerator / denominator


def _f1(matches: int, ref: int, hyp: int) -> float | None:
    return None if ref + hyp == 0 else 2 * matches / (ref + hyp)


NO_MARKS_REASON = "no punctuation marks in the reference or the hypothesis"


@dataclass(frozen=True, slots=True)
class PunctuationCounts:
    """Mark counts of one or many aligned pairs; they only add (micro aggregation).

    `per_type` holds one `MarkTally` per mark type, sorted by type, as an immutable tuple
    of pairs. Its totals equal `ref_marks`, `hyp_marks` and `type_matches` by construction.

    >>> a = punctuation_counts("好，的。", "好，的。")
    >>> b = punctuation_counts("对吗？", "对吗")
    >>> total = a + b
    >>> total.ref_marks, total.hyp_marks, total.position_recall()
    (3, 2, 0.6666666666666666)
    """

    ref_marks: int = 0
    hyp_marks: int = 0
    position_matches: int = 0
    type_matches: int = 0
    per_type: tuple[tuple[str, MarkTally], ...] = ()

    def __post_init__(self) -> None:
        if min(self.ref_marks, self.hyp_marks, self.position_matches, self.type_matches) < 0:
            raise ValueError(f"counts must be non-negative: {self}")
        if not self.type_matches <= self.position_matches <= min(self.ref_marks, self.hyp_marks):
            raise ValueError(f"need type <= position matches <= min(ref, hyp): {self}")
        types = [name for name, _ in self.per_type]
        if types != sorted(set(types)):
            raise ValueError("per_type must be sorted by type with no repeats")
        totals = sum((tally for _, tally in self.per_type), MarkTally())
        if (totals.ref, totals.hyp, totals.matched) != (
            self.ref_marks,
            self.hyp_marks,
            self.type_matches,
        ):
            raise ValueError(f"per_type totals {totals} disagree with the counts {self}")

    @classmethod
    def zero(cls) -> PunctuationCounts:
        return cls()

    def __add__(self, other: PunctuationCounts) -> PunctuationCounts:
        if not isinstance(other, PunctuationCounts):
            return NotImplemented
        merged = dict(self.per_type)
        for name, tally in other.per_type:
            merged[name] = merged.get(name, MarkTally()) + tally
        return PunctuationCounts(
            self.ref_marks + other.ref_marks,
            self.hyp_marks + other.hyp_marks,
            self.position_matches + other.position_matches,
            self.type_matches + other.type_matches,
            tuple(sorted(merged.items())),
        )

    def __radd__(self, other: object) -> PunctuationCounts:
        # Lets sum() start from 0.
        if other == 0:
            return self
        if isinstance(other, PunctuationCounts):
            return other + self
        return NotImplemented

    @property
    def null_reason(self) -> str | None:
        """Why F1 is None (no marks anywhere), or None when F1 is defined."""
        return NO_MARKS_REASON if self.ref_marks + self.hyp_marks == 0 else None

    def position_precision(self) -> float | None:
        return _ratio(self.position_matches, self.hyp_marks)

    def position_recall(self) -> float | None:
        return _ratio(self.position_matches, self.ref_marks)

    def position_f1(self) -> float | None:
        return _f1(self.position_matches, self.ref_marks, self.hyp_marks)

    def type_precision(self) -> float | None:
        return _ratio(self.type_matches, self.hyp_marks)

    def type_recall(self) -> float | None:
        return _ratio(self.type_matches, self.ref_marks)

    def type_f1(self) -> float | None:
        """Position+type F1: a match needs the boundary and the mark type."""
        return _f1(self.type_matches, self.ref_marks, self.hyp_marks)

    def tally(self, mark: str) -> MarkTally:
        """Counts for one mark type (given as any form of the mark: `,` means `，`)."""
        return dict(self.per_type).get(mark_type(mark), MarkTally())

    def as_dict(self) -> dict[str, object]:
        return {
            "ref_marks": self.ref_marks,
            "hyp_marks": self.hyp_marks,
            "position_matches": self.position_matches,
            "type_matches": self.type_matches,
            "position_precision": self.position_precision(),
            "position_recall": self.position_recall(),
            "position_f1": self.position_f1(),
            "type_precision": self.type_precision(),
            "type_recall": self.type_recall(),
            "type_f1": self.type_f1(),
            "null_reason": self.null_reason,
            "per_type": {
                name: {
                    "ref": tally.ref,
                    "hyp": tally.hyp,
                    "matched": tally.matched,
                    "precision": tally.precision(),
                    "recall": tally.recall(),
                    "f1": tally.f1(),
                }
                for name, tally in self.per_type
            },
        }


@dataclass(frozen=True, slots=True)
class AlignedChar:
    """One step of the content alignment; an index is None on the side that lacks it."""

    op: EditOp
    ref_index: int | None
    hyp_index: int | None


@dataclass(frozen=True, slots=True)
class BoundaryMatch:
    """The marks scored at one reference boundary."""

    boundary: int
    ref_types: tuple[str, ...]
    hyp_types: tuple[str, ...]
    position_matches: int
    type_matches: int


@dataclass(frozen=True, slots=True)
class PunctuationAlignment:
    """Everything behind one pair's punctuation counts, for debugging and reports."""

    reference_content: str
    hypothesis_content: str
    reference_marks: tuple[PunctuationMark, ...]
    hypothesis_marks: tuple[PunctuationMark, ...]
    #: Content alignment in reading order.
    steps: tuple[AlignedChar, ...]
    #: `boundary_map[j]` is the reference boundary hypothesis boundary `j` projects onto.
    boundary_map: tuple[int, ...]
    #: Only boundaries holding a mark on either side, in order.
    boundaries: tuple[BoundaryMatch, ...]
    counts: PunctuationCounts

    @property
    def content_edits(self) -> int:
        """Edit distance of the contents (0 exactly when they are equal)."""
        return sum(step.op != "match" for step in self.steps)


def align_content(reference: str, hypothesis: str) -> tuple[AlignedChar, ...]:
    """Deterministic global minimum-edit alignment of two character sequences (rule 4).

    Cost: O(n·m) time and an (n+1)·(m+1) int32 table; pairs above `MAX_ALIGNMENT_CELLS`
    cells raise `EarmarkError` (segment long recordings before scoring punctuation).
    """
    import numpy as np

    n, m = len(reference), len(hypothesis)
    if (n + 1) * (m + 1) > MAX_ALIGNMENT_CELLS:
        raise EarmarkError(
            f"punctuation alignment of {n} x {m} content characters exceeds "
            f"{MAX_ALIGNMENT_CELLS} cells",
            hint="score punctuation per segment of a long recording",
        )
    hyp_codes = np.fromiter((ord(c) for c in hypothesis), dtype=np.int64, count=m)
    offsets = np.arange(m + 1, dtype=np.int32)
    table = np.empty((n + 1, m + 1), dtype=np.int32)
    table[0] = offsets
    row = np.empty(m + 1, dtype=np.int32)
    for i in range(1, n + 1):
        previous = table[i - 1]
        substitution = previous[:-1] + (hyp_codes != ord(reference[i - 1]))
        deletion = previous[1:] + 1
        row[0] = i
        np.minimum(substitution, deletion, out=row[1:])
        # Insertions run along the row: D[i, j] = min over k <= j of row[k] + (j - k).
        table[i] = np.minimum.accumulate(row - offsets) + offsets

    steps: list[AlignedChar] = []
    i, j = n, m
    while i > 0 or j > 0:
        here = table[i, j]
        if i > 0 and j > 0:
            same = reference[i - 1] == hypothesis[j - 1]
            if here == table[i - 1, j - 1] + (0 if same else 1):
                steps.append(AlignedChar("match" if same else "substitute", i - 1, j - 1))
                i, j = i - 1, j - 1
                continue
        if i > 0 and here == table[i - 1, j] + 1:
            steps.append(AlignedChar("delete", i - 1, None))
            i -= 1
        else:
            steps.append(AlignedChar("insert", None, j - 1))
            j -= 1
    steps.reverse()
    return tuple(steps)


def project_boundaries(steps: tuple[AlignedChar, ...], hyp_length: int) -> tuple[int, ...]:
    """Map every hypothesis boundary to a reference boundary (rule 5: largest i)."""
    mapping = [0] * (hyp_length + 1)
    i = j = 0
    for step in steps:
        if step.op != "insert":
            i += 1
        if step.op != "delete":
            j += 1
        mapping[j] = i  # later points on the path have larger i: the last one wins
    return tuple(mapping)


def punctuation_alignment(
    reference: str, hypothesis: str, mark_rule: MarkRule = WORD_INTERNAL
) -> PunctuationAlignment:
    """Split, align, project and count one reference/hypothesis pair."""
    ref = split_punctuation(reference, mark_rule)
    hyp = split_punctuation(hypothesis, mark_rule)
    steps = align_content(ref.content, hyp.content)
    boundary_map = project_boundaries(steps, len(hyp.content))

    ref_at: dict[int, list[str]] = {}
    for mark in ref.marks:
        ref_at.setdefault(mark.boundary, []).append(mark.type)
    hyp_at: dict[int, list[str]] = {}
    for mark in hyp.marks:
        hyp_at.setdefault(boundary_map[mark.boundary], []).append(mark.type)

    tallies: dict[str, MarkTally] = {}
    boundaries: list[BoundaryMatch] = []
    for boundary in sorted(ref_at.keys() | hyp_at.keys()):
        ref_types = ref_at.get(boundary, [])
        hyp_types = hyp_at.get(boundary, [])
        ref_count, hyp_count = Counter(ref_types), Counter(hyp_types)
        type_matches = 0
        for name in ref_count.keys() | hyp_count.keys():
            matched = min(ref_count[name], hyp_count[name])
            type_matches += matched
            tallies[name] = tallies.get(name, MarkTally()) + MarkTally(
                ref_count[name], hyp_count[name], matched
            )
        boundaries.append(
            BoundaryMatch(
                boundary,
                tuple(ref_types),
                tuple(hyp_types),
                min(len(ref_types), len(hyp_types)),
                type_matches,
            )
        )
    counts = PunctuationCounts(
        ref_marks=len(ref.marks),
        hyp_marks=len(hyp.marks),
        position_matches=sum(b.position_matches for b in boundaries),
        type_matches=sum(b.type_matches for b in boundaries),
        per_type=tuple(sorted(tallies.items())),
    )
    return PunctuationAlignment(
        ref.content,
        hyp.content,
        ref.marks,
        hyp.marks,
        steps,
        boundary_map,
        tuple(boundaries),
        counts,
    )


def punctuation_counts(
    reference: str, hypothesis: str, mark_rule: MarkRule = WORD_INTERNAL
) -> PunctuationCounts:
    """Punctuation counts of one pair; sum them over a corpus for the micro figure.

    >>> punctuation_counts("I don't know.", "I dont know.").position_f1()
    1.0
    >>> punctuation_counts("I don't know.", "I dont know.", "every-mark").position_f1()
    0.6666666666666666
    """
    return punctuation_alignment(reference, hypothesis, mark_rule).counts


# --- Known-good / known-bad scorer probes (seed 001) -------------------------------------

ProbeValue = float | int | bool | None


@dataclass(frozen=True, slots=True)
class Probe:
    """A fixed input with the scores a correct scorer must give it.

    When `equivalent` is set, the probe also requires the pair (reference, equivalent) to
    give exactly the same counts as (reference, hypothesis).
    """

    name: str
    description: str
    reference: str
    hypothesis: str
    expected: tuple[tuple[str, ProbeValue], ...]
    equivalent: str | None = None


@dataclass(frozen=True, slots=True)
class ProbeResult:
    name: str
    passed: bool
    expected: dict[str, ProbeValue]
    observed: dict[str, ProbeValue]

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "passed": self.passed,
            "expected": dict(self.expected),
            "observed": dict(self.observed),
        }


_PROBE_REFERENCE = "今天天气很好，我们去公园吧。"

PROBES: tuple[Probe, ...] = (
    Probe(
        "identity",
        "hypothesis equals the reference",
        _PROBE_REFERENCE,
        _PROBE_REFERENCE,
        (("position_f1", 1.0), ("type_f1", 1.0)),
    ),
    Probe(
        "no_punctuation",
        "hypothesis has the reference content and no marks",
        _PROBE_REFERENCE,
        "今天天气很好我们去公园吧",
        (("position_recall", 0.0), ("position_f1", 0.0), ("hyp_marks", 0)),
    ),
    Probe(
        "wrong_type",
        "every mark at the right boundary with the wrong type",
        _PROBE_REFERENCE,
        "今天天气很好。我们去公园吧！",
        (("position_f1", 1.0), ("type_f1", 0.0)),
    ),
    Probe(
        "shifted_boundary",
        "every mark one character away from its reference boundary",
        _PROBE_REFERENCE,
        "今天天气很，好我们去公园。吧",
        (("position_f1", 0.0), ("type_f1", 0.0)),
    ),
    Probe(
        "ascii_fullwidth",
        "ASCII marks score exactly as their full-width forms",
        "你好，世界！真的吗？是的：对；（好）。",
        "你好,世界!真的吗?是的:对;(好).",
        (("position_f1", 1.0), ("type_f1", 1.0), ("same_counts_as_equivalent", True)),
        equivalent="你好，世界！真的吗？是的：对；（好）。",
    ),
    Probe(
        "content_identity",
        "punctuation-free content is identical, so the content CER is 0",
        _PROBE_REFERENCE,
        "今天 天气很好！我们去公园吧？？",
        (("content_equal", True), ("content_edits", 0)),
    ),
    Probe(
        "lexical_substitution",
        "a substituted character does not move the projected boundaries",
        "我们明天去北京，后天回上海。",
        "我们明天去背景，后天回上海。",
        (("position_f1", 1.0), ("type_f1", 1.0), ("content_edits", 2)),
    ),
    Probe(
        "enumeration_comma",
        "、 and ， are different types at the same boundary",
        "苹果、香蕉、橘子。",
        "苹果，香蕉，橘子。",
        (("position_f1", 1.0), ("type_f1", 1 / 3)),
    ),
)


def _observe(probe: Probe) -> dict[str, ProbeValue]:
    alignment = punctuation_alignment(probe.reference, probe.hypothesis)
    counts = alignment.counts
    observed: dict[str, ProbeValue] = {
        "position_f1": counts.position_f1(),
        "type_f1": counts.type_f1(),
        "position_recall": counts.position_recall(),
        "hyp_marks": counts.hyp_marks,
        "content_equal": alignment.reference_content == alignment.hypothesis_content,
        "content_edits": alignment.content_edits,
    }
    if probe.equivalent is not None:
        observed["same_counts_as_equivalent"] = counts == punctuation_counts(
            probe.reference, probe.equivalent
        )
    return observed


def _same(expected: ProbeValue, observed: ProbeValue) -> bool:
    if isinstance(expected, float) and isinstance(observed, float):
        return abs(expected - observed) <= 1e-12
    return expected == observed and type(expected) is type(observed)


def run_punctuation_probes() -> list[ProbeResult]:
    """Run the fixed known-good/known-bad probes; every result should pass."""
    results = []
    for probe in PROBES:
        everything = _observe(probe)
        expected = dict(probe.expected)
        observed = {name: everything[name] for name in expected}
        passed = all(_same(expected[name], observed[name]) for name in expected)
        results.append(ProbeResult(probe.name, passed, expected, observed))
    return results
