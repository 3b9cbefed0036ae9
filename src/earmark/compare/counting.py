"""Per-row error counts for many arms, normalising and aligning each distinct pair once.

`earmark score` (`score_rows`) normalises and aligns every row it is given. A comparison
of a dozen arms asks for the same pairs over and over: arms that agree produce the same
(reference, hypothesis) pair, and the reference arm's text is the reference of every
"vs reference arm" figure. `PairCounter` therefore keys each pair by (normaliser,
reference, hypothesis), normalises and counts it once, and hands back per-row *indices*
into a table of counts. Only two views are counted: each normaliser's primary view (the
headline figure) and its raw view (for the ranking-flip diagnostic).

`metric_object` turns a counts array into the results-schema metric object exactly as
`earmark.scoring.scorer` does (a test pins the two together), so a compare figure and a
results.json figure for the same rows are the same numbers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from earmark.metrics.alignment import count_errors_array
from earmark.scoring.metric import metric_object as shared_metric_object
from earmark.scoring.policy import NormalizerPolicy
from earmark.text import get_normalizer
from earmark.text.base import Normalizer

IntArray = NDArray[np.int64]
#: The two views counted: the normaliser's primary view and its raw view.
VIEW_KINDS = ("primary", "raw")
METRIC_FOR_UNIT = {"word": "wer", "char": "cer"}
UNIT_FOR_METRIC = {"wer": "word", "cer": "char"}


@dataclass(frozen=True)
class BootstrapSettings:
    resamples: int
    seed: int
    level: float = 0.95
    aggregate: str = "micro"

    def to_dict(self) -> dict[str, Any]:
        return {"resamples": self.resamples, "seed": self.seed, "level": self.level}


@dataclass
class PairCounter:
    """A growing table of distinct (normaliser, reference, hypothesis) pairs and their counts.

    Table columns per (view kind, unit): S, D, I, hits. An entry whose view is unavailable
    (e.g. OpenCC missing) has zero counts and its reason in `reasons`.
    """

    policy: NormalizerPolicy
    _index: dict[tuple[str, str, str, bool], int] = field(default_factory=dict)
    normalizer_of: list[str] = field(default_factory=list)
    #: Primary-view texts of each entry (for diagnostics: loops, no-speech).
    primary_reference: list[str] = field(default_factory=list)
    primary_hypothesis: list[str] = field(default_factory=list)
    reasons: dict[str, list[str]] = field(default_factory=dict)
    _tables: dict[tuple[str, str], list[IntArray]] = field(default_factory=dict)
    _pending: dict[tuple[str, str, str], list[tuple[str, str]]] = field(default_factory=dict)
    _pending_at: dict[tuple[str, str, str], list[int]] = field(default_factory=dict)
    _by_language: dict[str | None, str] = field(default_factory=dict)
    _flat: dict[tuple[str, str], IntArray] = field(default_factory=dict)
    _normalizers: dict[str, Normalizer] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.reasons = {kind: [] for kind in VIEW_KINDS}

    def normalizer_name(self, language: str | None) -> str:
        name = self._by_language.get(language)
        if name is None:
            name = self._by_language[language] = self.policy.for_language(language)
        return name

    def normalizer(self, name: str) -> Normalizer:
        norm = self._normalizers.get(name)
        if norm is None:
            norm = self._normalizers[name] = get_normalizer(name)
        return norm

    def index_rows(
        self,
        references: Sequence[str],
        hypotheses: Sequence[str],
        languages: Sequence[str | None],
        *,
        with_raw: bool = True,
    ) -> IntArray:
        """Table index of each row's pair, counting new pairs (normalise + align once).

        `with_raw=False` skips the raw-view counts (only the ranking-flip diagnostic on
        the human reference needs them); such entries are cached apart."""
        out = np.empty(len(references), dtype=np.int64)
        index = self._index
        names = [self.normalizer_name(lang) for lang in languages]
        for pos, (ref, hyp, name) in enumerate(zip(references, hypotheses, names, strict=True)):
            key = (name, ref, hyp, with_raw)
            found = index.get(key)
            if found is None:
                found = index[key] = self._add(name, ref, hyp, with_raw)
            out[pos] = found
        self._flush()
        return out

    def _add(self, name: str, ref: str, hyp: str, with_raw: bool) -> int:
        norm = self.normalizer(name)
        entry = len(self.normalizer_of)
        self.normalizer_of.append(name)
        pairs = norm.normalize_pair(ref, hyp)
        for kind in VIEW_KINDS:
            if kind == "raw" and not with_raw:
                self.reasons[kind].append("raw view not counted for this comparison")
                continue
            view = norm.primary_view if kind == "primary" else "raw"
            pair = pairs[view]
            if pair.null_reason is not None or pair.reference is None or pair.hypothesis is None:
                self.reasons[kind].append(pair.null_reason or "view_unavailable")
                if kind == "primary":
                    self.primary_reference.append("")
                    self.primary_hypothesis.append("")
                continue
            self.reasons[kind].append("")
            if kind == "primary":
                self.primary_reference.append(pair.reference)
                self.primary_hypothesis.append(pair.hypothesis)
            for unit in norm.units:
                self._pending.setdefault((kind, unit, name), []).append(
                    (pair.reference, pair.hypothesis)
                )
                self._pending_at.setdefault((kind, unit, name), []).append(entry)
        return entry

    def _flush(self) -> None:
        total = len(self.normalizer_of)
        for kind in VIEW_KINDS:
            for unit in ("word", "char"):
                key = (kind, unit)
                have = sum(len(a) for a in self._tables.get(key, []))
                block = np.zeros((total - have, 4), dtype=np.int64)
                for (pk, pu, _name), pairs in self._pending.items():
                    if pk != kind or pu != unit or not pairs:
                        continue
                    counted = count_errors_array(
                        pairs, units="words" if unit == "word" else "given"
                    )
                    at = np.asarray(self._pending_at[(pk, pu, _name)], dtype=np.int64) - have
                    block[at] = counted
                if len(block):
                    self._tables.setdefault(key, []).append(block)
                    self._flat.pop(key, None)
        self._pending.clear()
        self._pending_at.clear()

    def table(self, kind: str, unit: str) -> IntArray:
        key = (kind, unit)
        flat = self._flat.get(key)
        if flat is None:
            blocks = self._tables.get(key) or [np.zeros((0, 4), dtype=np.int64)]
            flat = self._flat[key] = np.concatenate(blocks)
        return flat

    def units(self, name: str) -> tuple[str, ...]:
        return tuple(self.normalizer(name).units)


@dataclass
class RowCounts:
    """One arm's rows against one kind of reference (human, or the reference arm)."""

    counter: PairCounter
    entries: IntArray
    normalizers: list[str]
    _available: dict[str, NDArray[np.bool_]] = field(default_factory=dict)

    def counts(self, unit: str, kind: str = "primary") -> IntArray:
        return self.counter.table(kind, unit)[self.entries]

    def available(self, kind: str = "primary") -> NDArray[np.bool_]:
        """Per row: is the view available (cached; the table only grows)."""
        cached = self._available.get(kind)
        if cached is None:
            ok = np.asarray([r == "" for r in self.counter.reasons[kind]], dtype=bool)
            cached = self._available[kind] = ok[self.entries] if len(ok) else ok
        return cached

    def reason(self, position: int, kind: str = "primary") -> str:
        return self.counter.reasons[kind][int(self.entries[position])]


def count_rows(
    counter: PairCounter,
    references: Sequence[str],
    hypotheses: Sequence[str | None],
    languages: Sequence[str | None],
    *,
    with_raw: bool = True,
) -> RowCounts:
    """Counts of each row; a missing hypothesis is scored as empty (all deletions)."""
    hyps = [h if h is not None else "" for h in hypotheses]
    entries = counter.index_rows(references, hyps, languages, with_raw=with_raw)
    normalizers = [counter.normalizer_name(lang) for lang in languages]
    return RowCounts(counter, entries, normalizers)


def metric_object(
    counts: IntArray,
    clusters: NDArray[np.int64] | None,
    settings: BootstrapSettings,
    null_reasons: Counter[str] | None = None,
    n_rows: int | None = None,
) -> dict[str, Any]:
    """The results-schema metric object from per-row S/D/I/hits: the scorer's own
    `scoring.metric.metric_object`, so compare and score can never disagree."""
    return shared_metric_object(
        counts,
        clusters,
        aggregate=settings.aggregate,
        resamples=settings.resamples,
        seed=settings.seed,
        level=settings.level,
        null_reasons=null_reasons,
        n_rows=n_rows,
    )


def null_metric(reason: str, aggregate: str) -> dict[str, Any]:
    """A figure that cannot be computed: null, with why (never an invented number)."""
    return {"value": None, "ci95": None, "aggregate": aggregate, "null_reason": reason}


def scope_metrics(
    rows: RowCounts,
    positions: NDArray[np.int64],
    clusters: NDArray[np.int64] | None,
    settings: BootstrapSettings,
) -> dict[str, Any]:
    """{"wer": metric, "cer": metric} on the primary view over `positions` (one scope).

    Null with a reason when the scope mixes normalisers (their figures are never summed)
    or the normaliser has no such unit (zh-eval-v1 scores characters only).
    """
    agg = settings.aggregate
    names = sorted({rows.normalizers[p] for p in positions.tolist()})
    if len(positions) == 0:
        return {"wer": null_metric("no rows", agg), "cer": null_metric("no rows", agg)}
    if len(names) > 1:
        reason = f"rows are scored with different normalisers ({', '.join(names)}); see by_language"
        return {"wer": null_metric(reason, agg), "cer": null_metric(reason, agg)}
    units = rows.counter.units(names[0])
    available = rows.available()[positions]
    reasons = Counter(rows.reason(p) for p in positions[~available].tolist())
    kept = positions[available]
    out: dict[str, Any] = {}
    for metric, unit in UNIT_FOR_METRIC.items():
        if unit not in units:
            out[metric] = null_metric(f"normaliser {names[0]} has no {unit} units", agg)
            continue
        counts = rows.counts(unit)[kept]
        sub = None if clusters is None else clusters[kept]
        out[metric] = metric_object(counts, sub, settings, reasons, len(positions))
    return out
