"""The timestamp-accuracy section of a results file: word and segment boundary offsets.

Built from recordings whose manifest row carries reference timings (`custom.segments`,
`custom.words`) and whose prediction carries hypothesis timings (`segments`, `words`),
per language (words are paired in the language's normaliser, so figures of different
normalisers are never pooled). Offsets pool over every paired unit of the language: the
median is over all pairs, not a median of recordings. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from earmark.errors import EarmarkError
from earmark.metrics.long_form import Segment
from earmark.metrics.timestamps import (
    THRESHOLDS,
    BoundaryOffsets,
    SegmentRule,
    segment_offsets,
    word_offsets,
)
from earmark.results.codec import JSONValue
from earmark.scoring.policy import NormalizerPolicy

TIMESTAMPS_DEFINITION = (
    "boundary offsets hypothesis - reference in seconds; words paired by the text "
    "alignment of each word normalised alone (hits only), segments paired one-to-one by "
    "{rule}; mean/median of absolute offsets, signed mean, share within 100/200 ms "
    "(inclusive), pooled over every pair of the language (earmark.metrics.timestamps)"
)
NO_REFERENCE_TIMINGS = "no_reference_timings"
NO_HYPOTHESIS_TIMINGS = "no_hypothesis_timings"
LEVELS = ("words", "segments")


@dataclass(frozen=True)
class TimedRecording:
    """One recording's timings on both sides. `None` on the hypothesis side means the system
    gave no timings of that level (excluded, listed); `[]` means it gave no output (every
    reference unit unpaired)."""

    id: str
    language: str | None
    reference_segments: Sequence[Segment] | None = None
    hypothesis_segments: Sequence[Segment] | None = None
    reference_words: Sequence[Segment] | None = None
    hypothesis_words: Sequence[Segment] | None = None

    @classmethod
    def from_mapping(cls, item: Mapping[str, Any]) -> TimedRecording:
        if "id" not in item:
            raise EarmarkError("a timed recording needs an 'id'", field="id")
        return cls(
            id=str(item["id"]),
            language=item.get("language"),
            reference_segments=item.get("reference_segments"),
            hypothesis_segments=item.get("hypothesis_segments"),
            reference_words=item.get("reference_words"),
            hypothesis_words=item.get("hypothesis_words"),
        )

    def sides(self, level: str) -> tuple[Sequence[Segment] | None, Sequence[Segment] | None]:
        if level == "words":
            return self.reference_words, self.hypothesis_words
        return self.reference_segments, self.hypothesis_segments


def _level_block(offsets: BoundaryOffsets, recordings: int) -> dict[str, JSONValue]:
    return {"recordings": recordings, **cast("dict[str, JSONValue]", offsets.as_dict())}


def timestamps_section(
    recordings: Sequence[TimedRecording | Mapping[str, Any]],
    policy: NormalizerPolicy,
    *,
    rule: SegmentRule = "overlap",
) -> dict[str, JSONValue] | None:
    """Per language, word and segment boundary offsets; None when nothing has timings on
    both sides. A recording with reference timings but none from the system is listed
    under `excluded` (per level) with a reason code, never silently dropped."""
    items = [
        r if isinstance(r, TimedRecording) else TimedRecording.from_mapping(r) for r in recordings
    ]
    excluded: dict[str, list[dict[str, str]]] = {level: [] for level in LEVELS}
    pooled: dict[str, dict[str, BoundaryOffsets]] = {}
    counted: dict[str, dict[str, int]] = {}
    for rec in items:
        language = rec.language or "und"
        for level in LEVELS:
            reference, hypothesis = rec.sides(level)
            if reference is None:
                continue  # the manifest gives no timings of this level: nothing to score
            if hypothesis is None:
                excluded[level].append({"id": rec.id, "reason": NO_HYPOTHESIS_TIMINGS})
                continue
            if level == "words":
                normalizer = policy.for_language(rec.language)
                offsets = word_offsets(reference, hypothesis, normalizer)
            else:
                offsets = segment_offsets(reference, hypothesis, rule=rule)
            blocks = pooled.setdefault(language, {})
            blocks[level] = blocks.get(level, BoundaryOffsets.zero()) + offsets
            counts = counted.setdefault(language, {})
            counts[level] = counts.get(level, 0) + 1
    if not pooled:
        return None
    by_language: dict[str, JSONValue] = {}
    for language in sorted(pooled):
        block: dict[str, JSONValue] = {}
        if "words" in pooled[language]:
            block["normalizer"] = policy.for_language(None if language == "und" else language)
        for level in LEVELS:
            if level in pooled[language]:
                block[level] = _level_block(pooled[language][level], counted[language][level])
        by_language[language] = block
    return {
        "metric": "timestamps",
        "definition": TIMESTAMPS_DEFINITION.format(
            rule="maximal overlap" if rule == "overlap" else "midpoint containment"
        ),
        "segment_rule": rule,
        "thresholds_seconds": list(THRESHOLDS),
        "n_recordings": len(items),
        "excluded": cast("JSONValue", excluded),
        "by_language": by_language,
    }
