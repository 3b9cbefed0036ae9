"""Every row one normaliser scored, over all chunks: the counts every figure comes from.

A `Group` takes each scored part's per-row counts, availability and loop flags, tallies
the primary view's edits and keeps each language's worst rows (with their texts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter

import numpy as np

from earmark.metrics.alignment import EditTally
from earmark.metrics.analysis import worst_utterances
from earmark.metrics.counts import ErrorCounts
from earmark.results.scope import ScopeResult
from earmark.scoring.columns import Columns
from earmark.scoring.parts import Part
from earmark.scoring.row_facts import language_key
from earmark.text.base import Normalizer

#: How many worst utterances per language the scorer keeps while it streams (with their
#: normalised texts): what the error analysis can show (`error_analysis_section`'s
#: `worst` may not exceed it).
WORST_KEPT = 5


@dataclass
class Worst:
    """A candidate for a language's worst utterances, with the texts to render it."""

    row_id: str
    counts: ErrorCounts
    texts: tuple[str, str]


_LANGUAGE = attrgetter("language")


def _positions_by_language(languages: list[str | None]) -> dict[str, list[int]]:
    """Positions per `by_language` key, keys in order of first appearance, positions in
    row order; a chunk of one language (the common case) without a loop per row."""
    if not languages:
        return {}
    if languages.count(languages[0]) == len(languages):
        return {language_key(languages[0]): list(range(len(languages)))}
    by_raw: dict[str | None, list[int]] = {}
    for pos, language in enumerate(languages):
        by_raw.setdefault(language, []).append(pos)
    by_language: dict[str, list[int]] = {}
    for raw, positions in by_raw.items():
        key = language_key(raw)
        if key in by_language:  # None and "" are both "und": merge, in row order
            by_language[key] = sorted(by_language[key] + positions)
        else:
            by_language[key] = positions
    return by_language


@dataclass
class Group:
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
    worst: dict[str, list[Worst]] = field(default_factory=dict)
    #: Blocks already computed, by their positions' digest: the overall block of a
    #: one-language corpus is its language's block, bootstrapped once, not twice.
    blocks: dict[bytes, ScopeResult] = field(default_factory=dict)
    #: The parts kept for their records (`score_rows` only).
    parts: list[Part] = field(default_factory=list)
    n: int = 0
    _columns: Columns = field(default_factory=Columns)

    def absorb(self, part: Part, *, keep: bool, worst: int) -> None:
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

    def _track_worst(self, part: Part, k: int) -> None:
        """Keep each language's `k` worst rows (the error analysis's ranking) and their
        texts; the rest of a chunk's texts can go."""
        norm = self.normalizer
        view = norm.primary_view
        counts = part.counts[(view, norm.units[0])]
        errors = counts[:, 0] + counts[:, 1] + counts[:, 2]
        candidates = part.available[view] & (errors > 0)
        by_language = _positions_by_language(list(map(_LANGUAGE, part.rows)))
        for language in by_language:
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
                kept.append(Worst(part.rows[p].id, ErrorCounts(s, d, i, h), pair))
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
