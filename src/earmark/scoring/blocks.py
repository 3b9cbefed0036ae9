"""One block of figures (a `ScopeResult`) from a group's per-row counts at some positions.

A block is what results.json shows for all rows, one language, one slice or one speaker:
the normaliser, row and cluster counts, every view's metrics, statuses and hallucination
counters. Blocks over the same rows are computed once (`Group.blocks`); a block below a
pre-registered minimum keeps its counts and loses its rates.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import replace
from functools import lru_cache
from typing import cast

import numpy as np

from earmark.language_tags import base_language
from earmark.metrics.hallucination import HallucinationCounts, hallucination_counts
from earmark.results.codec import JSONValue
from earmark.results.metric import MetricResult, ViewResult
from earmark.results.scope import Hallucination, NormalizerInfo, ScopeResult
from earmark.scoring.columns import (
    every_row,
    first_appearance,
    present_codes,
    rows_at,
    subset,
    where_available,
)
from earmark.scoring.groups import Group
from earmark.scoring.metric import (
    METRIC_FOR_UNIT,
    MIXED_METRIC,
    SMALL,
    MetricSettings,
    metric_result,
    one_row_result,
)
from earmark.scoring.options import ClusterUnit, ScoringOptions
from earmark.scoring.policy import headline_unit
from earmark.scoring.row_facts import RowFacts
from earmark.stats.protocol_bootstrap import python_random_ci
from earmark.text.base import Normalizer, published_differences


def scope_block(
    group: Group,
    positions: np.ndarray,
    facts: RowFacts,
    options: ScoringOptions,
    cluster_unit: ClusterUnit | None = None,
    speakers: bool = True,
) -> ScopeResult:
    """The block of the group's rows at `positions`, resampled by `cluster_unit` (default:
    the options' unit); `speakers=False` (a single speaker's block) checks the row
    minimum only."""
    unit = options.cluster if cluster_unit is None else cluster_unit
    # The positions by digest, not by their bytes (8 MB a key for 1,000,000 rows).
    memo = unit.encode() + b"\x00" + hashlib.blake2b(np.ascontiguousarray(positions).data).digest()
    block = group.blocks.get(memo)
    if block is None:
        block = group.blocks[memo] = _compute_block(group, positions, facts, options, unit)
    return _apply_minimums(block, options, speakers=speakers)


def _apply_minimums(block: ScopeResult, options: ScoringOptions, *, speakers: bool) -> ScopeResult:
    """Null every figure of a block below a pre-registered minimum, saying why.

    Counts stay (they are what was observed, and `verify` re-derives them); rates,
    intervals and medians go, so a thin slice never shows a number that reads as a result.
    `speakers=False` (a single speaker's block) checks the row count only.
    """
    reasons = []
    n = block.n_utterances
    if options.min_per_slice is not None and n < options.min_per_slice:
        reasons.append(
            f"{n} rows, fewer than the minimum {options.min_per_slice} (--min-per-slice)"
        )
    n_speakers = block.n_speakers or 0
    if speakers and options.min_speakers is not None and n_speakers < options.min_speakers:
        reasons.append(
            f"{n_speakers} speakers, fewer than the minimum {options.min_speakers} (--min-speakers)"
        )
    if not reasons:
        return block
    reason = "below_minimum: " + "; ".join(reasons)
    views = {
        name: ViewResult({key: _null_figures(m, reason) for key, m in view.metrics.items()})
        for name, view in block.views.items()
    }
    return replace(block, below_minimum=reason, views=views)


def _null_figures(metric: MetricResult, reason: str) -> MetricResult:
    """The metric with its rates, interval and median null and `reason` as why (its
    `null_reason` key last when it had none)."""
    order = metric.key_order
    return replace(
        metric,
        value=None,
        ci=None,
        median_per_utterance=None,
        mer=None,
        wil=None,
        wip=None,
        ser=None,
        null_reason=reason,
        key_order=order if "null_reason" in order else (*order, "null_reason"),
    )


def _compute_block(
    group: Group,
    positions: np.ndarray,
    facts: RowFacts,
    options: ScoringOptions,
    cluster_unit: ClusterUnit,
) -> ScopeResult:
    norm = group.normalizer
    every = every_row(positions, group.n)
    # Every row of a group that holds every row of the input (one normaliser): its rows
    # are its positions, and each per-row column is read as it is, not copied (~30 bytes
    # a row less at the peak of a one-language corpus).
    whole = every and group.n == facts.n
    rows = positions if whole else group.indices[positions]
    cluster_codes = facts.bootstrap_codes(rows, cluster_unit, whole=whole)
    speaker_codes = rows_at(facts.speaker_code, rows, whole)
    n_speakers = len(_distinct(speaker_codes[speaker_codes >= 0]))
    settings = _metric_settings(options)
    views: dict[str, ViewResult] = {}
    available: dict[str, _Available] = {}
    for view in norm.views:
        avail = available[view] = _Available(rows_at(group.available[view], positions, every))
        reasons = _NO_REASONS
        if not avail.every:
            view_reasons = group.reasons[view]
            reasons = Counter(view_reasons[p] for p in positions[~avail.mask].tolist())
        metrics = {}
        for unit in norm.units:
            arr = avail.pick(rows_at(group.counts[(view, unit)], positions, every))
            metrics[METRIC_FOR_UNIT[unit]] = _metric(
                arr, avail.pick(cluster_codes), options, settings, reasons, len(positions)
            )
        if view == group.mixed_view:
            metrics[MIXED_METRIC] = _mixed_metric(
                group, positions, cluster_codes, options, settings, every
            )
        views[view] = ViewResult(metrics)
    languages = frozenset(
        base_language(facts.language_names[code])
        for code in _distinct(rows_at(facts.language_code, rows, whole))
    )
    primary = available[norm.primary_view]
    return _block_record(
        group,
        normalizer=_normalizer_info(norm, languages, group.mixed_view),
        n_utterances=int(len(positions)),
        n_clusters=len(_distinct(cluster_codes)),
        n_speakers=n_speakers if n_speakers or options.min_speakers is not None else None,
        views=views,
        statuses=_statuses(rows_at(facts.status_code, rows, whole), facts.status_names),
        hallucination=_hallucination_record(_hallucination(group, positions, primary, every)),
    )


def one_row_blocks(
    group: Group, positions: np.ndarray, facts: RowFacts, options: ScoringOptions
) -> list[ScopeResult]:
    """Each position's own block: `scope_block(group, positions[k:k + 1], facts, options,
    "clip", speakers=False)` for every k, figure for figure.

    A corpus of one-utterance speakers has a block per row, and numpy's cost per call on
    one-element arrays was most of each block's: here every column is read once for all
    positions, and each block is built from its row's Python numbers (a row resamples to
    itself, so no cluster code is read). A row some view leaves out, and a protocol
    drawing with Python's `random`, take the general path.
    """
    if options.protocol is not None and options.protocol.generator == "python-random":
        return [
            _general_one_row(group, positions[k : k + 1], facts, options)
            for k in range(len(positions))
        ]
    norm = group.normalizer
    rows = group.indices[positions]
    settings = _metric_settings(options)
    counted = [(view, unit) for view in norm.views for unit in norm.units]
    counts = {key: group.counts[key][positions].tolist() for key in counted}
    usable = np.ones(len(positions), dtype=bool)
    for view in norm.views:
        usable &= group.available[view][positions]
    mixed = group.mixed_view
    if mixed is not None:
        usable &= group.mixed_available[positions]
        mixed_counts = group.mixed_counts[positions].tolist()
    loops = group.repetition[positions].tolist()
    language_codes = facts.language_code[rows].tolist()
    statuses = facts.status_code[rows].tolist()
    has_speaker = (facts.speaker_code[rows] >= 0).tolist()
    headline = (norm.primary_view, norm.units[0])
    info: dict[int, NormalizerInfo] = {}
    # Rows with the same counts have the same (frozen) metric record: a few hundred
    # distinct word rows among 10,000 one-utterance speakers.
    made: dict[tuple[int, ...], MetricResult] = {}

    def metric_of(row: list[int]) -> MetricResult:
        key = tuple(row)
        found = made.get(key)
        if found is None:
            found = made[key] = one_row_result(row, settings)
        return found

    out: list[ScopeResult] = []
    for k, ok in enumerate(usable.tolist()):
        if not ok:
            out.append(_general_one_row(group, positions[k : k + 1], facts, options))
            continue
        views = {}
        for view in norm.views:
            metrics = {
                METRIC_FOR_UNIT[unit]: metric_of(counts[(view, unit)][k]) for unit in norm.units
            }
            if view == mixed:
                metrics[MIXED_METRIC] = metric_of(mixed_counts[k])
            views[view] = ViewResult(metrics)
        code = language_codes[k]
        if code not in info:
            languages = frozenset({base_language(facts.language_names[code])})
            info[code] = _normalizer_info(norm, languages, mixed)
        s, d, i, h = counts[headline][k]
        block = _block_record(
            group,
            normalizer=info[code],
            n_utterances=1,
            n_clusters=1,
            n_speakers=1 if has_speaker[k] else 0 if options.min_speakers is not None else None,
            views=views,
            statuses={facts.status_names[statuses[k]]: 1},
            hallucination=_hallucination_record(
                _row_hallucination(s + d + h, s + i + h, bool(loops[k]))
            ),
        )
        out.append(_apply_minimums(block, options, speakers=False))
    return out


def _general_one_row(
    group: Group, position: np.ndarray, facts: RowFacts, options: ScoringOptions
) -> ScopeResult:
    """`one_row_blocks`' block of one position by the general path."""
    return scope_block(group, position, facts, options, "clip", speakers=False)


def _block_record(
    group: Group,
    *,
    normalizer: NormalizerInfo,
    n_utterances: int,
    n_clusters: int,
    n_speakers: int | None,
    views: dict[str, ViewResult],
    statuses: dict[str, int],
    hallucination: Hallucination,
) -> ScopeResult:
    """A block's record with no breakdowns yet (they are added later, by `replace`):
    every field given, without the frozen dataclass's `__init__` (~3 us of a one-row
    speaker block's ~30). `n_speakers` is None where rows carry no speakers (and no
    minimum asks for them), so speakerless results keep their shape."""
    return ScopeResult.built(
        {
            "extra": {},
            "key_order": (),
            "normalizer": normalizer,
            "n_utterances": n_utterances,
            "n_clusters": n_clusters,
            "n_speakers": n_speakers,
            "primary_view": group.normalizer.primary_view,
            "views": views,
            "statuses": statuses,
            "hallucination": hallucination,
            "below_minimum": None,
            "by_slice": None,
            "by_speaker": None,
        }
    )


#: No row left out (shared, never changed).
_NO_REASONS: Counter[str] = Counter()

#: The last options' `metric_settings` (options, settings): every block of a run shares
#: one options object, and building the settings anew cost ~4 us a block.
_LAST_SETTINGS: list[tuple[ScoringOptions, MetricSettings]] = []


def _metric_settings(options: ScoringOptions) -> MetricSettings:
    """`options.metric_settings`, made once per options object (frozen, so it stays true)."""
    if _LAST_SETTINGS and _LAST_SETTINGS[0][0] is options:
        return _LAST_SETTINGS[0][1]
    settings = options.metric_settings
    # Holding the options keeps their id from being reused while the entry lives.
    _LAST_SETTINGS[:] = [(options, settings)]
    return settings


class _Available:
    """Which of a block's rows have a view, and those rows of a per-row column: the
    column itself when all do, read without a numpy reduction for a few rows."""

    __slots__ = ("every", "mask")

    def __init__(self, mask: np.ndarray) -> None:
        self.mask = mask
        self.every = all(mask.tolist()) if len(mask) < SMALL else bool(mask.all())

    def pick(self, values: np.ndarray) -> np.ndarray:
        out: np.ndarray = values if self.every else values[self.mask]
        return out


def _statuses(codes: np.ndarray, names: list[str]) -> dict[str, int]:
    """Rows per status, by name (a count per code for many rows, a Counter for a few)."""
    if len(codes) == 1:
        return {names[int(codes[0])]: 1}
    if len(codes) < SMALL:
        counted = {names[code]: count for code, count in Counter(codes.tolist()).items()}
    else:
        counts = np.bincount(codes, minlength=len(names)).tolist()
        counted = {names[code]: int(count) for code, count in enumerate(counts) if count}
    return dict(sorted(counted.items()))


def _distinct(codes: np.ndarray) -> list[int]:
    """`present_codes`, in time linear in the block's rows: a count per code is as long as
    the largest code, so one per speaker block of 10,000 speakers would be quadratic; a
    few rows go through a set, a block far smaller than its largest code through a sort."""
    if codes.size < 64:
        return sorted(set(codes.tolist()))
    if int(codes.max()) > 4 * codes.size:
        distinct: list[int] = np.unique(codes).tolist()
        return distinct
    return present_codes(codes)


#: The `normalizer` records made so far, by (normaliser's id, languages, mixed view, its
#: engines' versions):
#: every speaker block of a language has the same one. Each entry holds its normaliser,
#: so an id is never reused while its entry lives; bounded.
_NORMALIZER_INFO: dict[
    tuple[int, frozenset[str], str | None, str], tuple[Normalizer, NormalizerInfo]
] = {}


def _normalizer_info(
    norm: Normalizer, languages: frozenset[str], mixed_view: str | None
) -> NormalizerInfo:
    """The block's `normalizer` record: name, units, headline unit, and what it leans on."""
    # The libraries a normaliser leans on are asked every time (their availability can
    # change in a long-lived process): only what depends on the normaliser alone is kept.
    engine_versions = getattr(norm, "engine_versions", None)
    engines = repr(engine_versions()) if callable(engine_versions) else ""
    key = (id(norm), languages, mixed_view, engines)
    found = _NORMALIZER_INFO.get(key)
    if found is not None and found[0] is norm:
        return found[1]
    info = _make_normalizer_info(norm, languages, mixed_view)
    if len(_NORMALIZER_INFO) < 256:
        _NORMALIZER_INFO[key] = (norm, info)
    return info


def _make_normalizer_info(
    norm: Normalizer, languages: frozenset[str], mixed_view: str | None
) -> NormalizerInfo:
    headline = headline_unit(norm, languages)
    engines: JSONValue = None
    engine_versions = getattr(norm, "engine_versions", None)
    if callable(engine_versions):
        # The library a normaliser delegates to (cn2an for zh-itn-v1) and its version.
        engines = cast("JSONValue", engine_versions())
    differs = [d.to_dict() for d in published_differences(norm) if languages & {*d.languages, ""}]
    return NormalizerInfo(
        name=norm.name,
        comparison_only=norm.comparison_only,
        units=tuple(norm.units),
        headline_unit=headline["headline_unit"],
        headline_unit_reason=headline["headline_unit_reason"],
        mixed_unit=None if mixed_view is None else {"view": mixed_view, "metric": MIXED_METRIC},
        engines=engines,
        differs_from_publication=cast("JSONValue", differs) if differs else None,
    )


def _metric(
    arr: np.ndarray,
    cluster_codes: np.ndarray,
    options: ScoringOptions,
    settings: MetricSettings,
    null_reasons: Counter[str],
    n_rows: int,
) -> MetricResult:
    """One metric of a block (`settings`: the options' `metric_settings`); a protocol
    drawing with Python's `random` draws its CI."""
    python_random = options.protocol is not None and options.protocol.generator == "python-random"
    # Numbered by first appearance among exactly these rows, as the key strings were.
    clusters = cluster_codes
    if len(cluster_codes) <= 1:
        pass  # one row resamples to itself, whatever its cluster is called
    elif settings.resamples > 0 and not _increasing(cluster_codes):
        clusters = first_appearance(cluster_codes)
    elif settings.resamples > 0:
        # Distinct and in order (each row its own clip): numbered 0, 1, ... as they come.
        clusters = np.arange(len(cluster_codes), dtype=np.int64)
    drawn = replace(settings, resamples=0) if python_random else settings
    out = metric_result(arr, clusters, drawn, null_reasons=null_reasons, n_rows=n_rows)
    if python_random and out.value is not None and settings.resamples > 0:
        ci = python_random_ci(
            (arr[:, 0] + arr[:, 1] + arr[:, 2]).tolist(),
            (arr[:, 0] + arr[:, 1] + arr[:, 3]).tolist(),
            clusters=clusters.tolist() if len(set(clusters.tolist())) < len(arr) else None,
            resamples=settings.resamples,
            seed=settings.seed,
            level=settings.level,
        )
        if ci is not None:
            out = replace(out, ci=(ci.low, ci.high))
    return out


def _increasing(codes: np.ndarray) -> bool:
    """Whether every code is larger than the one before (so each is its own first)."""
    return bool(np.all(codes[1:] > codes[:-1]))


def _mixed_metric(
    group: Group,
    positions: np.ndarray,
    cluster_codes: np.ndarray,
    options: ScoringOptions,
    settings: MetricSettings,
    every: bool,
) -> MetricResult:
    avail = rows_at(group.mixed_available, positions, every)
    reasons = Counter(group.mixed_reasons[p] for p in positions[~avail].tolist())
    arr = subset(group.mixed_counts, positions, avail, every)
    return _metric(
        arr, where_available(cluster_codes, avail), options, settings, reasons, len(positions)
    )


def _hallucination(
    group: Group, positions: np.ndarray, avail: _Available, every: bool
) -> HallucinationCounts:
    """Hallucination flags from the primary view's counts (rows where it is available)."""
    norm = group.normalizer
    arr = avail.pick(rows_at(group.counts[(norm.primary_view, norm.units[0])], positions, every))
    loops = avail.pick(rows_at(group.repetition, positions, every))
    if len(arr) == 1:
        # One row (each speaker of one utterance): its flags are the block's
        # (`HallucinationCounts() + x` adds zeros to every counter).
        (s, d, i, h), loop = arr.tolist()[0], bool(loops[0])
        return _row_hallucination(s + d + h, s + i + h, loop)
    if len(arr) < SMALL:
        # The flags add row by row, and a row's depend on three small numbers only.
        total = HallucinationCounts()
        for (s, d, i, h), loop in zip(arr.tolist(), loops.tolist(), strict=True):
            total = total + _row_hallucination(s + d + h, s + i + h, bool(loop))
        return total
    return hallucination_counts(
        arr[:, 0] + arr[:, 1] + arr[:, 3], arr[:, 0] + arr[:, 2] + arr[:, 3], loops
    )


@lru_cache(maxsize=4096)
def _row_hallucination(ref_units: int, hyp_units: int, loop: bool) -> HallucinationCounts:
    """One row's flags (`hallucination_counts` of that row), made once per distinct row."""
    return hallucination_counts([ref_units], [hyp_units], [loop])


@lru_cache(maxsize=1024)
def _hallucination_record(h: HallucinationCounts) -> Hallucination:
    """The counters as results.json's record (the rates as the counters give them)."""
    rates = h.as_dict()
    return Hallucination(
        rows=h.rows,
        no_speech_rows=h.no_speech_rows,
        no_speech_with_output=h.no_speech_with_output,
        no_speech_output_rate=cast("float | None", rates["no_speech_output_rate"]),
        empty_outputs=h.empty_outputs,
        empty_output_rate=cast("float | None", rates["empty_output_rate"]),
        repetition_loops=h.repetition_loops,
        runaway_outputs=h.runaway_outputs,
    )
