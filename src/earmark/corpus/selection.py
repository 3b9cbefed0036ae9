"""Choosing which rows of a manifest are scored, and recording how.

Every function is pure over an iterable of `Utterance` and returns the kept rows plus a
`SelectionRecord`: the rule as a sentence, its parameters, per-slice and per-language
counts of what was kept, and every row not kept with a reason code. Seed 000 asks for
the selection rule, per-slice counts and exclusions to travel with every result.

Reason codes: `after_limit` (the first N were already taken), `repeated_text` (an
earlier row had the same text_id), `outside_fraction` (the seeded hash put the row
outside the subset), `language_filtered`, `slice_filtered`.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from earmark.corpus.model import Utterance
from earmark.results.codec import JSONValue


@dataclass(frozen=True)
class Exclusion:
    id: str
    reason: str


@dataclass(frozen=True)
class SelectionRecord:
    """How a subset was drawn: enough to redraw it exactly from the same manifest."""

    rule: str
    parameters: dict[str, JSONValue]
    input_rows: int
    kept_rows: int
    per_slice: dict[str, int]
    per_language: dict[str, int]
    exclusions: tuple[Exclusion, ...] = field(default=())

    def excluded_counts(self) -> dict[str, int]:
        return dict(sorted(Counter(e.reason for e in self.exclusions).items()))

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "rule": self.rule,
            "parameters": self.parameters,
            "input_rows": self.input_rows,
            "kept_rows": self.kept_rows,
            "per_slice": dict(self.per_slice),
            "per_language": dict(self.per_language),
            "excluded_counts": dict(self.excluded_counts()),
            "exclusions": [{"id": e.id, "reason": e.reason} for e in self.exclusions],
        }


def slice_counts(rows: Iterable[Utterance]) -> dict[str, int]:
    """Rows per slice (a row in two slices counts in both), sorted by slice name."""
    counts: Counter[str] = Counter()
    for row in rows:
        counts.update(row.slices)
    return dict(sorted(counts.items()))


def _record(
    rule: str,
    parameters: dict[str, JSONValue],
    input_rows: int,
    kept: Sequence[Utterance],
    exclusions: list[Exclusion],
) -> SelectionRecord:
    return SelectionRecord(
        rule=rule,
        parameters=parameters,
        input_rows=input_rows,
        kept_rows=len(kept),
        per_slice=slice_counts(kept),
        per_language=dict(sorted(Counter(u.language for u in kept).items())),
        exclusions=tuple(exclusions),
    )


def first_n(rows: Iterable[Utterance], n: int) -> tuple[list[Utterance], SelectionRecord]:
    """The first `n` rows in file order."""
    if n < 0:
        raise ValueError("n must be >= 0")
    kept: list[Utterance] = []
    excluded: list[Exclusion] = []
    total = 0
    for row in rows:
        total += 1
        if len(kept) < n:
            kept.append(row)
        else:
            excluded.append(Exclusion(row.id, "after_limit"))
    return kept, _record(f"first {n} rows in file order", {"n": n}, total, kept, excluded)


def text_key(row: Utterance) -> str:
    """The sentence a row records: its `text_id`, falling back to the reference text."""
    return row.text_id if row.text_id is not None else f"text:{row.text}"


def first_n_distinct_texts(
    rows: Iterable[Utterance], n: int
) -> tuple[list[Utterance], SelectionRecord]:
    """The first row of each of the first `n` distinct text IDs, in file order (seed 001:
    "the first eight distinct text IDs in test.tsv order"). Later recordings of an
    already-chosen sentence are excluded as `repeated_text`."""
    if n < 0:
        raise ValueError("n must be >= 0")
    kept: list[Utterance] = []
    excluded: list[Exclusion] = []
    seen: set[str] = set()
    total = 0
    for row in rows:
        total += 1
        key = text_key(row)
        if key in seen:
            excluded.append(Exclusion(row.id, "repeated_text"))
        elif len(kept) >= n:
            excluded.append(Exclusion(row.id, "after_limit"))
        else:
            seen.add(key)
            kept.append(row)
    rule = f"first {n} distinct text_id (else text) in file order, first recording of each"
    return kept, _record(rule, {"n": n}, total, kept, excluded)


def hash_fraction(seed: int | str, utt_id: str) -> float:
    """Where a row falls in [0, 1): the first 8 bytes of sha256(f"{seed}:{id}") as a
    big-endian integer over 2**64. Depends only on seed and id, so every arm and every
    file order draws the same subset."""
    digest = hashlib.sha256(f"{seed}:{utt_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def hash_subset(
    rows: Iterable[Utterance], fraction: float, seed: int | str
) -> tuple[list[Utterance], SelectionRecord]:
    """Rows with `hash_fraction(seed, id) < fraction`, in file order."""
    if not 0.0 <= fraction <= 1.0:
        raise ValueError("fraction must be within [0, 1]")
    kept: list[Utterance] = []
    excluded: list[Exclusion] = []
    total = 0
    for row in rows:
        total += 1
        if hash_fraction(seed, row.id) < fraction:
            kept.append(row)
        else:
            excluded.append(Exclusion(row.id, "outside_fraction"))
    rule = f'rows with sha256("{seed}:" + id)[:8] / 2**64 < {fraction}'
    return kept, _record(rule, {"fraction": fraction, "seed": seed}, total, kept, excluded)


def _language_matches(language: str, wanted: Iterable[str]) -> bool:
    lang = language.lower().replace("_", "-")
    for w in wanted:
        w = w.lower().replace("_", "-")
        if lang == w or lang.startswith(w + "-"):
            return True
    return False


def filter_rows(
    rows: Iterable[Utterance],
    *,
    languages: Sequence[str] | None = None,
    slices: Sequence[str] | None = None,
) -> tuple[list[Utterance], SelectionRecord]:
    """Rows whose language is one of `languages` (a tag matches itself and its subtags:
    `zh` matches `zh-CN`) and that carry at least one of `slices`."""
    kept: list[Utterance] = []
    excluded: list[Exclusion] = []
    total = 0
    for row in rows:
        total += 1
        if languages and not _language_matches(row.language, languages):
            excluded.append(Exclusion(row.id, "language_filtered"))
        elif slices and not set(slices).intersection(row.slices):
            excluded.append(Exclusion(row.id, "slice_filtered"))
        else:
            kept.append(row)
    parts = []
    if languages:
        parts.append(f"language in {{{', '.join(languages)}}}")
    if slices:
        parts.append(f"any slice in {{{', '.join(slices)}}}")
    rule = " and ".join(parts) or "all rows"
    params: dict[str, JSONValue] = {
        "languages": list(languages or []),
        "slices": list(slices or []),
    }
    return kept, _record(rule, params, total, kept, excluded)


def select(
    rows: Iterable[Utterance],
    *,
    languages: Sequence[str] | None = None,
    slices: Sequence[str] | None = None,
    fraction: float | None = None,
    seed: int | str | None = None,
    distinct_texts: bool = False,
    n: int | None = None,
) -> tuple[list[Utterance], SelectionRecord]:
    """Compose the rules in a fixed order: filter by language/slice, then the seeded hash
    subset, then first N (distinct texts or rows). One record names every step."""
    if fraction is not None and seed is None:
        raise ValueError("a hash subset needs a seed")
    if distinct_texts and n is None:
        raise ValueError("distinct texts needs n")
    current = list(rows)
    input_rows = len(current)
    steps: list[str] = []
    exclusions: list[Exclusion] = []
    params: dict[str, JSONValue] = {}

    def apply(result: tuple[list[Utterance], SelectionRecord]) -> None:
        nonlocal current
        current, record = result
        steps.append(record.rule)
        exclusions.extend(record.exclusions)
        params.update(record.parameters)

    if languages or slices:
        apply(filter_rows(current, languages=languages, slices=slices))
    if fraction is not None:
        assert seed is not None
        apply(hash_subset(current, fraction, seed))
    if n is not None:
        apply(first_n_distinct_texts(current, n) if distinct_texts else first_n(current, n))
    if not steps:
        steps.append("all rows")
    params["distinct_texts"] = distinct_texts
    return current, _record("; then ".join(steps), params, input_rows, current, exclusions)


@dataclass(frozen=True)
class SpeakerLeakage:
    """Speakers present in both sets (seed 000: record speaker leakage checks).

    Rows without a speaker cannot be checked; they are counted so "no leakage" is never
    claimed over rows nobody could check.
    """

    shared: tuple[str, ...]
    a_speakers: int
    b_speakers: int
    a_rows_without_speaker: int
    b_rows_without_speaker: int

    @property
    def leaked(self) -> bool:
        return bool(self.shared)

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "shared": list(self.shared),
            "a_speakers": self.a_speakers,
            "b_speakers": self.b_speakers,
            "a_rows_without_speaker": self.a_rows_without_speaker,
            "b_rows_without_speaker": self.b_rows_without_speaker,
        }


def speaker_leakage(a_rows: Iterable[Utterance], b_rows: Iterable[Utterance]) -> SpeakerLeakage:
    def speakers(rows: Iterable[Utterance]) -> tuple[set[str], int]:
        found: set[str] = set()
        missing = 0
        for row in rows:
            if row.speaker is None:
                missing += 1
            else:
                found.add(row.speaker)
        return found, missing

    a, a_missing = speakers(a_rows)
    b, b_missing = speakers(b_rows)
    return SpeakerLeakage(
        shared=tuple(sorted(a & b)),
        a_speakers=len(a),
        b_speakers=len(b),
        a_rows_without_speaker=a_missing,
        b_rows_without_speaker=b_missing,
    )


def split_leakage(
    manifest_rows: Iterable[Utterance], selected: Iterable[Utterance]
) -> dict[str, JSONValue]:
    """A run's leakage check: do the evaluated rows share speakers with another split?

    A row's split is `custom["split"]` (e.g. "train", "dev", "test"). The evaluated
    splits are those of the selected rows; the check compares the selected rows with
    every manifest row of any *other* split (rows the selection left out of the evaluated
    splits are not "other": they are the same split, unevaluated). Without a split on any
    row there is nothing to check against, and the record says so rather than "no leakage".
    """
    selected = list(selected)
    chosen = {u.id for u in selected}
    rows = list(manifest_rows)
    if not any(isinstance(u.custom.get("split"), str) for u in rows):
        return {
            "checked": False,
            "reason": 'no manifest row has a split (custom["split"]) to check against',
        }
    evaluated = sorted({str(u.custom["split"]) for u in selected if "split" in u.custom})
    others = [
        u
        for u in rows
        if u.id not in chosen
        and isinstance(u.custom.get("split"), str)
        and u.custom["split"] not in evaluated
    ]
    result = speaker_leakage(selected, others)
    return {
        "checked": True,
        "rule": 'speakers of the selected rows vs rows of every other custom["split"]',
        "evaluated_splits": list(evaluated),
        "other_splits": list(sorted({str(u.custom["split"]) for u in others})),
        "leaked": result.leaked,
        **result.to_dict(),
    }
