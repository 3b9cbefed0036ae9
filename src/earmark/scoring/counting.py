"""Normalise one part's rows and count their edits, per view and unit.

The per-row hot path of `earmark score`: each row is normalised once (repeats of a clip
once per distinct pair) and every view's pairs go to the batch counter together.
"""

from __future__ import annotations

from collections import defaultdict
from operator import attrgetter
from typing import TYPE_CHECKING, Literal

import numpy as np

from earmark.metrics.alignment import AlignmentTooLarge, EditTally, count_errors_array
from earmark.metrics.hallucination import LOOP_MIN_REPEATS, repetition_loop
from earmark.metrics.tokens import chars, mixed, words
from earmark.scoring.parts import Part
from earmark.scoring.policy import mixed_unit
from earmark.scoring.row_facts import language_key
from earmark.text.none import NoNormalizer

if TYPE_CHECKING:
    from earmark.formats.rows import ScoringRow
    from earmark.scoring.word_counter import WordCounter
    from earmark.text.base import ViewPair

TOKENIZER = {"word": words, "char": chars}
_REFERENCE, _HYPOTHESIS = attrgetter("reference"), attrgetter("hypothesis")
_LANGUAGE = attrgetter("language")


def score_part(part: Part, edits: dict[str, EditTally], counter: WordCounter | None = None) -> None:
    """Normalise and count one part's rows; the primary view's edits go to `edits`.
    `counter` counts them where an alignment, GLM or reference markup applies."""
    if isinstance(part.normalizer, NoNormalizer):
        pending, pending_pos = _as_given(part)
    else:
        pending, pending_pos = _normalise(part)
    _count(part, pending, pending_pos, edits, counter and counter.for_rows(part.rows))
    _score_mixed(part)


#: Per view: the normalised (reference, hypothesis) pairs to count, and their positions.
Pending = dict[str, list[tuple[str, str]]]
PendingPositions = dict[str, list[int]]


def _as_given(part: Part) -> tuple[Pending, PendingPositions]:
    """`_normalise` for `none`, whose one view is the texts as given: every row's pair
    is its raw (reference, hypothesis), built in one pass, with no call per row. (Its
    loop flags come from the word count's split, `_count`.)"""
    rows = part.rows
    n = len(rows)
    (view,) = part.normalizer.views
    hypotheses = list(map(_HYPOTHESIS, rows))
    if None in hypotheses:  # a missing hypothesis is scored as an empty one
        hypotheses = [hypothesis or "" for hypothesis in hypotheses]
    pairs = list(zip(map(_REFERENCE, rows), hypotheses, strict=True))
    part.available[view] = np.ones(n, dtype=bool)
    part.reasons[view] = [""] * n
    texts: list[tuple[str, str] | None] = list(pairs)  # a copy of pointers: a few µs
    part.texts[view] = texts
    part.repetition = np.zeros(n, dtype=bool)
    return {view: pairs}, {view: list(range(n))}


def _normalise(part: Part) -> tuple[Pending, PendingPositions]:
    """Normalise every row's pair per view (texts, null reasons, loop flags into `part`)
    and gather each view's available pairs for the batch counter."""
    norm = part.normalizer
    rows = part.rows
    n = len(rows)
    pending: Pending = defaultdict(list)
    pending_pos: PendingPositions = defaultdict(list)
    for view in norm.views:
        part.available[view] = np.zeros(n, dtype=bool)
        part.reasons[view] = [""] * n
        part.texts[view] = [None] * n
    part.repetition = np.zeros(n, dtype=bool)
    primary_tokens = TOKENIZER[norm.units[0]]
    # Word units: the loop flags come from the word count's split (`_count`).
    loops_here = norm.units[0] != "word"
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
            pending[view],
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
            if primary and loops_here:
                tokens = primary_tokens(pair.hypothesis)
                # `_flag_loops`' check, inline (this loop runs once per row)
                if len(tokens) - len(set(tokens)) >= loop_needs and repetition_loop(tokens):
                    repetition[pos] = True
    return pending, pending_pos


def _count(
    part: Part,
    pending: Pending,
    pending_pos: PendingPositions,
    edits: dict[str, EditTally],
    counter: WordCounter | None,
) -> None:
    """Count each view's pairs per unit in one batch; the primary view and unit's edits
    are tallied per language as they are counted. The primary view goes first: a row
    whose pair another view renders the same (en-v1's raw and normalized views of an
    already normalised text) takes the primary view's counts instead of being aligned
    again, the same texts giving the same counts."""
    norm = part.normalizer
    rows = part.rows
    n = len(rows)
    primary = norm.primary_view
    for view in sorted(norm.views, key=lambda v: v != primary):
        part.available[view][np.asarray(pending_pos[view], dtype=np.int64)] = True
        texts_list, view_pos = pending.get(view), pending_pos[view]
        same = None
        if view != primary and counter is None and texts_list:
            texts_list, view_pos, same = _unlike_primary(part.texts[primary], texts_list, view_pos)
        positions = np.asarray(view_pos, dtype=np.int64)
        for unit in norm.units:
            arr = np.zeros((n, 4), dtype=np.int64)
            if texts_list:
                units: Literal["given", "words"] = "words" if unit == "word" else "given"
                tallies = None
                first = view == primary and unit == norm.units[0]
                if first:
                    tallies = _tallies(rows, view_pos, edits)
                # The primary view's distinct hypothesis words, from the count's own
                # split, screen the rows for loops (`_flag_loops`).
                distinct: list[int] | None = [] if first and unit == "word" else None
                try:
                    if counter is not None:  # `scoring.word_counter`
                        arr[positions] = counter.count_pairs(
                            texts_list, unit=unit, tallies=tallies, rows=rows,
                            positions=view_pos, where=f"{norm.name}, view {view}",
                        )  # fmt: skip
                    else:
                        arr[positions] = count_errors_array(
                            texts_list, units=units, tallies=tallies, distinct=distinct
                        )
                except AlignmentTooLarge as exc:  # one line naming the utterance
                    raise exc.naming(rows[view_pos[exc.index or 0]].id) from None
                if distinct is not None:
                    if counter is None:  # S + I + hits: each hypothesis's words
                        a = arr[positions]
                        n_hyp = (a[:, 0] + a[:, 2] + a[:, 3]).tolist()
                    else:
                        split = [hyp.split() for _, hyp in texts_list]
                        n_hyp = [len(tokens) for tokens in split]
                        distinct = [len(set(tokens)) for tokens in split]
                    _flag_loops(part.repetition, texts_list, distinct, n_hyp, view_pos)
            if same is not None:
                arr[same] = part.counts[(primary, unit)][same]
            part.counts[(view, unit)] = arr


def _flag_loops(
    repetition: np.ndarray,
    pairs: list[tuple[str, str]],
    distinct: list[int],
    n_hyp: list[int],
    positions: list[int],
) -> None:
    """Set `repetition` at the positions whose hypothesis words loop.

    A loop needs some unit LOOP_MIN_REPEATS times, so at least LOOP_MIN_REPEATS - 1
    repeated units: without them `repetition_loop` is False. Screening by the number of
    distinct words (counted where the hypothesis was split for its count; its words are
    `n_hyp` of them) leaves `repetition_loop` for nearly no row (~0.3 s per 100,000
    rows); the answer is the same."""
    needs = LOOP_MIN_REPEATS - 1
    for k in [k for k, (n, d) in enumerate(zip(n_hyp, distinct, strict=True)) if n - d >= needs]:
        if repetition_loop(words(pairs[k][1])):
            repetition[positions[k]] = True


def _unlike_primary(
    primary_texts: list[tuple[str, str] | None],
    texts_list: list[tuple[str, str]],
    view_pos: list[int],
) -> tuple[list[tuple[str, str]], list[int], np.ndarray]:
    """The pairs (and positions) that differ from the primary view's pair of their row,
    and the positions of those that do not."""
    other: list[tuple[str, str]] = []
    other_pos: list[int] = []
    same: list[int] = []
    for pos, pair in zip(view_pos, texts_list, strict=True):
        if pair == primary_texts[pos]:
            same.append(pos)
        else:
            other.append(pair)
            other_pos.append(pos)
    return other, other_pos, np.asarray(same, dtype=np.int64)


def _tallies(
    rows: list[ScoringRow], positions: list[int], edits: dict[str, EditTally]
) -> list[EditTally]:
    """Each position's language tally, created in `edits` on first use. A part of one
    language (the common case) takes one look-up, not a call per row."""
    if len(positions) == len(rows):  # every row (positions are ascending)
        languages = list(map(_LANGUAGE, rows))
    else:
        languages = [rows[p].language for p in positions]
    if languages and languages.count(languages[0]) == len(languages):
        return [edits.setdefault(language_key(languages[0]), EditTally())] * len(languages)
    tally_of: dict[str | None, EditTally] = {}
    for language in languages:
        if language not in tally_of:
            tally_of[language] = edits.setdefault(language_key(language), EditTally())
    return [tally_of[language] for language in languages]


def _score_mixed(part: Part) -> None:
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
        try:
            counted = count_errors_array(token_pairs, units="given")
        except AlignmentTooLarge as exc:
            raise exc.naming(part.rows[positions[exc.index or 0]].id) from None
        part.mixed_counts[np.asarray(positions, dtype=np.int64)] = counted
