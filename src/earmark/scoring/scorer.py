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
import hashlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from earmark.collector import collector_paused
from earmark.errors import EarmarkError
from earmark.formats.rows import ScoringRow
from earmark.language_tags import base_language
from earmark.metrics.alignment import EditTally, count_errors_array
from earmark.metrics.analysis import worst_utterances
from earmark.metrics.counts import ErrorCounts
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
from earmark.stats.protocol_bootstrap import python_random_ci
from earmark.stats.settings import BootstrapSettings
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
EMPTY_REFERENCE_CONVENTION = (
    "per-utterance rate with an empty reference is 0 when the hypothesis is empty, else 1 "
    "(macro only; micro rates sum counts)"
)


@dataclass(frozen=True)
class ScoringOptions:
    """Everything that changes a number; recorded in every result."""

    policy: NormalizerPolicy
    aggregate: Aggregate = "micro"
    #: Resamples (0: no intervals), seed and level of every interval these options draw.
    bootstrap: BootstrapSettings = field(default_factory=BootstrapSettings)
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
        b = self.bootstrap
        ours = (self.policy.to_dict(), self.aggregate, b.seed, b.level)
        theirs = (NormalizerPolicy.parse(p.normalizer).to_dict(), p.aggregate, p.seed, p.level)
        if ours != theirs or b.resamples not in (0, p.resamples):
            raise EarmarkError(
                f"scoring options contradict protocol {p.name}: it fixes normalizer "
                f"{p.normalizer}, aggregate {p.aggregate}, {p.resamples} resamples, seed "
                f"{p.seed}, level {p.level}",
                field="protocol",
                hint="build the options from earmark.scoring.protocols.resolve()",
            )

    def to_dict(self) -> dict[str, Any]:
        bootstrap: dict[str, Any] = {
            **self.bootstrap.to_dict(),
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


#: How many worst utterances per language the scorer keeps while it streams (with their
#: normalised texts): what the error analysis can show (`error_analysis_section`'s
#: `worst` may not exceed it).
WORST_KEPT = 5


class _Columns:
    """Per-row arrays that grow chunk by chunk in place (the capacity doubles).

    The corpus's columns are then never held twice at the end (chunks plus their
    concatenation), nor left behind as thousands of small freed chunk arrays the
    allocator keeps: ~70 MB less peak memory for 1,000,000 rows.
    """

    def __init__(self) -> None:
        self._data: dict[str, np.ndarray] = {}
        self._size: dict[str, int] = {}

    def append(self, name: str, values: np.ndarray) -> None:
        data = self._data.get(name)
        size = self._size.get(name, 0)
        end = size + len(values)
        if data is None or end > len(data):
            capacity = max(end, 1024, 0 if data is None else 2 * len(data))
            grown = np.empty((capacity, *values.shape[1:]), dtype=values.dtype)
            if data is not None:
                grown[:size] = data[:size]
            data = self._data[name] = grown
        data[size:end] = values
        self._size[name] = end

    def take(self, name: str, empty: np.ndarray) -> np.ndarray:
        """The rows appended under `name` (`empty` when none), handed over."""
        data = self._data.pop(name, None)
        if data is None:
            return empty
        filled: np.ndarray = data[: self._size.pop(name)]
        return filled


@dataclass
class _Part:
    """One chunk's rows under one normaliser: texts and counts per view.

    What a row's predictions.jsonl record is built from. `score_rows` keeps every part
    (records on demand); a streamed corpus drops each once its records are written, and
    its `_Group` keeps only the counts.
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

    def records(self) -> Iterator[dict[str, Any]]:
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
            if r.extra:
                speaker = speaker_of_row(r)
                if speaker is not None:
                    record["speaker"] = speaker
            record["normalizer"] = name
            views: dict[str, Any] = {}
            for view, texts, per_unit in plan:
                pair = texts[pos]
                if pair is None:
                    views[view] = {"null_reason": reasons[view][pos]}
                    continue
                entry: dict[str, Any] = {"reference": pair[0], "hypothesis": pair[1]}
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


@dataclass
class _Worst:
    """A candidate for a language's worst utterances, with the texts to render it."""

    row_id: str
    counts: ErrorCounts
    texts: tuple[str, str]


@dataclass
class _Group:
    """Every row one normaliser scored, over all chunks: per-row counts, availability and
    loop flags (what every figure is computed from), the edit tallies and the worst rows
    of each language. Texts stay only in kept `parts` (`score_rows`)."""

    normalizer: Normalizer
    #: Per position: the row's index in the whole input (sealed into one array).
    indices: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    counts: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    available: dict[str, np.ndarray] = field(default_factory=dict)
    #: Per view: position -> why the view is unavailable (only those positions).
    reasons: dict[str, dict[int, str]] = field(default_factory=dict)
    repetition: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    mixed_view: str | None = None
    mixed_counts: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), dtype=np.int64))
    mixed_available: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    mixed_reasons: dict[int, str] = field(default_factory=dict)
    #: Per language: the primary view and unit's edits, tallied while counting them.
    edits: dict[str, EditTally] = field(default_factory=dict)
    #: Per language, in order of first appearance: its worst rows so far, ranked.
    worst: dict[str, list[_Worst]] = field(default_factory=dict)
    #: Blocks already computed, by their positions' digest: the overall block of a
    #: one-language corpus is its language's block, bootstrapped once, not twice.
    blocks: dict[bytes, dict[str, Any]] = field(default_factory=dict)
    #: The parts kept for their records (`score_rows` only).
    parts: list[_Part] = field(default_factory=list)
    n: int = 0
    _columns: _Columns = field(default_factory=_Columns)

    def absorb(self, part: _Part, *, keep: bool, worst: int) -> None:
        """Take a scored part's per-row counts (and the part itself when `keep`)."""
        norm = self.normalizer
        offset, m = self.n, len(part.rows)
        columns = self._columns
        columns.append("indices", np.asarray(part.index, dtype=np.int64))
        for view in norm.views:
            available = part.available[view]
            columns.append("available\x00" + view, available)
            reasons = self.reasons.setdefault(view, {})
            view_reasons = part.reasons[view]
            for p in np.flatnonzero(~available).tolist():
                reasons[offset + p] = view_reasons[p]
            for unit in norm.units:
                columns.append(f"counts\x00{view}\x00{unit}", part.counts[(view, unit)])
        columns.append("repetition", part.repetition)
        self.mixed_view = part.mixed_view
        if part.mixed_view is not None:
            columns.append("mixed_counts", part.mixed_counts)
            mixed_ok = np.asarray([t is not None for t in part.mixed_texts], dtype=bool)
            columns.append("mixed_available", mixed_ok)
            for p in np.flatnonzero(~mixed_ok).tolist():
                self.mixed_reasons[offset + p] = part.mixed_reasons[p]
        self._track_worst(part, worst)
        if keep:
            self.parts.append(part)
        self.n = offset + m

    def _track_worst(self, part: _Part, k: int) -> None:
        """Keep each language's `k` worst rows (the error analysis's ranking) and their
        texts; the rest of a chunk's texts can go."""
        norm = self.normalizer
        view = norm.primary_view
        counts = part.counts[(view, norm.units[0])]
        errors = counts[:, 0] + counts[:, 1] + counts[:, 2]
        candidates = part.available[view] & (errors > 0)
        languages = [_language_key(r.language) for r in part.rows]
        by_language: dict[str, list[int]] = {}
        for pos, language in enumerate(languages):
            by_language.setdefault(language, []).append(pos)
            self.worst.setdefault(language, [])
        if k <= 0 or not candidates.any():
            return
        texts = part.texts[view]
        for language, positions in by_language.items():
            where = np.asarray(positions, dtype=np.int64)
            where = where[candidates[where]]
            if where.size == 0:
                continue
            if where.size > k:
                # Only rows with at least the k-th largest error count can rank.
                kth = np.partition(errors[where], where.size - k)[where.size - k]
                where = where[errors[where] >= kth]
            kept = self.worst[language]
            for p in where.tolist():
                s, d, i, h = counts[p].tolist()
                pair = texts[p]
                assert pair is not None  # available
                kept.append(_Worst(part.rows[p].id, ErrorCounts(s, d, i, h), pair))
            # Ranked (and cut to k) as over the whole corpus at once: the kept rows are
            # earlier than the new ones, so earlier rows still come first among ties.
            pairs = [(w.row_id, w.counts) for w in kept]
            of = {id(pair): w for pair, w in zip(pairs, kept, strict=True)}
            kept[:] = [of[id(pair)] for pair in worst_utterances(pairs, k)]

    def seal(self) -> None:
        """Hand the grown columns over (once, after the last chunk)."""
        norm = self.normalizer
        take = self._columns.take
        self.indices = take("indices", np.zeros(0, dtype=np.int64))
        for view in norm.views:
            self.available[view] = take("available\x00" + view, np.zeros(0, dtype=bool))
            self.reasons.setdefault(view, {})
            for unit in norm.units:
                self.counts[(view, unit)] = take(
                    f"counts\x00{view}\x00{unit}", np.zeros((0, 4), dtype=np.int64)
                )
        self.repetition = take("repetition", np.zeros(0, dtype=bool))
        if self.mixed_view is not None:
            self.mixed_counts = take("mixed_counts", np.zeros((0, 4), dtype=np.int64))
            self.mixed_available = take("mixed_available", np.zeros(0, dtype=bool))


#: A row key's 64-bit digest: Python's own string hash (SipHash-1-3, keyed per process,
#: computed in C and cached on the string, ~10x cheaper per id than blake2b). Only which
#: digests are equal is ever used, never their values, and any two equal digests send
#: the scorer back to the id strings (`_RowKeys`), so the per-process key and a collision
#: can change no output. Tests replace it to force collisions.
_digest: Callable[[str], int] = hash


class _SortedRuns:
    """A growing set of 64-bit digests as a few sorted arrays of doubling sizes, so each
    chunk is checked against every earlier one with a binary search per array and the
    whole costs O(n log n), 8 bytes a digest (a Python set of ints: ~70)."""

    def __init__(self) -> None:
        self.runs: list[np.ndarray] = []

    def add(self, digests: np.ndarray) -> bool:
        """Add `digests`; True when one of them equals another or an earlier one."""
        if not len(digests):
            return False
        new = np.sort(digests)
        seen = bool((new[1:] == new[:-1]).any()) or self.contains_any(new)
        runs = self.runs
        runs.append(new)
        while len(runs) > 1 and len(runs[-2]) <= 2 * len(runs[-1]):
            # Two sorted runs back to back: the stable sort merges them in one pass.
            top = runs.pop()
            runs[-1] = np.sort(np.concatenate((runs[-1], top)), kind="stable")
        return seen

    def contains_any(self, digests: np.ndarray) -> bool:
        """Is any of `digests` (sorted or not) in the set?"""
        for run in self.runs:
            at = np.minimum(np.searchsorted(run, digests), len(run) - 1)
            if (run[at] == digests).any():
                return True
        return False


class _ExactKeys:
    """Repeated ids and cluster codes from the id strings themselves: one dict entry per
    distinct cluster key (the id of an unclustered row), clustered rows' `id\\x00cluster`
    keys in a set. What `_RowKeys` falls back to whenever two digests match."""

    def __init__(self) -> None:
        #: Cluster key -> (code << 1) | 1 when an unclustered row has it as its id.
        self.clusters: dict[str, int] = {}
        self.clustered_ids: set[str] = set()

    def codes(self, rows: Iterable[ScoringRow]) -> np.ndarray:
        """Each row's cluster code (numbered by first appearance of its cluster key); a
        repeated id (within a clip's cluster) is an error, at its first repeat."""
        clusters, clustered_ids = self.clusters, self.clustered_ids
        out = []
        for row in rows:
            ident = row.id
            if row.cluster is None:
                # Its own cluster, keyed by its id; the low bit marks the id as taken.
                v = clusters.get(ident)
                if v is None:
                    v = clusters[ident] = (len(clusters) << 1) | 1
                elif v & 1 or ("\x00" in ident and ident in clustered_ids):
                    raise _duplicate(ident)
                else:
                    clusters[ident] = v | 1
            else:
                key = f"{ident}\x00{row.cluster}"
                if key in clustered_ids or clusters.get(key, 0) & 1:
                    raise _duplicate(ident)
                clustered_ids.add(key)
                v = clusters.get(row.cluster)
                if v is None:
                    v = clusters[row.cluster] = len(clusters) << 1
            out.append(v >> 1)
        return np.asarray(out, dtype=np.int64)

    def speaker_codes(self, speaker_names: Sequence[str]) -> np.ndarray:
        """Per speaker: the code of its bootstrap key (`speaker\\x00NAME`), the code of a
        clip key spelled the same where there is one."""
        out = []
        for name in speaker_names:
            key = f"speaker\x00{name}"
            v = self.clusters.get(key)
            if v is None:
                v = self.clusters[key] = len(self.clusters) << 1
            out.append(v >> 1)
        return np.asarray(out, dtype=np.int64)


class _RowKeys:
    """Finds repeated ids and numbers the bootstrap's clusters keeping 8 bytes per row.

    Each row's duplicate key (its id; `id\\x00cluster` for a clustered row) goes in as a
    64-bit digest (`_digest`) to a sorted set checked chunk by chunk; an unclustered row's
    cluster key is its id, so its digest serves both. Clustered rows keep each distinct
    cluster string once (repeats of a clip share it) to confirm equal digests exactly.
    When no two digests match, distinct digests are distinct keys, and the cluster codes
    follow from the digests: numbered by first appearance, as the key strings were.

    On any match that the kept cluster strings cannot confirm (a repeated id, a collision,
    a clip keyed like an earlier unclustered id), the keys are read again from the rows
    (`reread`) and everything from there on is `_ExactKeys`': a repeated id is its error
    at its row, a collision merges nothing. Without `reread` the scorer cannot see earlier
    rows again, so it keeps the strings from the start (`_ExactKeys`), as it always did.
    """

    def __init__(self, reread: Callable[[], Iterable[ScoringRow]] | None) -> None:
        self.reread = reread
        self.n = 0
        self.exact: _ExactKeys | None = _ExactKeys() if reread is None else None
        self._keys = _SortedRuns()
        #: Digest -> string of every clustered row's cluster key.
        self._names: dict[int, str] = {}
        #: Rows before the first clustered one: every one of them its own cluster.
        self._alone: int | None = None
        self._columns = _Columns()

    def add(self, rows: Sequence[ScoringRow]) -> None:
        """Take a chunk's keys; a repeated id is an error (`_duplicate`)."""
        if self.exact is None and not self._add_digests(rows):
            self._go_exact()
        if self.exact is not None:
            self._columns.append("code", self.exact.codes(rows))
        self.n += len(rows)

    def _add_digests(self, rows: Sequence[ScoringRow]) -> bool:
        """Add the chunk's digests; False on a match the kept strings cannot confirm."""
        digest, names = _digest, self._names
        m = len(rows)
        keys = np.empty(m, dtype=np.int64)
        clusters = keys
        fresh: list[int] = []
        confirmed = True
        for k, row in enumerate(rows):
            cluster = row.cluster
            if cluster is None:
                d = keys[k] = digest(row.id)
                if clusters is not keys:
                    clusters[k] = d
                if names:
                    name = names.get(d)
                    # The id of an earlier clustered row's clip: the same key, or a collision.
                    if name is not None and name != row.id:
                        confirmed = False
                continue
            if clusters is keys:
                clusters = keys.copy()
                if self._alone is None:
                    self._alone = self.n + k
            keys[k] = digest(f"{row.id}\x00{cluster}")
            d = clusters[k] = digest(cluster)
            name = names.get(d)
            if name is None:
                names[d] = cluster
                fresh.append(d)
            elif name != cluster:
                confirmed = False
        if self._keys.add(keys) or not confirmed:
            return False
        # A clip key first seen here may be an earlier (or this chunk's) unclustered id:
        # the same key or a collision, which only the strings can tell.
        if fresh and self._keys.contains_any(np.asarray(fresh, dtype=np.int64)):
            return False
        if self._alone is not None:
            start = max(self._alone - self.n, 0)
            self._columns.append("digest", clusters[start:])
        return True

    def _go_exact(self) -> None:
        """Read the keys of the rows taken so far again and go on with the strings."""
        assert self.reread is not None
        self.exact = _ExactKeys()
        rows = iter(self.reread())
        try:
            codes = self.exact.codes(islice(rows, self.n))
        finally:
            close = getattr(rows, "close", None)
            if close is not None:
                close()
        if len(codes) != self.n:
            raise RuntimeError(f"reread gave {len(codes)} rows, not the {self.n} scored")
        self._keys, self._names = _SortedRuns(), {}
        self._columns = _Columns()
        self._columns.append("code", codes)

    def seal(self, speaker_names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Per row its cluster code and per speaker its key's code, once every row is in."""
        if self.exact is None:
            keys = np.asarray([_digest(f"speaker\x00{name}") for name in speaker_names])
            # A speaker keyed like a clip: the same key (they merge) or a collision.
            if keys.size and (
                self._keys.contains_any(keys) or bool(np.isin(keys, list(self._names)).any())
            ):
                self._go_exact()
        if self.exact is not None:
            codes = self._columns.take("code", np.zeros(0, dtype=np.int64))
            return codes, self.exact.speaker_codes(speaker_names)
        self._keys = _SortedRuns()
        alone = self.n if self._alone is None else self._alone
        codes = np.empty(self.n, dtype=np.int64)
        codes[:alone] = np.arange(alone, dtype=np.int64)
        if alone < self.n:
            # The rest numbered by first appearance after the rows that stand alone.
            digests = self._columns.take("digest", np.zeros(0, dtype=np.int64))
            codes[alone:] = _first_appearance(digests)
            codes[alone:] += alone
            del digests
        n_codes = int(codes.max()) + 1 if self.n else 0
        self._names = {}
        speakers = np.arange(n_codes, n_codes + len(speaker_names), dtype=np.int64)
        return codes, speakers


@dataclass
class _RowFacts:
    """What the figures read of each row besides its counts, as small codes per row.

    Per row: the language, status, bootstrap cluster and speaker as integer codes (one
    array each), the slices as a code of its distinct slice set. The ids are checked and
    clustered by `_RowKeys`, which keeps an 8-byte digest per row (the strings only when
    it cannot see the rows again, or once two digests match).
    """

    reread: Callable[[], Iterable[ScoringRow]] | None = None
    n: int = 0
    languages: dict[str | None, int] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)
    speakers: dict[str, int] = field(default_factory=dict)
    slice_sets: dict[tuple[str, ...], int] = field(default_factory=lambda: {(): 0})
    not_ok: list[dict[str, str]] = field(default_factory=list)
    language_code: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    status_code: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    cluster_code: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    speaker_code: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    slice_code: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    #: Per speaker code: the code of its key among the cluster codes (filled by `seal`).
    speaker_cluster_code: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: Each code's value (filled by `seal`).
    language_names: list[str | None] = field(default_factory=list)
    status_names: list[str] = field(default_factory=list)
    speaker_names: list[str] = field(default_factory=list)
    slice_names: list[tuple[str, ...]] = field(default_factory=list)
    _columns: _Columns = field(default_factory=_Columns)
    _keys: _RowKeys | None = None

    def add(self, rows: Sequence[ScoringRow]) -> None:
        """Code a chunk's rows; a repeated id (within a clip's cluster) is an error."""
        if self._keys is None:
            self._keys = _RowKeys(self.reread)
        self._keys.add(rows)
        languages, statuses, speakers, slice_sets = (
            self.languages,
            self.statuses,
            self.speakers,
            self.slice_sets,
        )
        m = len(rows)
        language_code = np.empty(m, dtype=np.int32)
        status_code = np.empty(m, dtype=np.int32)
        speaker_code = np.full(m, -1, dtype=np.int32)
        slice_code = np.zeros(m, dtype=np.int32)
        for k, row in enumerate(rows):
            code = languages.get(row.language)
            if code is None:
                code = languages[row.language] = len(languages)
            language_code[k] = code
            status = row.status
            code = statuses.get(status)
            if code is None:
                code = statuses[status] = len(statuses)
            status_code[k] = code
            if status != "ok":
                self.not_ok.append({"id": row.id, "status": status})
            if row.extra:
                speaker = speaker_of_row(row)
                if speaker is not None:
                    code = speakers.get(speaker)
                    if code is None:
                        code = speakers[speaker] = len(speakers)
                    speaker_code[k] = code
            if row.slices:
                code = slice_sets.get(row.slices)
                if code is None:
                    code = slice_sets[row.slices] = len(slice_sets)
                slice_code[k] = code
        for name, arr in (
            ("language", language_code),
            ("status", status_code),
            ("speaker", speaker_code),
            ("slice", slice_code),
        ):
            self._columns.append(name, arr)
        self.n += m

    def seal(self) -> None:
        for name in ("language", "status", "speaker", "slice"):
            empty = getattr(self, f"{name}_code")
            setattr(self, f"{name}_code", self._columns.take(name, empty))
        self.language_names = list(self.languages)
        self.status_names = list(self.statuses)
        self.speaker_names = list(self.speakers)
        self.slice_names = list(self.slice_sets)
        keys = self._keys if self._keys is not None else _RowKeys(None)
        self.cluster_code, self.speaker_cluster_code = keys.seal(self.speaker_names)
        self._keys = None

    def bootstrap_codes(
        self, rows: np.ndarray, unit: ClusterUnit, *, whole: bool = False
    ) -> np.ndarray:
        """Per row (input indices): its resampling unit as a code (equal codes, equal
        keys): the clip's cluster key or, by speaker, the speaker's. `whole`: `rows` is
        every row, in order (the codes are then the column itself, read only)."""
        codes: np.ndarray = _at(self.cluster_code, rows, whole)
        if unit == "speaker":
            speaker = _at(self.speaker_code, rows, whole)
            has = speaker >= 0
            if has.any():
                # Keyed `speaker\x00NAME`, so a speaker named like a clip id never merges
                # with that clip (`_RowKeys.seal`).
                codes = np.where(has, self.speaker_cluster_code[np.maximum(speaker, 0)], codes)
        return codes


def _first_appearance(codes: np.ndarray) -> np.ndarray:
    """Each code's rank by first appearance (0 for the first row's, 1 for the next new
    one, ...): the numbering the bootstrap gave the cluster key strings, whose order
    decides which cluster each drawn index picks. As integers it stays that numbering
    (`stats.resampling.cluster_index` keeps the order of integer keys)."""
    if codes.size == 0:
        return codes
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size, dtype=np.int64)
    ranks: np.ndarray = rank[inverse.reshape(-1)]
    return ranks


def _present(codes: np.ndarray) -> list[int]:
    """The distinct codes (small non-negative ints) among `codes`, ascending.

    A count per code rather than `np.unique`, which sorts or hashes every row (~50 ms per
    100,000 rows, several times per block)."""
    if codes.size == 0:
        return []
    present: list[int] = np.flatnonzero(np.bincount(codes)).tolist()
    return present


def _duplicate(ident: str) -> EarmarkError:
    return EarmarkError(f"duplicate utterance id {ident!r} in scoring input", field="id")


@dataclass
class ScoreResult:
    """The scored corpus: aggregate blocks now, per-row records on demand (when kept)."""

    options: ScoringOptions
    rows: list[ScoringRow]
    summary: dict[str, Any]
    groups: dict[str, _Group]
    #: How many worst utterances per language each group kept (`WORST_KEPT`).
    worst_kept: int = WORST_KEPT

    def to_dict(self) -> dict[str, Any]:
        return self.summary

    @property
    @collector_paused()
    def records(self) -> list[dict[str, Any]]:
        """Per-row records in input order (raw texts, status, normalised views, counts)."""
        return list(self.iter_records())

    def iter_records(self) -> Iterator[dict[str, Any]]:
        """`records` one at a time, so a writer can stream them instead of holding every
        row's record (a few KB each) at once. Only where the scorer kept its texts
        (`score_rows`); a streamed corpus wrote its records as it went."""
        parts = [part for group in self.groups.values() for part in group.parts]
        if len(self.rows) != sum(len(part.rows) for part in parts) or (
            not parts and any(group.n for group in self.groups.values())
        ):
            raise RuntimeError("this corpus was scored streaming: its records were not kept")
        yield from _records_in_order(parts, 0, len(self.rows))


def _records_in_order(parts: Sequence[_Part], start: int, n: int) -> Iterator[dict[str, Any]]:
    """The records of `parts`, which hold the rows start..start+n-1, in row order."""
    if len(parts) == 1:
        # One part holding every row (one normaliser, the common case).
        yield from parts[0].records()
        return
    # Each part's records come in row order: take the next one of the row's part.
    owner: list[Iterator[dict[str, Any]]] = [iter(())] * n
    for part in parts:
        records = part.records()
        for at in part.index:
            owner[at - start] = records
    for records in owner:
        yield next(records)


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


def _score_part(part: _Part, edits: dict[str, EditTally], glm: Glm | None = None) -> None:
    """Normalise and count one part's rows; the primary view's edits go to `edits`."""
    norm = part.normalizer
    rows = part.rows
    n = len(rows)
    pending: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    pending_pos: dict[str, list[int]] = defaultdict(list)
    for view in norm.views:
        part.available[view] = np.zeros(n, dtype=bool)
        part.reasons[view] = [""] * n
        part.texts[view] = [None] * n
    part.repetition = np.zeros(n, dtype=bool)
    primary_tokens = TOKENIZER[norm.units[0]]
    # Repeats of a clip (rows sharing a cluster) repeat pairs: normalise each such pair
    # once. Other rows are normalised directly (remembering 100k distinct pairs would
    # cost ~35 MB for nothing).
    normalised: dict[tuple[str, str], dict[str, ViewPair]] = {}
    # The per-row loop below runs once per row: what it reaches for on every row (the
    # views, their lists, the normaliser's method) is bound to locals once, the loop's
    # own cost (~0.1 s per 100,000 rows) rather than attribute and dict look-ups per
    # view per row. Same work, same order.
    views = [
        (
            view,
            part.reasons[view],
            part.texts[view],
            pending[(view, "")],
            pending_pos[view],
            view == norm.primary_view,
        )
        for view in norm.views
    ]
    normalize_pair = norm.normalize_pair
    repetition = part.repetition
    loop_needs = LOOP_MIN_REPEATS - 1
    for pos, row in enumerate(rows):
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
        part.available[view][positions] = True
        for unit in norm.units:
            arr = np.zeros((n, 4), dtype=np.int64)
            texts_list = pending.get((view, ""))
            if texts_list:
                units: Literal["given", "words"] = "words" if unit == "word" else "given"
                tallies = None
                if view == norm.primary_view and unit == norm.units[0]:
                    langs = [_language_key(rows[p].language) for p in pending_pos[view]]
                    for lang in set(langs):
                        edits.setdefault(lang, EditTally())
                    tallies = [edits[lang] for lang in langs]
                if glm is not None and unit == "word":
                    arr[positions] = glm.count_pairs(texts_list, tallies=tallies)
                else:
                    arr[positions] = count_errors_array(texts_list, units=units, tallies=tallies)
            part.counts[(view, unit)] = arr
    _score_mixed(part)


def _score_mixed(part: _Part) -> None:
    """Mixed units (CJK characters + other words) where the normaliser has them."""
    spec = mixed_unit(part.normalizer)
    if spec is None:
        return
    part.mixed_view, render = spec
    n = len(part.rows)
    part.mixed_texts = [None] * n
    part.mixed_reasons = [""] * n
    token_pairs: list[tuple[list[str], list[str]]] = []
    positions: list[int] = []
    for pos, row in enumerate(part.rows):
        pair = render(row.reference, row.hypothesis_text)
        if pair.null_reason is not None or pair.reference is None or pair.hypothesis is None:
            part.mixed_reasons[pos] = pair.null_reason or "view_unavailable"
            continue
        part.mixed_texts[pos] = (pair.reference, pair.hypothesis)
        token_pairs.append((mixed(pair.reference), mixed(pair.hypothesis)))
        positions.append(pos)
    part.mixed_counts = np.zeros((n, 4), dtype=np.int64)
    if token_pairs:
        part.mixed_counts[np.asarray(positions, dtype=np.int64)] = count_errors_array(
            token_pairs, units="given"
        )


def _metric(
    arr: np.ndarray,
    cluster_codes: np.ndarray,
    options: ScoringOptions,
    null_reasons: Counter[str],
    n_rows: int,
) -> dict[str, Any]:
    python_random = options.protocol is not None and options.protocol.generator == "python-random"
    boot = options.bootstrap
    # Numbered by first appearance among exactly these rows, as the key strings were.
    clusters = _first_appearance(cluster_codes) if boot.resamples > 0 else cluster_codes
    out = metric_object(
        arr,
        clusters,
        aggregate=options.aggregate,
        resamples=0 if python_random else boot.resamples,
        seed=boot.seed,
        level=boot.level,
        null_reasons=null_reasons,
        n_rows=n_rows,
    )
    if python_random and out["value"] is not None and boot.resamples > 0:
        ci = python_random_ci(
            (arr[:, 0] + arr[:, 1] + arr[:, 2]).tolist(),
            (arr[:, 0] + arr[:, 1] + arr[:, 3]).tolist(),
            clusters=clusters.tolist() if len(set(clusters.tolist())) < len(arr) else None,
            resamples=boot.resamples,
            seed=boot.seed,
            level=boot.level,
        )
        if ci is not None:
            out["ci95"] = [ci.low, ci.high]
    return out


def speaker_of_row(row: ScoringRow) -> str | None:
    """The row's speaker (`extra["speaker"]`, from the manifest, stm or trn), or None."""
    speaker = row.extra.get("speaker") if row.extra else None
    return speaker if isinstance(speaker, str) and speaker else None


def _block(
    group: _Group,
    positions: np.ndarray,
    facts: _RowFacts,
    options: ScoringOptions,
    cluster_unit: ClusterUnit | None = None,
    speakers: bool = True,
) -> dict[str, Any]:
    unit = options.cluster if cluster_unit is None else cluster_unit
    # The positions by digest, not by their bytes (8 MB a key for 1,000,000 rows).
    memo = unit.encode() + b"\x00" + hashlib.blake2b(np.ascontiguousarray(positions).data).digest()
    if memo not in group.blocks:
        group.blocks[memo] = _compute_block(group, positions, facts, options, unit)
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
    facts: _RowFacts,
    options: ScoringOptions,
    cluster_unit: ClusterUnit,
) -> dict[str, Any]:
    norm = group.normalizer
    every = _every(positions, group.n)
    # Every row of a group that holds every row of the input (one normaliser): its rows
    # are its positions, and each per-row column is read as it is, not copied (~30 bytes
    # a row less at the peak of a one-language corpus).
    whole = every and group.n == facts.n
    rows = positions if whole else group.indices[positions]
    cluster_codes = facts.bootstrap_codes(rows, cluster_unit, whole=whole)
    speaker_codes = _at(facts.speaker_code, rows, whole)
    n_speakers = len(_present(speaker_codes[speaker_codes >= 0]))
    views: dict[str, Any] = {}
    for view in norm.views:
        avail = _at(group.available[view], positions, every)
        view_reasons = group.reasons[view]
        reasons = Counter(view_reasons[p] for p in positions[~avail].tolist())
        metrics = {}
        for unit in norm.units:
            arr = _subset(group.counts[(view, unit)], positions, avail, every)
            metrics[METRIC_FOR_UNIT[unit]] = _metric(
                arr, _where(cluster_codes, avail), options, reasons, len(positions)
            )
        if view == group.mixed_view:
            metrics[MIXED_METRIC] = _mixed_metric(group, positions, cluster_codes, options, every)
        views[view] = metrics
    halluc = _hallucination(group, positions, every)
    status_counts = np.bincount(
        _at(facts.status_code, rows, whole), minlength=len(facts.status_names)
    )
    statuses = {
        facts.status_names[code]: int(count)
        for code, count in enumerate(status_counts.tolist())
        if count
    }
    languages = {
        base_language(facts.language_names[code])
        for code in _present(_at(facts.language_code, rows, whole))
    }
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
        "n_clusters": len(_present(cluster_codes)),
        # Only where rows carry speakers, so speakerless results keep their shape.
        **({"n_speakers": n_speakers} if n_speakers or options.min_speakers is not None else {}),
        "primary_view": norm.primary_view,
        "views": views,
        "statuses": dict(sorted(statuses.items())),
        "hallucination": halluc.as_dict(),
    }


def _every(positions: np.ndarray, n: int) -> bool:
    """Are `positions` 0, 1, ..., n-1: every one of `n` rows, in order?"""
    return len(positions) == n and (
        n == 0
        or (positions[0] == 0 and positions[-1] == n - 1 and bool((np.diff(positions) > 0).all()))
    )


def _at(values: np.ndarray, positions: np.ndarray, every: bool) -> np.ndarray:
    """`values[positions]`, or `values` itself (read only) when `every` says the
    positions are all of its rows in order: no corpus-sized copy."""
    out: np.ndarray = values if every else values[positions]
    return out


def _column_at(
    column: np.ndarray, group: _Group, positions: np.ndarray, facts: _RowFacts
) -> np.ndarray:
    """A per-row column of `facts` at the group's `positions`: the column itself when
    they are every row of the input, in order."""
    if group.n == facts.n and _every(positions, group.n):
        return column
    out: np.ndarray = column[group.indices[positions]]
    return out


def _where(values: np.ndarray, avail: np.ndarray) -> np.ndarray:
    """`values[avail]`, or `values` itself (read only) when every row is available."""
    out: np.ndarray = values if avail.all() else values[avail]
    return out


def _subset(
    values: np.ndarray, positions: np.ndarray, avail: np.ndarray, every: bool | None = None
) -> np.ndarray:
    """`values[positions][avail]` without copying what it need not: a block of every
    position (the overall block, a one-language corpus's language) where every row is
    available reads the array itself (read only), not two copies of a corpus-sized one.
    `every`: `_every(positions, len(values))`, when the caller knows it."""
    if every is None:
        every = _every(positions, len(values))
    return _where(_at(values, positions, every), avail)


def _mixed_metric(
    group: _Group,
    positions: np.ndarray,
    cluster_codes: np.ndarray,
    options: ScoringOptions,
    every: bool,
) -> dict[str, Any]:
    avail = _at(group.mixed_available, positions, every)
    reasons = Counter(group.mixed_reasons[p] for p in positions[~avail].tolist())
    arr = _subset(group.mixed_counts, positions, avail, every)
    return _metric(arr, _where(cluster_codes, avail), options, reasons, len(positions))


def _hallucination(group: _Group, positions: np.ndarray, every: bool) -> HallucinationCounts:
    """Hallucination flags from the primary view's counts (rows where it is available)."""
    norm = group.normalizer
    avail = _at(group.available[norm.primary_view], positions, every)
    arr = _subset(group.counts[(norm.primary_view, norm.units[0])], positions, avail, every)
    return hallucination_counts(
        arr[:, 0] + arr[:, 1] + arr[:, 3],
        arr[:, 0] + arr[:, 2] + arr[:, 3],
        _subset(group.repetition, positions, avail, every),
    )


def _speaker_blocks(
    group: _Group, positions: np.ndarray, facts: _RowFacts, options: ScoringOptions
) -> dict[str, Any]:
    """One block per speaker; its bootstrap resamples that speaker's clips (one speaker is
    one cluster, which no interval can be drawn from)."""
    codes = _column_at(facts.speaker_code, group, positions, facts)
    speakers = {
        facts.speaker_names[code]: positions[codes == code] for code in _present(codes[codes >= 0])
    }
    return {
        sp: _block(group, ps, facts, options, "clip", speakers=False)
        for sp, ps in sorted(speakers.items())
    }


def _slice_positions(
    group: _Group, positions: np.ndarray, facts: _RowFacts
) -> dict[str, list[int]]:
    """Per slice name: the positions (in order) of rows in that slice."""
    slices: dict[str, list[int]] = defaultdict(list)
    codes = _column_at(facts.slice_code, group, positions, facts)
    has = codes != 0
    for p, code in zip(positions[has].tolist(), codes[has].tolist(), strict=True):
        for sl in facts.slice_names[code]:
            slices[sl].append(p)
    return slices


def _language_key(language: str | None) -> str:
    """The `by_language` key of a row: its tag as written, `und` when it has none."""
    if not language:
        return "und"
    return language


def _language_blocks(
    group: _Group, facts: _RowFacts, base_of: list[str], options: ScoringOptions
) -> dict[str, Any]:
    """The group's block per language (by the base names `base_of` gives each language
    code), with its slices and speakers. A function of its own, so that its corpus-sized
    position arrays are gone before the overall block is computed."""
    codes = _at(facts.language_code, group.indices, group.n == facts.n)
    langs: dict[str, list[int]] = defaultdict(list)
    for code in _present(codes):
        langs[base_of[code]].append(code)
    out: dict[str, Any] = {}
    for lang, lang_codes in sorted(langs.items()):
        if len(langs) == 1:
            pos_arr = np.arange(group.n, dtype=np.int64)
        else:
            pos_arr = np.flatnonzero(np.isin(codes, lang_codes)).astype(np.int64, copy=False)
        block = _block(group, pos_arr, facts, options)
        if options.by_slice:
            block["by_slice"] = {
                sl: _block(group, np.asarray(ps, dtype=np.int64), facts, options)
                for sl, ps in sorted(_slice_positions(group, pos_arr, facts).items())
            }
        if options.by_speaker:
            by_speaker = _speaker_blocks(group, pos_arr, facts, options)
            if by_speaker:
                block["by_speaker"] = by_speaker
        out[lang] = block
    return out


class CorpusScorer:
    """Scores a corpus chunk by chunk, in input order, and keeps per-row counts only.

    `add` normalises and counts a chunk and hands back its predictions.jsonl records
    (built lazily, from that chunk's texts: consume them before the next `add`); the
    texts then go, except each language's few worst rows (`WORST_KEPT`) and the edit
    tallies the error analysis ranks. `finish` computes every figure from the counts.
    The figures and records are the same whatever the chunk size (tests pin it), so a
    1,000,000-row file scores in memory that grows only by the per-row counts and codes
    (`_Group`, `_RowFacts`) and an 8-byte digest of each id (`_RowKeys`). `keep=True`
    keeps each chunk's rows and texts too, for `ScoreResult.records`, the sclite reports
    and the punctuation metrics.

    `reread` gives the same rows again from the first (`readers.PairStream.reread`): the
    ids are then kept as digests, and read again only if two digests match. Without it
    (and without `keep`) the scorer cannot look back, so it keeps each id's string.
    Besides the per-row state, the error analysis's edit tallies grow with the distinct
    confusions (substitution pairs, inserted and deleted units): up to a few per row on
    random text, far fewer on real transcripts, which repeat their confusions.
    """

    def __init__(
        self,
        options: ScoringOptions,
        *,
        keep: bool = False,
        reread: Callable[[], Iterable[ScoringRow]] | None = None,
    ) -> None:
        self.options = options
        self.keep = keep
        if reread is None and keep:
            reread = self._kept_rows
        self.facts = _RowFacts(reread=reread)
        self.groups: dict[str, _Group] = {}
        self.rows: list[ScoringRow] = []
        # The policy answers per language; a corpus has a handful, not one per row.
        self._norm_of: dict[str | None, str] = {}

    def add(self, rows: Sequence[ScoringRow]) -> Iterator[dict[str, Any]]:
        """Score `rows` (the next chunk); returns their records, built as iterated."""
        start = self.facts.n
        self.facts.add(rows)
        by_norm: dict[str, list[int]] = defaultdict(list)
        norm_of = self._norm_of
        for k, row in enumerate(rows):
            language = row.language
            name = norm_of.get(language)
            if name is None:
                name = norm_of[language] = self.options.policy.for_language(language)
            by_norm[name].append(k)
        parts = []
        for name, at in sorted(by_norm.items()):
            group = self.groups.get(name)
            if group is None:
                group = self.groups[name] = _Group(normalizer=get_normalizer(name))
            part = _Part(
                normalizer=group.normalizer,
                rows=[rows[k] for k in at] if len(at) < len(rows) else list(rows),
                index=[start + k for k in at],
            )
            _score_part(part, group.edits, self.options.glm)
            group.absorb(part, keep=self.keep, worst=WORST_KEPT)
            parts.append(part)
        if self.keep:
            self.rows.extend(rows)
        return _records_in_order(parts, start, len(rows))

    def _kept_rows(self) -> list[ScoringRow]:
        return self.rows

    def finish(self) -> ScoreResult:
        """Every figure of the corpus (`ScoreResult.summary`), from the kept counts."""
        options = self.options
        facts = self.facts
        facts.seal()
        groups = {name: self.groups[name] for name in sorted(self.groups)}
        for group in groups.values():
            group.seal()
        # Per row: its language as the blocks name it ("und" for none).
        base_of = [_language_key(name) for name in facts.language_names]
        by_language: dict[str, Any] = {}
        for group in groups.values():
            by_language.update(_language_blocks(group, facts, base_of, options))

        if len(groups) == 1:
            (group,) = groups.values()
            overall: dict[str, Any] | None = _block(
                group, np.arange(group.n, dtype=np.int64), facts, options
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
        status_counts = np.bincount(facts.status_code, minlength=len(facts.status_names))
        statuses = {
            facts.status_names[code]: int(count)
            for code, count in enumerate(status_counts.tolist())
            if count
        }
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
                "references": facts.n,
                "scored": facts.n,
                "statuses": dict(sorted(statuses.items())),
                "not_ok": facts.not_ok,
            },
            "overall": overall,
            **({"overall_null_reason": overall_null} if overall_null else {}),
            "by_language": by_language,
        }
        return ScoreResult(options=options, rows=self.rows, summary=summary, groups=groups)


@collector_paused()
def score_rows(rows: Iterable[ScoringRow], options: ScoringOptions) -> ScoreResult:
    """Score every row; no row is dropped (missing hypotheses count as deletions)."""
    scorer = CorpusScorer(options, keep=True)
    scorer.add(list(rows))
    return scorer.finish()
