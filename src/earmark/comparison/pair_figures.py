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
    Segments,
    null_difference,
    paired_comparison,
    row_letters,
    row_segments,
)
from earmark.results.comparison import PairedDifference
from earmark.scoring.row_counts import METRIC_FOR_UNIT

IntArray = NDArray[np.int64]


def pair_figures(inputs: CompareInputs, challenger: str) -> list[PairedDifference]:
    """Paired figures of one challenger vs the reference arm: overall, then per language."""
    reference, table = inputs.reference, inputs.table
    ref_rows = inputs.vs_human[reference]
    challenger_rows = inputs.vs_human[challenger]
    scopes: list[tuple[str | None, IntArray]] = [
        (None, inputs.everything()),
        *inputs.by_lang.items(),
    ]
    found: dict[str, _RowSegments] = {}
    out: list[PairedDifference] = []
    for language, positions in scopes:
        names = sorted({ref_rows.normalizers[p] for p in positions.tolist()})
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
            if inputs.clusters is None:  # MAPSSWE takes one hypothesis per utterance
                if unit not in found:
                    found[unit] = _RowSegments(inputs, challenger, unit)
                segments = found[unit].get(kept)
            label = PairLabel(
                reference, challenger, language, METRIC_FOR_UNIT[unit], norm.primary_view, name
            )
            out.append(
                paired_comparison(
                    label,
                    ref_rows.counts(unit)[kept],
                    challenger_rows.counts(unit)[kept],
                    inputs.sub_clusters(kept),
                    inputs.options.bootstrap,
                    inputs.options.aggregate,
                    segments,
                    inputs.options.mapsswe,
                )
            )
    return out


class _RowSegments:
    """Each row's MAPSSWE segments for one challenger and unit, found once whichever
    scopes (overall, its language) hold the row. Letters and segments are memoised by
    table entry (and entry pair) in `inputs`: a row where the challenger agrees with the
    reference arm has one entry on both sides, so it is aligned and segmented once for
    every challenger a worker handles."""

    def __init__(self, inputs: CompareInputs, challenger: str, unit: str) -> None:
        self.reference_entries = inputs.vs_human[inputs.reference].entries
        self.challenger_entries = inputs.vs_human[challenger].entries
        self.texts = (inputs.table.primary_reference, inputs.table.primary_hypothesis)
        self.letters = inputs.letter_memo.setdefault(unit, {})
        self.by_entries = inputs.segment_memo.setdefault(unit, {})
        self.unit = unit
        self.alignment = inputs.options.mapsswe

    def get(self, rows: IntArray) -> list[Segments]:
        pairs = list(
            zip(
                self.reference_entries[rows].tolist(),
                self.challenger_entries[rows].tolist(),
                strict=True,
            )
        )
        todo = list({pair: None for pair in pairs if pair not in self.by_entries})
        if todo:
            xs, ys = (np.asarray(side, dtype=np.int64) for side in zip(*todo, strict=True))
            x = row_letters(*self.texts, xs, self.unit, self.letters, self.alignment)
            y = row_letters(*self.texts, ys, self.unit, self.letters, self.alignment)
            self.by_entries.update(zip(todo, row_segments(x, y), strict=True))
        return [self.by_entries[pair] for pair in pairs]
