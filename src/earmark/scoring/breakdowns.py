"""A group's blocks per language, with each language's slices and speakers.

What results.json's `by_language` holds; the positions of each language, slice and
speaker come from the rows' codes (`RowFacts`), never from their strings.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

import numpy as np

from earmark.results.scope import ScopeResult
from earmark.scoring.blocks import one_row_blocks, scope_block
from earmark.scoring.columns import every_row, present_codes, rows_at
from earmark.scoring.groups import Group
from earmark.scoring.options import ScoringOptions
from earmark.scoring.row_facts import RowFacts


def language_blocks(
    group: Group, facts: RowFacts, base_of: list[str], options: ScoringOptions
) -> dict[str, ScopeResult]:
    """The group's block per language (by the base names `base_of` gives each language
    code), with its slices and speakers. A function of its own, so that its corpus-sized
    position arrays are gone before the overall block is computed."""
    codes = rows_at(facts.language_code, group.indices, group.n == facts.n)
    langs: dict[str, list[int]] = defaultdict(list)
    for code in present_codes(codes):
        langs[base_of[code]].append(code)
    out: dict[str, ScopeResult] = {}
    for lang, lang_codes in sorted(langs.items()):
        if len(langs) == 1:
            pos_arr = np.arange(group.n, dtype=np.int64)
        else:
            pos_arr = np.flatnonzero(np.isin(codes, lang_codes)).astype(np.int64, copy=False)
        block = scope_block(group, pos_arr, facts, options)
        if options.by_slice:
            by_slice = {
                sl: scope_block(group, np.asarray(ps, dtype=np.int64), facts, options)
                for sl, ps in sorted(_slice_positions(group, pos_arr, facts).items())
            }
            block = replace(block, by_slice=by_slice)
        if options.by_speaker:
            by_speaker = _speaker_blocks(group, pos_arr, facts, options)
            if by_speaker:
                block = replace(block, by_speaker=by_speaker)
        out[lang] = block
    return out


def _speaker_blocks(
    group: Group, positions: np.ndarray, facts: RowFacts, options: ScoringOptions
) -> dict[str, ScopeResult]:
    """One block per speaker; its bootstrap resamples that speaker's clips (one speaker is
    one cluster, which no interval can be drawn from)."""
    codes = _column_at(facts.speaker_code, group, positions, facts)
    # Grouped by one stable sort, not a pass over every row per speaker (quadratic in
    # speakers): each speaker's positions stay in order.
    has = np.flatnonzero(codes >= 0)
    if not len(has):
        return {}
    order = np.argsort(codes[has], kind="stable")
    sorted_codes = codes[has][order]
    sorted_positions = positions[has][order]
    starts = np.flatnonzero(np.r_[True, np.diff(sorted_codes) != 0])
    ends = np.r_[starts[1:], len(sorted_codes)]
    names = [facts.speaker_names[code] for code in sorted_codes[starts].tolist()]
    # Speakers of one row (every speaker, for ids without a `-`) built together.
    single = ends - starts == 1
    blocks = dict(
        zip(
            [name for name, one in zip(names, single.tolist(), strict=True) if one],
            one_row_blocks(group, sorted_positions[starts[single]], facts, options),
            strict=True,
        )
    )
    for name, start, end in zip(names, starts.tolist(), ends.tolist(), strict=True):
        if end - start > 1:
            ps = sorted_positions[start:end]
            blocks[name] = scope_block(group, ps, facts, options, "clip", speakers=False)
    return {name: blocks[name] for name in sorted(blocks)}


def _slice_positions(group: Group, positions: np.ndarray, facts: RowFacts) -> dict[str, list[int]]:
    """Per slice name: the positions (in order) of rows in that slice."""
    slices: dict[str, list[int]] = defaultdict(list)
    codes = _column_at(facts.slice_code, group, positions, facts)
    has = codes != 0
    for p, code in zip(positions[has].tolist(), codes[has].tolist(), strict=True):
        for sl in facts.slice_names[code]:
            slices[sl].append(p)
    return slices


def _column_at(
    column: np.ndarray, group: Group, positions: np.ndarray, facts: RowFacts
) -> np.ndarray:
    """A per-row column of `facts` at the group's `positions`: the column itself when
    they are every row of the input, in order."""
    if group.n == facts.n and every_row(positions, group.n):
        return column
    out: np.ndarray = column[group.indices[positions]]
    return out
