"""The long-recording section of a results file: rate by interval, omissions, repeats.

Seed 000 asks long recordings (30-120+ min) to report *CER by interval, omissions,
repeats*. This builds that section from recordings whose manifest row carries reference
segments (`custom["segments"]`) and whose prediction carries hypothesis segments, per
language (each language scored with the normaliser the policy names; figures from
different normalisers are never summed). Pure: no I/O.

The interval error rate is attributed (`earmark.metrics.long_form`): recomputed from
summed interval counts, with a bootstrap interval that resamples whole recordings
(clusters = recording id), since intervals of one recording are not independent. With
`--repeats`, the repeats of one recording share a `cluster` and are drawn together, as
everywhere else in earmark: N decodes of one audio are not N independent recordings, and
resampling them apart would narrow the interval by about sqrt(N) for nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from earmark.errors import EarmarkError
from earmark.metrics.counts import ErrorCounts
from earmark.metrics.long_form import (
    GapPolicy,
    LongFormResult,
    Rule,
    Segment,
    error_rate_by_time,
    interval_counts,
)
from earmark.results.codec import JSONValue
from earmark.scoring.policy import NormalizerPolicy
from earmark.stats.bootstrap import bootstrap_ci
from earmark.stats.settings import (
    DEFAULT_GENERATOR,
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
)

LONG_FORM_DEFINITION = (
    "seed 000 long recordings: each hypothesis segment is attributed to the reference "
    "interval [start, end) holding its time midpoint (boundary ties to the later interval; "
    "gap outputs to the nearest interval unless gaps='separate'); per-interval S/D/I in the "
    "normaliser's primary view and first unit; interval error rate = summed errors / summed "
    "reference units (an attribution, not a whole-text alignment); an interval is omitted "
    "when its reference has units and its attributed hypothesis none; repeats = consecutive "
    "identical normalised segments and in-segment n-gram loops (earmark.metrics.long_form)"
)
NO_REFERENCE_SEGMENTS = "no_reference_segments"
NO_HYPOTHESIS_SEGMENTS = "no_hypothesis_segments"
NO_REFERENCE_UNITS = "no reference units in any interval"
#: Omitted intervals and repeats listed per language before the lists are cut short.
MAX_LISTED = 200


@dataclass(frozen=True)
class SegmentedRecording:
    """One recording's segments. `hypothesis_segments=None` means the system gave no
    timestamps (excluded, listed); `[]` means it gave no output (every interval omitted).

    `cluster` is the bootstrap resampling unit: the source recording's id, shared by its
    repeats (`id` is then `rec#0`, `rec#1`, ...). None means the recording is its own
    cluster (`id`).
    """

    id: str
    language: str | None
    reference_segments: Sequence[Segment] | None
    hypothesis_segments: Sequence[Segment] | None
    cluster: str | None = None

    @property
    def cluster_id(self) -> str:
        """The id the bootstrap resamples by: `cluster`, else the recording's own id."""
        return self.id if self.cluster is None else self.cluster

    @classmethod
    def from_mapping(cls, item: Mapping[str, Any]) -> SegmentedRecording:
        """From `{id, language, reference_segments, hypothesis_segments[, cluster]}`."""
        if "id" not in item:
            raise EarmarkError("a segmented recording needs an 'id'", field="id")
        cluster = item.get("cluster")
        return cls(
            id=str(item["id"]),
            language=item.get("language"),
            reference_segments=item.get("reference_segments"),
            hypothesis_segments=item.get("hypothesis_segments"),
            cluster=None if cluster is None else str(cluster),
        )


def _rate(counts: ErrorCounts) -> float | None:
    return counts.error_rate()


def _language_block(
    recordings: Sequence[SegmentedRecording],
    results: Sequence[LongFormResult],
    normalizer: str,
    *,
    bin_seconds: float,
    resamples: int,
    seed: int,
    level: float,
    generator: str,
) -> dict[str, JSONValue]:
    total = sum((r.total for r in results), ErrorCounts.zero())
    whole_known = [r.whole for r in results if r.whole is not None]
    omitted = [
        {"id": rec.id, "start": i.start, "end": i.end}
        for rec, r in zip(recordings, results, strict=True)
        for i in r.intervals
        if i.omitted
    ]
    repeats = [
        {"id": rec.id, "kind": p.kind, "start": p.start, "end": p.end, "text": p.text}
        for rec, r in zip(recordings, results, strict=True)
        for p in r.repeats
    ]
    gap_outputs = sum(len(r.gap_outputs) for r in results)
    speech = sum(r.speech_intervals for r in results)
    rate: dict[str, JSONValue] = {"value": _rate(total), "ci95": None, "null_reason": None}
    if rate["value"] is None:
        rate["null_reason"] = NO_REFERENCE_UNITS
    elif resamples > 0:
        ci = bootstrap_ci(
            [r.total.errors for r in results],
            [r.total.ref_units for r in results],
            clusters=[rec.cluster_id for rec in recordings],
            resamples=resamples,
            seed=seed,
            level=level,
            generator=generator,
        )
        rate["ci95"] = [ci.low, ci.high]
        rate["n_clusters"] = ci.n_clusters
    unit = results[0].unit
    return {
        "normalizer": normalizer,
        "view": results[0].view,
        "unit": unit,
        "metric": "cer" if unit == "char" else "wer",
        "recordings": len(results),
        "intervals_scored": sum(len(r.intervals) for r in results),
        "speech_intervals": speech,
        "interval_error_rate": rate,
        "counts": cast("JSONValue", total.as_dict()),
        "whole_text_error_rate": (
            _rate(sum(whole_known, ErrorCounts.zero()))
            if len(whole_known) == len(results)
            else None
        ),
        "omitted": {
            "count": len(omitted),
            "rate": len(omitted) / speech if speech else None,
            "listed": cast("JSONValue", omitted[:MAX_LISTED]),
            "truncated": len(omitted) > MAX_LISTED,
        },
        "repeats": {
            "count": len(repeats),
            "consecutive_duplicates": sum(1 for p in repeats if p["kind"] != "loop"),
            "loops": sum(1 for p in repeats if p["kind"] == "loop"),
            "listed": cast("JSONValue", repeats[:MAX_LISTED]),
            "truncated": len(repeats) > MAX_LISTED,
        },
        "gap_outputs": gap_outputs,
        "by_time": {
            "bin_seconds": bin_seconds,
            "bins": cast(
                "JSONValue", [b.as_dict() for b in error_rate_by_time(results, bin_seconds)]
            ),
        },
    }


def long_form_section(
    rows_with_segments: Sequence[SegmentedRecording | Mapping[str, Any]],
    policy: NormalizerPolicy,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    generator: str = DEFAULT_GENERATOR,
    bin_seconds: float = 600.0,
    rule: Rule = "midpoint",
    gaps: GapPolicy = "nearest",
) -> dict[str, JSONValue] | None:
    """The long-form section, or None when no recording has both kinds of segments.

    Recordings missing either side are listed under `excluded` with a reason code, never
    silently dropped. `resamples=0` skips the bootstrap (`ci95` is then None); `generator`
    draws it (`earmark.stats.settings.GENERATORS`) and is recorded.
    """
    recordings = [
        r if isinstance(r, SegmentedRecording) else SegmentedRecording.from_mapping(r)
        for r in rows_with_segments
    ]
    excluded: list[JSONValue] = []
    by_language: dict[str, list[SegmentedRecording]] = {}
    for rec in recordings:
        if rec.reference_segments is None:
            excluded.append({"id": rec.id, "reason": NO_REFERENCE_SEGMENTS})
        elif rec.hypothesis_segments is None:
            excluded.append({"id": rec.id, "reason": NO_HYPOTHESIS_SEGMENTS})
        else:
            by_language.setdefault(rec.language or "", []).append(rec)
    if not by_language:
        return None

    languages: dict[str, JSONValue] = {}
    for language in sorted(by_language):
        chosen = by_language[language]
        normalizer = policy.for_language(language or None)
        results = [
            interval_counts(
                rec.reference_segments or [],
                rec.hypothesis_segments or [],
                normalizer,
                rule=rule,
                gaps=gaps,
            )
            for rec in chosen
        ]
        languages[language or "und"] = _language_block(
            chosen,
            results,
            normalizer,
            bin_seconds=bin_seconds,
            resamples=resamples,
            seed=seed,
            level=level,
            generator=generator,
        )
    return {
        "metric": "long-form",
        "definition": LONG_FORM_DEFINITION,
        "rule": rule,
        "gaps": gaps,
        "bootstrap": {
            "resamples": resamples,
            "seed": seed,
            "level": level,
            "generator": generator,
        },
        "n_recordings": len(recordings),
        "n_scored": len(recordings) - len(excluded),
        "excluded": excluded,
        "by_language": languages,
    }
