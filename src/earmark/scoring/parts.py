"""One chunk's rows under one normaliser, and the predictions.jsonl records built from it.

A part holds the rows' normalised texts and per-view counts while its records are written;
a streamed corpus drops it then, keeping only the counts (`groups.Group`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from earmark.formats.rows import ScoringRow
from earmark.results.codec import JSONValue
from earmark.scoring.metric import METRIC_FOR_UNIT, MIXED_METRIC
from earmark.scoring.row_facts import speaker_of_row
from earmark.text.base import Normalizer

#: One predictions.jsonl record as the scorer builds it (rows stay plain JSON objects:
#: a typed object per row would cost `earmark score` its speed).
RowRecord = dict[str, JSONValue]
COUNT_KEYS = ("substitutions", "deletions", "insertions", "hits", "ref_units", "hyp_units")


def _counts_dict(s: int, d: int, i: int, h: int) -> dict[str, JSONValue]:
    # Same keys and values as ErrorCounts.as_dict(), without building the object per row.
    return {
        "substitutions": s,
        "deletions": d,
        "insertions": i,
        "hits": h,
        "ref_units": s + d + h,
        "hyp_units": s + i + h,
    }


@dataclass
class Part:
    """One chunk's rows under one normaliser: texts and counts per view.

    What a row's predictions.jsonl record is built from. `score_rows` keeps every part
    (records on demand); a streamed corpus drops each once its records are written, and
    its `Group` keeps only the counts.
    """

    normalizer: Normalizer
    rows: list[ScoringRow]
    #: Each row's index in the whole input.
    index: list[int]
    counts: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    available: dict[str, np.ndarray] = field(default_factory=dict)
    #: Per position and view: why the view is unavailable ("" when it is available).
    reasons: dict[str, list[str]] = field(default_factory=dict)
    #: Per position: does the primary view's hypothesis loop (repeated n-grams)?
    repetition: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    #: Per view and position: the normalised (reference, hypothesis), None if unavailable.
    texts: dict[str, list[tuple[str, str] | None]] = field(default_factory=dict)
    count_rows: dict[tuple[str, str], list[list[int]]] = field(default_factory=dict)
    #: `_record_plan`'s cache (None until the first per-row record is built).
    plan: (
        list[tuple[str, list[tuple[str, str] | None], list[tuple[str, list[list[int]]]]]] | None
    ) = None
    #: The view the mixed unit is counted on (None: this normaliser has no mixed unit),
    #: its per-row counts, texts (None where unavailable) and null reasons.
    mixed_view: str | None = None
    mixed_counts: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), dtype=np.int64))
    mixed_texts: list[tuple[str, str] | None] = field(default_factory=list)
    mixed_reasons: list[str] = field(default_factory=list)

    def records(self) -> Iterator[RowRecord]:
        """The part's predictions.jsonl records in row order: raw texts, status, and per
        view the normalised texts and counts. What every row reaches for (the plan of
        views and units, the lists) is bound once per part, not looked up per row."""
        plan = self._record_plan()
        name = self.normalizer.name
        reasons = self.reasons
        mixed_view = self.mixed_view
        mixed_texts = self.mixed_texts
        mixed_counts = self.mixed_counts.tolist() if mixed_view is not None else []
        for pos, r in enumerate(self.rows):
            record: RowRecord = {
                "id": r.id,
                "language": r.language,
                "slices": list(r.slices),
                "status": r.status,
                "reference": r.reference,
                "hypothesis": r.hypothesis,
            }
            if r.cluster is not None:
                record["cluster"] = r.cluster
            if r.extra:
                speaker = speaker_of_row(r)
                if speaker is not None:
                    record["speaker"] = speaker
                markup = r.extra.get("reference_markup")
                if markup is not None:  # what the counts honoured (`scoring.word_counter`)
                    record["reference_markup"] = markup
            record["normalizer"] = name
            views: dict[str, JSONValue] = {}
            for view, texts, per_unit in plan:
                pair = texts[pos]
                if pair is None:
                    views[view] = {"null_reason": reasons[view][pos]}
                    continue
                entry: dict[str, JSONValue] = {"reference": pair[0], "hypothesis": pair[1]}
                for metric, count_rows in per_unit:
                    # Six keys and six counts: zip without `strict` (checked once, in
                    # `_record_plan`), as this runs per unit per row.
                    entry[metric] = dict(zip(COUNT_KEYS, count_rows[pos], strict=False))
                if view == mixed_view:
                    mixed_pair = mixed_texts[pos]
                    if mixed_pair is not None:
                        s, d, i, h = mixed_counts[pos]
                        entry["mixed_reference"], entry["mixed_hypothesis"] = mixed_pair
                        entry[MIXED_METRIC] = _counts_dict(s, d, i, h)
                views[view] = entry
            record["views"] = views
            yield record

    def _record_plan(
        self,
    ) -> list[tuple[str, list[tuple[str, str] | None], list[tuple[str, list[list[int]]]]]]:
        """Per view: its texts and, per unit, (metric name, per-row counts), looked up
        once per part rather than once per row by `view_records`."""
        if self.plan is None:
            plan = []
            for view in self.normalizer.views:
                per_unit = [
                    (METRIC_FOR_UNIT[unit], self._count_rows(view, unit))
                    for unit in self.normalizer.units
                ]
                for _, rows in per_unit:
                    if rows and len(rows[0]) != len(COUNT_KEYS):
                        raise AssertionError("per-row counts do not match COUNT_KEYS")
                plan.append((view, self.texts[view], per_unit))
            self.plan = plan
        return self.plan

    def _count_rows(self, view: str, unit: str) -> list[list[int]]:
        """Per row [S, D, I, hits, ref_units, hyp_units] as ints, converted once per
        (view, unit) instead of once per row."""
        key = (view, unit)
        if key not in self.count_rows:
            a = self.counts[key]
            units = [a[:, 0] + a[:, 1] + a[:, 3], a[:, 0] + a[:, 2] + a[:, 3]]
            self.count_rows[key] = np.column_stack([a, *units]).tolist()
        return self.count_rows[key]


def records_in_order(parts: Sequence[Part], start: int, n: int) -> Iterator[RowRecord]:
    """The records of `parts`, which hold the rows start..start+n-1, in row order."""
    if len(parts) == 1:
        # One part holding every row (one normaliser, the common case).
        yield from parts[0].records()
        return
    # Each part's records come in row order: take the next one of the row's part.
    owner: list[Iterator[RowRecord]] = [iter(())] * n
    for part in parts:
        records = part.records()
        for at in part.index:
            owner[at - start] = records
    for records in owner:
        yield next(records)
