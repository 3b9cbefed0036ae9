"""Each challenger against the reference arm on the same rows: overall, then per language.

One paired difference per metric of the scope's normaliser; a scope whose rows are scored
by different normalisers gets null pairs with the reason (their figures are never summed).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from earmark.comparison.inputs import CompareInputs
from earmark.comparison.paired import (
    PairLabel,
    SegmentColumns,
    null_difference,
    paired_comparison,
    row_letters,
)
from earmark.results.comparison import PairedDifference
from earmark.scoring.row_counts import METRIC_FOR_UNIT

IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]


def pair_figures(inputs: CompareInputs, challenger: str) -> list[PairedDifference]:
    """Paired figures of one challenger vs the reference arm: overall, then per language."""
    reference, table = inputs.reference, inputs.table
    ref_rows = inputs.vs_human[reference]
    challenger_rows = inputs.vs_human[challenger]
    columns = inputs.columns
    scopes: list[tuple[str | None, IntArray]] = [
        (None, columns.everything()),
        *columns.by_lang.items(),
    ]
    found: dict[str, SegmentColumns] = {}
    out: list[PairedDifference] = []
    for language, positions in scopes:
        names = ref_rows.rows.within(positions)
        if len(names) != 1:
            reason = (
                f"rows are scored with different normalisers ({', '.join(names)}); "
                "see the per-language pairs"
                if names
                else "no rows"
            )
            for metric in ("wer", "cer"):
                label = PairLabel(reference, challenger, language, metric, None, None)
                out.append(null_difference(label, reason))
            continue
        name = names[0]
        norm = table.normalizer(name)
        available = ref_rows.available()[positions] & challenger_rows.available()[positions]
        kept = positions[available]
        for unit in norm.units:
            segments = None
            if columns.clusters is None:  # MAPSSWE takes one hypothesis per utterance
                if unit not in found:
                    found[unit] = _challenger_segments(inputs, challenger, unit)
                segments = found[unit].of_rows(kept, len(columns.labels))
            label = PairLabel(
                reference, challenger, language, METRIC_FOR_UNIT[unit], norm.primary_view, name
            )
            out.append(
                paired_comparison(
                    label,
                    ref_rows.counts(unit)[kept],
                    challenger_rows.counts(unit)[kept],
                    columns.sub_clusters(kept),
                    inputs.options.bootstrap,
                    inputs.options.aggregate,
                    segments,
                    inputs.options.mapsswe,
                )
            )
    return out


def _unit_rows(inputs: CompareInputs, name: str, unit: str) -> BoolArray:
    """Rows whose normaliser counts `unit` and whose view both `name`'s counts and the
    reference arm's have: the rows any scope's MAPSSWE of that unit can hold."""
    table = inputs.table
    rows = inputs.vs_human[inputs.reference]
    counted = [n for n in rows.rows.distinct if unit in table.units(n)]
    mask = np.isin(rows.rows.codes, [rows.rows.distinct.index(n) for n in counted])
    return mask & rows.available() & inputs.vs_human[name].available()


def _letters(inputs: CompareInputs, entries: IntArray, unit: str) -> list[str]:
    """The evaluation letters of table entries (memoised in `inputs`, per unit)."""
    texts = (inputs.table.primary_reference, inputs.table.primary_hypothesis)
    memo = inputs.letter_memo.setdefault(unit, {})
    return row_letters(*texts, entries, unit, memo, inputs.options.mapsswe)


def _reference_segments(inputs: CompareInputs, unit: str) -> SegmentColumns:
    """The reference arm's segments against itself, every row of the unit: a challenger
    that agrees with the reference arm on a row (same table entry, so the same letters)
    has exactly these there. Found once per worker and unit, for every challenger."""
    found = inputs.segment_memo.get(unit)
    if found is None:
        rows = np.flatnonzero(_unit_rows(inputs, inputs.reference, unit))
        # A row without an error on the unit is all C: no segment (a fifth of the rows of
        # a 10% WER corpus), so it is not aligned at all.
        counts = inputs.vs_human[inputs.reference].counts(unit)[rows]
        rows = rows[(counts[:, 0] + counts[:, 1] + counts[:, 2]) > 0]
        entries = inputs.vs_human[inputs.reference].entries[rows]
        letters = _letters(inputs, entries, unit)
        found = SegmentColumns.of_letters(rows, letters, letters)
        inputs.segment_memo[unit] = found
    return found


def _challenger_segments(inputs: CompareInputs, challenger: str, unit: str) -> SegmentColumns:
    """Each row's MAPSSWE segments (x: reference arm, y: challenger) on one unit, every
    row the unit's scopes can hold: the reference arm's own where the two agree, else
    found from both rows' letters (each entry aligned once per worker: `_letters`)."""
    n = len(inputs.columns.labels)
    rows = _unit_rows(inputs, challenger, unit)
    x_entries = inputs.vs_human[inputs.reference].entries
    y_entries = inputs.vs_human[challenger].entries
    differ = rows & (x_entries != y_entries)
    agree = rows & ~differ
    own = _reference_segments(inputs, unit)
    same = own.of_rows(np.flatnonzero(agree), n)
    at = np.flatnonzero(differ)
    x_letters = _letters(inputs, x_entries[at], unit)
    y_letters = _letters(inputs, y_entries[at], unit)
    changed = SegmentColumns.of_letters(at, x_letters, y_letters)
    return SegmentColumns.merged([same, changed], int(rows.sum()))
