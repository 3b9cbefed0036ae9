"""Score reference/hypothesis rows: normalise both sides, count edits, aggregate, bootstrap.

Per row and per (view, unit) the scorer keeps the four counts S, D, I, C in a numpy
array; every figure (micro rate, macro rate, CIs, breakdowns by language and slice) is
computed from those counts, so the numbers in `results.json` can be re-derived from
`predictions.jsonl` alone (`earmark verify` does exactly that).

Rows are grouped by the normaliser their language gets; figures from different
normalisers are never summed (the top-level `overall` block is null with a reason then).
"""

from __future__ import annotations

import copy
import gc
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from earmark.errors import EarmarkError
from earmark.metrics.alignment import EditTally, count_errors_array
from earmark.metrics.hallucination import (
    LOOP_MIN_REPEATS,
    HallucinationCounts,
    hallucination_counts,
    repetition_loop,
)
from earmark.metrics.tokens import (
    CHAR_CONVENTION,
    MIXED_CONVENTION,
    WORD_CONVENTION,
    chars,
    mixed,
    words,
)
from earmark.scoring.metric import metric_object
from earmark.scoring.policy import NormalizerPolicy, headline_unit, mixed_unit
from earmark.scoring.protocols import Protocol
from earmark.scoring.rows import ScoringRow
from earmark.stats.protocol_bootstrap import python_random_ci
from earmark.text import get_normalizer
from earmark.text.base import Normalizer, published_differences

if TYPE_CHECKING:
    from earmark.scoring.glm import Glm
    from earmark.text.base import ViewPair

Aggregate = Literal["micro", "macro"]
#: The bootstrap's resampling unit: the clip (rows sharing a `cluster` key, i.e. repeats of
#: one clip, go together), or the speaker (every row of one speaker goes together; rows
#: without a speaker stay clip clusters).
ClusterUnit = Literal["clip", "speaker"]
CLUSTER_UNITS: tuple[str, ...] = ("clip", "speaker")
METRIC_FOR_UNIT = {"word": "wer", "char": "cer"}
#: The mixed unit's metric (CJK characters + other words; SpeechIO's "MER"). Not `mer`:
#: that key already means the match error rate inside every metric object.
MIXED_METRIC = "mixed_er"
TOKENIZER = {"word": words, "char": chars}
DEFAULT_SEED = 20260926
EMPTY_REFERENCE_CONVENTION = (
    "per-utterance rate with an empty reference is 0 when the hypothesis is empty, else 1 "
    "(macro only; micro rates sum counts)"
)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while building per-row objects.

    Scoring allocates a few dicts and tuples per row, none in a reference cycle; with the
    collector on, its repeated passes over every live row cost more than the work itself
    (records of 100,000 rows: 1.0 s with it, 0.33 s without). Reference counting still
    frees everything; the collector resumes on exit.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@dataclass(frozen=True)
class ScoringOptions:
    """Everything that changes a number; recorded in every result."""

    policy: NormalizerPolicy
    aggregate: Aggregate = "micro"
    resamples: int = 10_000
    seed: int = DEFAULT_SEED
    level: float = 0.95
    #: Break figures down by slice too (manifest `slices`).
    by_slice: bool = True
    #: The published protocol these settings follow (`--protocol`); it also chooses the
    #: bootstrap generator and quantile rule.
    protocol: Protocol | None = None
    #: The bootstrap unit of every block except a single speaker's (see `ClusterUnit`).
    #: "clip" by default: seed 000 asks for independent speakers and a minimum speaker
    #: count, not for speaker-level intervals; "speaker" widens intervals honestly when
    #: one speaker contributes many rows.
    cluster: ClusterUnit = "clip"
    #: Break figures down by speaker too (when rows carry one; `row.extra["speaker"]`).
    by_speaker: bool = True
    #: Pre-registered minimums (seed 000): a language, slice or speaker block with fewer
    #: rows than `min_per_slice`, or a language or slice block with fewer distinct speakers
    #: than `min_speakers`, reports null figures with a `below_minimum` reason.
    min_per_slice: int | None = None
    min_speakers: int | None = None
    #: Alternate spellings and optional words (`--glm`): word counts of every view come
    #: from the GLM-aware alignment (`earmark.scoring.glm.Glm.count_pairs`).
    glm: Glm | None = None

    def __post_init__(self) -> None:
        if self.cluster not in CLUSTER_UNITS:
            raise EarmarkError(
                f"unknown bootstrap cluster unit {self.cluster!r}",
                field="cluster",
                hint="one of " + ", ".join(CLUSTER_UNITS),
            )
        for name in ("min_per_slice", "min_speakers"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or value < 1):
                raise EarmarkError(f"{name} must be at least 1, not {value!r}", field=name)
        # Options naming a protocol follow it; resamples may also be 0 (no intervals, e.g.
        # when they are drawn elsewhere), never another count.
        p = self.protocol
        if p is None:
            return
        ours = (self.policy.to_dict(), self.aggregate, self.seed, self.level)
        theirs = (NormalizerPolicy.parse(p.normalizer).to_dict(), p.aggregate, p.seed, p.level)
        if ours != theirs or self.resamples not in (0, p.resamples):
            raise EarmarkError(
                f"scoring options contradict protocol {p.name}: it fixes normalizer "
                f"{p.normalizer}, aggregate {p.aggregate}, {p.resamples} resamples, seed "
                f"{p.seed}, level {p.level}",
                field="protocol",
                hint="build the options from earmark.scoring.protocols.resolve()",
            )

    def to_dict(self) -> dict[str, Any]:
        bootstrap: dict[str, Any] = {
            "resamples": self.resamples,
            "seed": self.seed,
            "level": self.level,
            "method": "percentile",
            "unit": "clip (rows sharing a cluster key are resampled together)"
            if self.cluster == "clip"
            else "speaker (rows of one speaker are resampled together; a speaker's own "
            "block resamples its clips)",
        }
        if self.cluster != "clip":
            bootstrap["cluster"] = self.cluster
        protocol: dict[str, Any] = {}
        if self.protocol is not None:
            bootstrap["generator"] = self.protocol.generator
            bootstrap["quantile_rule"] = self.protocol.quantile_rule
            protocol["protocol"] = self.protocol.to_dict()
        return {
            **protocol,
            "normalizer_policy": self.policy.to_dict(),
            "aggregate": self.aggregate,
            "bootstrap": bootstrap,
            # Only when set, so results without minimums keep the shape they always had.
            **({"minimums": self.minimums()} if self.minimums() else {}),
            # Only with --glm, so results without one keep their shape (and bytes).
            **({"glm": self.glm.headline_component} if self.glm is not None else {}),
        }

    def minimums(self) -> dict[str, int]:
        out = {"min_per_slice": self.min_per_slice, "min_speakers": self.min_speakers}
        return {k: v for k, v in out.items() if v is not None}


@dataclass
class _Group:
    """Rows scored by one normaliser: counts per (view, unit), availability per view."""

    normalizer: Normalizer
    indices: list[int]
    counts: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    available: dict[str, np.ndarray] = field(default_factory=dict)
    #: Per position and view: why the view is unavailable ("" when it is available).
    reasons: dict[str, list[str]] = field(default_factory=dict)
    #: Per position: does the primary view's hypothesis loop (repeated n-grams)?
    repetition: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    #: Per view and position: the normalised (reference, hypothesis), None if unavailable.
    texts: dict[str, list[tuple[str, str] | None]] = field(default_factory=dict)
    #: Per language: the primary view and unit's edits, tallied while counting them.
    edits: dict[str, EditTally] = field(default_factory=dict)
    #: Blocks already computed, by their positions' bytes: the overall block of a
    #: one-language corpus is its language's block, bootstrapped once, not twice.
    blocks: dict[bytes, dict[str, Any]] = field(default_factory=dict)
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

    def view_records(self, pos: int) -> dict[str, Any]:
        """One row's `views` entry for predictions.jsonl: texts and counts per view."""
        out: dict[str, Any] = {}
        for view, texts, per_unit in self._record_plan():
            pair = texts[pos]
            if pair is None:
                out[view] = {"null_reason": self.reasons[view][pos]}
                continue
            record: dict[str, Any] = {"reference": pair[0], "hypothesis": pair[1]}
            for metric, count_rows in per_unit:
                # Six keys and six counts: zip without `strict` (checked once, in
                # `_record_plan`), as this runs twice per row of predictions.jsonl.
                record[metric] = dict(zip(COUNT_KEYS, count_rows[pos], strict=False))
            mixed_texts = self.mixed_texts[pos] if view == self.mixed_view else None
            if mixed_texts is not None:
                s, d, i, h = (int(x) for x in self.mixed_counts[pos])
                record["mixed_reference"], record["mixed_hypothesis"] = mixed_texts
                record[MIXED_METRIC] = _counts_dict(s, d, i, h)
            out[view] = record
        return out

    def _record_plan(
        self,
    ) -> list[tuple[str, list[tuple[str, str] | None], list[tuple[str, list[list[int]]]]]]:
        """Per view: its texts and, per unit, (metric name, per-row counts), looked up
        once per group rather than once per row by `view_records`."""
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


@dataclass
class ScoreResult:
    """The scored corpus: aggregate blocks now, per-row records on demand."""

    options: ScoringOptions
    rows: list[ScoringRow]
    summary: dict[str, Any]
    groups: dict[str, _Group]

    def to_dict(self) -> dict[str, Any]:
        return self.summary

    @property
    @_collector_paused()
    def records(self) -> list[dict[str, Any]]:
        """Per-row records in input order (raw texts, status, normalised views, counts)."""
        return list(self.iter_records())

    def iter_records(self) -> Iterator[dict[str, Any]]:
        """`records` one at a time, so a writer can stream them instead of holding every
        row's record (a few KB each) at once."""
        groups = list(self.groups.values())
        # One group holding every row in order (one normaliser, the common case): a
        # row's position is its index, no 100,000-entry map needed.
        single = len(groups) == 1 and groups[0].indices == list(range(len(self.rows)))
        where: dict[int, tuple[_Group, int]] = {}
        if not single:
            for group in groups:
                for pos, idx in enumerate(group.indices):
                    where[idx] = (group, pos)
        for idx, r in enumerate(self.rows):
            group, pos = (groups[0], idx) if single else where[idx]
            record: dict[str, Any] = {
                "id": r.id,
                "language": r.language,
                "slices": list(r.slices),
                "status": r.status,
                "reference": r.reference,
                "hypothesis": r.hypothesis,
            }
            if r.cluster is not None:
                record["cluster"] = r.cluster
            speaker = speaker_of_row(r)
            if speaker is not None:
                record["speaker"] = speaker
            record["normalizer"] = group.normalizer.name
            record["views"] = group.view_records(pos)
            yield record


#: ErrorCounts.as_dict()'s keys, in its order: how a row's counts appear in predictions.jsonl.
COUNT_KEYS = ("substitutions", "deletions", "insertions", "hits", "ref_units", "hyp_units")


def _counts_dict(s: int, d: int, i: int, h: int) -> dict[str, int]:
    # Same keys and values as ErrorCounts.as_dict(), without building the object per row.
    return {
        "substitutions": s,
        "deletions": d,
        "insertions": i,
        "hits": h,
        "ref_units": s + d + h,
        "hyp_units": s + i + h,
    }


def _score_group(group: _Group, rows: Sequence[ScoringRow], glm: Glm | None = None) -> None:
    norm = group.normalizer
    n = len(group.indices)
    pending: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    pending_pos: dict[str, list[int]] = defaultdict(list)
    for view in norm.views:
        group.available[view] = np.zeros(n, dtype=bool)
        group.reasons[view] = [""] * n
        group.texts[view] = [None] * n
    group.repetition = np.zeros(n, dtype=bool)
    primary_tokens = TOKENIZER[norm.units[0]]
    # Repeats of a clip (rows sharing a cluster) repeat pairs: normalise each such pair
    # once. Other rows are normalised directly (remembering 100k distinct pairs would
    # cost ~35 MB for nothing).
    normalised: dict[tuple[str, str], dict[str, ViewPair]] = {}
    # The per-row loop below runs 100,000 times for 100,000 rows: what it reaches for on
    # every row (the views, their lists, the normaliser's method) is bound to locals
    # once, the loop's own cost (~0.1 s per 100,000 rows) rather than attribute and
    # dict look-ups per view per row. Same work, same order.
    views = [
        (
            view,
            group.reasons[view],
            group.texts[view],
            pending[(view, "")],
            pending_pos[view],
            view == norm.primary_view,
        )
        for view in norm.views
    ]
    normalize_pair = norm.normalize_pair
    repetition = group.repetition
    loop_needs = LOOP_MIN_REPEATS - 1
    for pos, idx in enumerate(group.indices):
        row = rows[idx]
        hypothesis = row.hypothesis
        key = (row.reference, hypothesis if hypothesis is not None else "")
        if row.cluster is None:
            pairs = normalize_pair(*key)
        else:
            cached = normalised.get(key)
            if cached is None:
                cached = normalised[key] = normalize_pair(*key)
            pairs = cached
        for view, reasons, view_texts, view_pending, view_pos, primary in views:
            pair = pairs[view]
            if pair.null_reason is not None or pair.reference is None or pair.hypothesis is None:
                reasons[pos] = pair.null_reason or "view_unavailable"
                continue
            texts = (pair.reference, pair.hypothesis)
            view_texts[pos] = texts
            # Strings go to the batch counter as is: whitespace-split for words, code
            # points for chars (the `metrics.tokens` convention), without token lists.
            view_pending.append(texts)
            view_pos.append(pos)
            if primary:
                tokens = primary_tokens(pair.hypothesis)
                # A loop needs some unit LOOP_MIN_REPEATS times, so at least
                # LOOP_MIN_REPEATS - 1 repeated units: without them `repetition_loop` is
                # False. This set check (C speed) skips its per-token count for nearly
                # every row (~0.3 s per 100,000 rows); the answer is the same.
                if len(tokens) - len(set(tokens)) >= loop_needs and repetition_loop(tokens):
                    repetition[pos] = True
    for view in norm.views:
        positions = np.asarray(pending_pos[view], dtype=np.int64)
        group.available[view][positions] = True
        for unit in norm.units:
            arr = np.zeros((n, 4), dtype=np.int64)
            texts_list = pending.get((view, ""))
            if texts_list:
                units: Literal["given", "words"] = "words" if unit == "word" else "given"
                tallies = None
                if view == norm.primary_view and unit == norm.units[0]:
                    langs = [
                        _base_language(rows[group.indices[p]].language) for p in pending_pos[view]
                    ]
                    for lang in set(langs):
                        group.edits.setdefault(lang, EditTally())
                    tallies = [group.edits[lang] for lang in langs]
                if glm is not None and unit == "word":
                    arr[positions] = glm.count_pairs(texts_list, tallies=tallies)
                else:
                    arr[positions] = count_errors_array(texts_list, units=units, tallies=tallies)
            group.counts[(view, unit)] = arr
    _score_mixed(group, rows)


def _score_mixed(group: _Group, rows: Sequence[ScoringRow]) -> None:
    """Mixed units (CJK characters + other words) where the normaliser has them."""
    spec = mixed_unit(group.normalizer)
    if spec is None:
        return
    group.mixed_view, render = spec
    n = len(group.indices)
    group.mixed_texts = [None] * n
    group.mixed_reasons = [""] * n
    token_pairs: list[tuple[list[str], list[str]]] = []
    positions: list[int] = []
    for pos, idx in enumerate(group.indices):
        row = rows[idx]
        pair = render(row.reference, row.hypothesis_text)
        if pair.null_reason is not None or pair.reference is None or pair.hypothesis is None:
            group.mixed_reasons[pos] = pair.null_reason or "view_unavailable"
            continue
        group.mixed_texts[pos] = (pair.reference, pair.hypothesis)
        token_pairs.append((mixed(pair.reference), mixed(pair.hypothesis)))
        positions.append(pos)
    group.mixed_counts = np.zeros((n, 4), dtype=np.int64)
    if token_pairs:
        group.mixed_counts[np.asarray(positions, dtype=np.int64)] = count_errors_array(
            token_pairs, units="given"
        )


def _metric(
    arr: np.ndarray,
    clusters: np.ndarray,
    options: ScoringOptions,
    null_reasons: Counter[str],
    n_rows: int,
) -> dict[str, Any]:
    python_random = options.protocol is not None and options.protocol.generator == "python-random"
    out = metric_object(
        arr,
        clusters,
        aggregate=options.aggregate,
        resamples=0 if python_random else options.resamples,
        seed=options.seed,
        level=options.level,
        null_reasons=null_reasons,
        n_rows=n_rows,
    )
    if python_random and out["value"] is not None and options.resamples > 0:
        ci = python_random_ci(
            (arr[:, 0] + arr[:, 1] + arr[:, 2]).tolist(),
            (arr[:, 0] + arr[:, 1] + arr[:, 3]).tolist(),
            clusters=clusters.tolist() if len(set(clusters.tolist())) < len(arr) else None,
            resamples=options.resamples,
            seed=options.seed,
            level=options.level,
        )
        if ci is not None:
            out["ci95"] = [ci.low, ci.high]
    return out


def speaker_of_row(row: ScoringRow) -> str | None:
    """The row's speaker (`extra["speaker"]`, from the manifest, stm or trn), or None."""
    speaker = row.extra.get("speaker") if row.extra else None
    return speaker if isinstance(speaker, str) and speaker else None


def _bootstrap_key(row: ScoringRow, unit: ClusterUnit) -> str:
    speaker = speaker_of_row(row) if unit == "speaker" else None
    # Prefixed so a speaker named like a clip id never merges with that clip.
    return f"speaker\x00{speaker}" if speaker is not None else row.cluster_key


def _block(
    group: _Group,
    positions: np.ndarray,
    rows: Sequence[ScoringRow],
    options: ScoringOptions,
    cluster_unit: ClusterUnit | None = None,
    speakers: bool = True,
) -> dict[str, Any]:
    unit = options.cluster if cluster_unit is None else cluster_unit
    memo = unit.encode() + b"\x00" + positions.tobytes()
    if memo not in group.blocks:
        group.blocks[memo] = _compute_block(group, positions, rows, options, unit)
    block = copy.deepcopy(group.blocks[memo])
    _apply_minimums(block, options, speakers=speakers)
    return block


def _apply_minimums(block: dict[str, Any], options: ScoringOptions, *, speakers: bool) -> None:
    """Null every figure of a block below a pre-registered minimum, saying why.

    Counts stay (they are what was observed, and `verify` re-derives them); rates,
    intervals and medians go, so a thin slice never shows a number that reads as a result.
    `speakers=False` (a single speaker's block) checks the row count only.
    """
    reasons = []
    n = block["n_utterances"]
    if options.min_per_slice is not None and n < options.min_per_slice:
        reasons.append(
            f"{n} rows, fewer than the minimum {options.min_per_slice} (--min-per-slice)"
        )
    n_speakers = block.get("n_speakers", 0)
    if speakers and options.min_speakers is not None and n_speakers < options.min_speakers:
        reasons.append(
            f"{n_speakers} speakers, fewer than the minimum {options.min_speakers} (--min-speakers)"
        )
    if not reasons:
        return
    reason = "below_minimum: " + "; ".join(reasons)
    block["below_minimum"] = reason
    for metrics in block["views"].values():
        for metric in metrics.values():
            for key, value in list(metric.items()):
                if isinstance(value, float) or key == "ci95":
                    metric[key] = None
            metric["null_reason"] = reason


def _compute_block(
    group: _Group,
    positions: np.ndarray,
    rows: Sequence[ScoringRow],
    options: ScoringOptions,
    cluster_unit: ClusterUnit,
) -> dict[str, Any]:
    norm = group.normalizer
    # The block's rows once (positions as Python ints), for the per-row reads below.
    indices = group.indices
    block_rows = [rows[indices[p]] for p in positions.tolist()]
    cluster_keys = np.asarray(
        [r.cluster_key for r in block_rows]
        if cluster_unit == "clip"  # `_bootstrap_key` of a clip unit is the cluster key
        else [_bootstrap_key(r, cluster_unit) for r in block_rows],
        dtype=object,
    )
    # Only `speakers - {None}` is read below: rows without `extra` name no speaker.
    speakers = {speaker_of_row(r) for r in block_rows if r.extra}
    views: dict[str, Any] = {}
    for view in norm.views:
        avail = group.available[view][positions]
        reasons = Counter(group.reasons[view][p] for p in positions[~avail])
        metrics = {}
        for unit in norm.units:
            arr = group.counts[(view, unit)][positions][avail]
            metrics[METRIC_FOR_UNIT[unit]] = _metric(
                arr, cluster_keys[avail], options, reasons, len(positions)
            )
        if view == group.mixed_view:
            metrics[MIXED_METRIC] = _mixed_metric(group, positions, cluster_keys, options)
        views[view] = metrics
    halluc = _hallucination(group, positions)
    statuses = Counter([r.status for r in block_rows])
    # Distinct languages first, then each mapped once (not `_policy_language` per row).
    languages = {_policy_language(language) for language in {r.language for r in block_rows}}
    normalizer: dict[str, Any] = {
        "name": norm.name,
        "comparison_only": norm.comparison_only,
        "units": list(norm.units),
        **headline_unit(norm, languages),
    }
    if group.mixed_view is not None:
        normalizer["mixed_unit"] = {"view": group.mixed_view, "metric": MIXED_METRIC}
    engine_versions = getattr(norm, "engine_versions", None)
    if callable(engine_versions):
        # The library a normaliser delegates to (cn2an for zh-itn-v1) and its version.
        normalizer["engines"] = engine_versions()
    differs = [d.to_dict() for d in published_differences(norm) if languages & {*d.languages, ""}]
    if differs:
        normalizer["differs_from_publication"] = differs
    return {
        "normalizer": normalizer,
        "n_utterances": int(len(positions)),
        "n_clusters": int(len(set(cluster_keys.tolist()))),
        # Only where rows carry speakers, so speakerless results keep their shape.
        **(
            {"n_speakers": len(speakers - {None})}
            if speakers - {None} or options.min_speakers is not None
            else {}
        ),
        "primary_view": norm.primary_view,
        "views": views,
        "statuses": dict(sorted(statuses.items())),
        "hallucination": halluc.as_dict(),
    }


def _mixed_metric(
    group: _Group, positions: np.ndarray, cluster_keys: np.ndarray, options: ScoringOptions
) -> dict[str, Any]:
    avail = np.asarray([group.mixed_texts[p] is not None for p in positions], dtype=bool)
    reasons = Counter(group.mixed_reasons[p] for p in positions[~avail])
    arr = group.mixed_counts[positions][avail]
    return _metric(arr, cluster_keys[avail], options, reasons, len(positions))


def _hallucination(group: _Group, positions: np.ndarray) -> HallucinationCounts:
    """Hallucination flags from the primary view's counts (rows where it is available)."""
    norm = group.normalizer
    avail = group.available[norm.primary_view][positions]
    arr = group.counts[(norm.primary_view, norm.units[0])][positions][avail]
    return hallucination_counts(
        arr[:, 0] + arr[:, 1] + arr[:, 3],
        arr[:, 0] + arr[:, 2] + arr[:, 3],
        group.repetition[positions][avail],
    )


def _speaker_blocks(
    group: _Group, positions: list[int], rows: Sequence[ScoringRow], options: ScoringOptions
) -> dict[str, Any]:
    """One block per speaker; its bootstrap resamples that speaker's clips (one speaker is
    one cluster, which no interval can be drawn from)."""
    speakers: dict[str, list[int]] = defaultdict(list)
    for p in positions:
        speaker = speaker_of_row(rows[group.indices[p]])
        if speaker is not None:
            speakers[speaker].append(p)
    return {
        sp: _block(group, np.asarray(ps, dtype=np.int64), rows, options, "clip", speakers=False)
        for sp, ps in sorted(speakers.items())
    }


def _policy_language(language: str | None) -> str:
    """`ga-IE` -> `ga`; "" for a row without a language."""
    return (language or "").replace("_", "-").split("-")[0].lower()


def _base_language(language: str | None) -> str:
    if not language:
        return "und"
    return language


@_collector_paused()
def score_rows(rows: Iterable[ScoringRow], options: ScoringOptions) -> ScoreResult:
    """Score every row; no row is dropped (missing hypotheses count as deletions)."""
    rows = list(rows)
    seen: set[str] = set()
    for row in rows:
        key = f"{row.id}\x00{row.cluster_key}" if row.cluster is not None else row.id
        if key in seen:
            raise EarmarkError(f"duplicate utterance id {row.id!r} in scoring input", field="id")
        seen.add(key)
    by_norm: dict[str, list[int]] = defaultdict(list)
    # The policy answers per language; a corpus has a handful, not one per row.
    norm_of: dict[str | None, str] = {}
    for idx, row in enumerate(rows):
        language = row.language
        name = norm_of.get(language)
        if name is None:
            name = norm_of[language] = options.policy.for_language(language)
        by_norm[name].append(idx)
    groups: dict[str, _Group] = {}
    for name, indices in sorted(by_norm.items()):
        group = _Group(normalizer=get_normalizer(name), indices=indices)
        _score_group(group, rows, options.glm)
        groups[name] = group

    by_language: dict[str, Any] = {}
    for group in groups.values():
        langs: dict[str, list[int]] = defaultdict(list)
        for pos, idx in enumerate(group.indices):
            langs[_base_language(rows[idx].language)].append(pos)
        for lang, positions in sorted(langs.items()):
            pos_arr = np.asarray(positions, dtype=np.int64)
            block = _block(group, pos_arr, rows, options)
            if options.by_slice:
                slices: dict[str, list[int]] = defaultdict(list)
                for p in positions:
                    for sl in rows[group.indices[p]].slices:
                        slices[sl].append(p)
                block["by_slice"] = {
                    sl: _block(group, np.asarray(ps, dtype=np.int64), rows, options)
                    for sl, ps in sorted(slices.items())
                }
            if options.by_speaker:
                by_speaker = _speaker_blocks(group, positions, rows, options)
                if by_speaker:
                    block["by_speaker"] = by_speaker
            by_language[lang] = block

    if len(groups) == 1:
        (group,) = groups.values()
        overall: dict[str, Any] | None = _block(
            group, np.arange(len(group.indices), dtype=np.int64), rows, options
        )
        overall_null = None
    else:
        overall = None
        overall_null = (
            "languages are scored with different normalisers "
            f"({', '.join(sorted(groups))}); see by_language"
            if groups
            else "no rows"
        )

    statuses = Counter(r.status for r in rows)
    not_ok = [{"id": r.id, "status": r.status} for r in rows if r.status != "ok"]
    summary: dict[str, Any] = {
        **options.to_dict(),
        "conventions": {
            "wer": f"word units: {WORD_CONVENTION}",
            "cer": f"character units: {CHAR_CONVENTION}",
            MIXED_METRIC: f"mixed units (code-switched Mandarin): {MIXED_CONVENTION}",
            "empty_reference": EMPTY_REFERENCE_CONVENTION,
            "missing_hypothesis": "scored as an empty hypothesis (all deletions) and listed",
        },
        "coverage": {
            "references": len(rows),
            "scored": len(rows),
            "statuses": dict(sorted(statuses.items())),
            "not_ok": not_ok,
        },
        "overall": overall,
        **({"overall_null_reason": overall_null} if overall_null else {}),
        "by_language": by_language,
    }
    return ScoreResult(options=options, rows=rows, summary=summary, groups=groups)
