"""Paired statistics of a challenger arm against the reference arm on the same utterances.

- The difference of corpus rates (challenger - reference) with a paired clip bootstrap
  (`stats.paired_bootstrap`): both arms are scored on the same resampled clips, and the
  resampling unit is the utterance id, so repeats of a clip stay together.
- A sign test and a Wilcoxon signed-rank test on per-clip error counts (errors summed
  over a clip's repeats first: repeats of one clip are not independent observations).
- McNemar's test on clip-level correct/incorrect and NIST's MAPSSWE test on segment-level
  error counts (`stats.paired_tests`), as sclite's sc_stats runs them. MAPSSWE segments
  come from each row's alignment to the normalised human reference (earmark's alignment,
  the one behind every count here; sc_stats uses sclite's weighted one, which can split
  an equal-cost stretch differently). `compare --mapsswe sclite` segments sclite's
  alignment instead, and then finds sc_stats's segments and Z.
- Holm's adjustment across the challengers of one family (same scope, metric and view)
  when more than one challenger is compared; with one challenger it is the identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import cast

import numpy as np
from numpy.typing import NDArray
from rapidfuzz.distance import Levenshtein

from earmark.comparison.options import MapssweAlignment
from earmark.metrics.sclite_alignment import sclite_evaluation_letters
from earmark.results.codec import JSONValue
from earmark.results.comparison import PairedDifference
from earmark.stats.bootstrap import paired_bootstrap, utterance_rates
from earmark.stats.paired_tests import (
    holm_adjust,
    mapsswe_from_columns,
    mcnemar_test,
    segment_columns,
    sign_test,
    wilcoxon_signed_rank,
)
from earmark.stats.settings import BootstrapSettings

IntArray = NDArray[np.int64]

#: (reference, hypothesis) -> aligned evaluation letters C/S/D/I, per unit.
_LETTERS = {"equal": "C", "replace": "S", "delete": "D"}
#: One opcode as rapidfuzz's `Opcodes.as_list` gives it: tag, source and dest spans.
_Block = tuple[str, int, int, int, int]


def evaluation_letters(
    reference: str, hypothesis: str, unit: str, alignment: MapssweAlignment = "earmark"
) -> str:
    """One letter per aligned column (C, S, D, I): what MAPSSWE segments, by earmark's
    alignment or by sclite's (`metrics.sclite_alignment`, as sc_stats reads it)."""
    ref: Sequence[str]
    hyp: Sequence[str]
    if unit == "word":
        ref, hyp = reference.split(), hypothesis.split()
    else:  # characters: rapidfuzz aligns a string's code points as it aligns their list
        ref, hyp = reference, hypothesis
    if ref == hyp:
        return "C" * len(ref)
    if alignment == "sclite":
        return sclite_evaluation_letters(list(ref), list(hyp))
    # The opcodes behind `metrics.alignment.align` (same columns), as plain tuples (a
    # sixth faster than reading each block's attributes).
    blocks = cast("list[_Block]", Levenshtein.opcodes(ref, hyp).as_list())
    out = []
    for tag, src_start, src_end, dest_start, dest_end in blocks:
        if tag == "insert":
            out.append("I" * (dest_end - dest_start))
        else:
            out.append(_LETTERS[tag] * (src_end - src_start))
    return "".join(out)


def row_letters(
    references: Sequence[str],
    hypotheses: Sequence[str],
    entries: IntArray,
    unit: str,
    memo: dict[int, str] | None = None,
    alignment: MapssweAlignment = "earmark",
) -> list[str]:
    """`evaluation_letters` of each row, given per-entry normalised texts (a
    `PairTable`'s primary view) and each row's entry; each entry is aligned once (across
    calls too, when they share a `memo` for this unit)."""
    seen: dict[int, str] = {} if memo is None else memo
    out = []
    for entry in entries.tolist():
        found = seen.get(entry)
        if found is None:
            found = seen[entry] = evaluation_letters(
                references[entry], hypotheses[entry], unit, alignment
            )
        out.append(found)
    return out


@dataclass(frozen=True)
class SegmentColumns:
    """MAPSSWE segments of many rows, column by column, in row order: each segment's row
    position, reference words and errors of x (the reference arm) and y (the challenger).

    Found once per challenger and unit, so every scope holding a row reuses its segments
    (`of_rows`) without a Python object per row and scope."""

    rows: IntArray
    reference_words: IntArray
    errors_x: IntArray
    errors_y: IntArray
    #: How many rows the segments are of (a row may have none).
    n_rows: int

    @classmethod
    def of_letters(
        cls, rows: IntArray, x_letters: Sequence[str], y_letters: Sequence[str]
    ) -> SegmentColumns:
        """The segments of each row's letters (`x_letters[i]`, `y_letters[i]` are row
        `rows[i]`'s), found for all the rows at once (`segment_columns`)."""
        sentence, refs, errors_x, errors_y = segment_columns(x_letters, y_letters)
        return cls(rows[sentence], refs, errors_x, errors_y, int(rows.size))

    def of_rows(self, positions: IntArray, n_all: int) -> SegmentColumns:
        """The segments of the rows at `positions` (sorted, among `n_all` rows)."""
        keep = np.zeros(n_all, dtype=bool)
        keep[positions] = True
        chosen = keep[self.rows]
        return SegmentColumns(
            self.rows[chosen],
            self.reference_words[chosen],
            self.errors_x[chosen],
            self.errors_y[chosen],
            int(positions.size),
        )

    @staticmethod
    def merged(parts: Sequence[SegmentColumns], n_rows: int) -> SegmentColumns:
        """Several parts covering different rows as one, in row order (a row's segments
        keep their order: they all come from one part)."""
        rows = np.concatenate([p.rows for p in parts])
        order = np.argsort(rows, kind="stable")
        return SegmentColumns(
            rows[order],
            np.concatenate([p.reference_words for p in parts])[order],
            np.concatenate([p.errors_x for p in parts])[order],
            np.concatenate([p.errors_y for p in parts])[order],
            n_rows,
        )


def _rate(errors: IntArray, ref_units: IntArray, aggregate: str) -> float | None:
    if aggregate == "macro":
        return float(utterance_rates(errors, ref_units).mean()) if errors.size else None
    total = int(ref_units.sum())
    return int(errors.sum()) / total if total else None


@dataclass(frozen=True)
class PairLabel:
    """Which figure a paired difference is of: the two arms, the scope (`language` None:
    all rows), the metric, and the view and normaliser it is counted on."""

    reference: str
    challenger: str
    language: str | None
    metric: str
    view: str | None
    normalizer: str | None


#: Keys every paired difference writes, null or not, in compare.json's order; then `n`,
#: `null_reason` and `tests` where they are set, then the Holm keys (`_layout`).
_ALWAYS = (
    "reference",
    "challenger",
    "language",
    "metric",
    "view",
    "normalizer",
    "reference_value",
    "challenger_value",
    "difference",
    "ci95",
    "share_challenger_better",
    "share_tied",
    "sign_test_p",
    "wilcoxon_p",
    "mcnemar_p",
    "mapsswe_p",
)
_HOLM_KEYS = (
    "p_holm",
    "holm_family_size",
    "sign_test_p_holm",
    "mcnemar_p_holm",
    "mapsswe_p_holm",
)


def _layout(pair: PairedDifference) -> tuple[str, ...]:
    """The keys `pair` writes: its nulls are written (a reader sees the test was not run)."""
    optional = (("n", pair.n), ("null_reason", pair.null_reason), ("tests", pair.tests))
    return (*_ALWAYS, *(key for key, value in optional if value is not None), *_HOLM_KEYS)


def null_difference(label: PairLabel, reason: str, n: int | None = None) -> PairedDifference:
    """A paired figure that cannot be computed: every value null, with why."""
    return PairedDifference(
        reference=label.reference,
        challenger=label.challenger,
        language=label.language,
        metric=label.metric,
        view=label.view,
        normalizer=label.normalizer,
        reference_value=None,
        challenger_value=None,
        difference=None,
        ci=None,
        n=n,
        null_reason=reason,
    )


def paired_comparison(
    label: PairLabel,
    reference_counts: IntArray,
    challenger_counts: IntArray,
    clusters: NDArray[np.int64] | None,
    bootstrap: BootstrapSettings,
    aggregate: str,
    segments: SegmentColumns | None = None,
    mapsswe_alignment: MapssweAlignment = "earmark",
) -> PairedDifference:
    """Difference, CI, win share and paired tests for one metric on aligned rows.

    Row i of both count arrays is the same utterance scored against the same normalised
    human reference, so both share N_ref per row (checked: a mismatch is a bug upstream).
    `segments`, the rows' MAPSSWE segments (reference arm x, challenger y, from their
    `evaluation_letters`; `SegmentColumns`), feed MAPSSWE; without them it is null with a
    reason; `mapsswe_alignment` names the alignment they come from. The Holm fields are
    filled later, across challengers (`apply_holm`).
    """
    errors_a = reference_counts[:, 0] + reference_counts[:, 1] + reference_counts[:, 2]
    errors_b = challenger_counts[:, 0] + challenger_counts[:, 1] + challenger_counts[:, 2]
    ref_units = reference_counts[:, 0] + reference_counts[:, 1] + reference_counts[:, 3]
    ref_units_b = challenger_counts[:, 0] + challenger_counts[:, 1] + challenger_counts[:, 3]
    if not np.array_equal(ref_units, ref_units_b):
        raise AssertionError("paired rows must share their reference units")
    n = int(errors_a.size)
    if n == 0:
        return null_difference(label, "no shared rows", n)
    a = _rate(errors_a, ref_units, aggregate)
    b = _rate(errors_b, ref_units, aggregate)
    if a is None or b is None:
        return null_difference(label, "no reference units (every reference is empty)", n)
    ci: tuple[float, float] | None = None
    better = tied = None
    if bootstrap.resamples > 0:
        boot = paired_bootstrap(
            errors_a,
            errors_b,
            ref_units,
            clusters=clusters,
            resamples=bootstrap.resamples,
            seed=bootstrap.seed,
            level=bootstrap.level,
            aggregate="macro" if aggregate == "macro" else "micro",
            generator=bootstrap.generator,
        )
        if boot.low is not None and boot.high is not None:
            ci = (float(boot.low), float(boot.high))
        better, tied = boot.share_b_better, boot.share_tied
    tests = _ClipTests(errors_a, errors_b, clusters, segments, mapsswe_alignment)
    return PairedDifference(
        reference=label.reference,
        challenger=label.challenger,
        language=label.language,
        metric=label.metric,
        view=label.view,
        normalizer=label.normalizer,
        reference_value=a,
        challenger_value=b,
        difference=b - a,
        ci=ci,
        share_challenger_better=better,
        share_tied=tied,
        sign_test_p=tests.sign.p_value,
        wilcoxon_p=tests.wilcoxon.p_value,
        mcnemar_p=tests.mcnemar.p_value,
        mapsswe_p=tests.mapsswe_p,
        n=n,
        tests=tests.workings(),
    )


class _ClipTests:
    """The paired tests on per-clip error counts (errors summed over a clip's repeats
    first: repeats of one clip are not independent observations) and MAPSSWE."""

    def __init__(
        self,
        errors_a: IntArray,
        errors_b: IntArray,
        clusters: NDArray[np.int64] | None,
        segments: SegmentColumns | None,
        alignment: MapssweAlignment = "earmark",
    ) -> None:
        if clusters is None:  # every row its own clip
            per_clip_a, per_clip_b = errors_a, errors_b
        else:
            _, compact = np.unique(clusters, return_inverse=True)
            compact = compact.reshape(-1)
            per_clip_a = np.bincount(compact, weights=errors_a)
            per_clip_b = np.bincount(compact, weights=errors_b)
        self.n_clips = int(per_clip_a.size)
        self.sign = sign_test(per_clip_a, per_clip_b)
        self.wilcoxon = wilcoxon_signed_rank(per_clip_a, per_clip_b)
        # A clip is correct when every repeat of it is: repeats are not independent sentences.
        self.mcnemar = mcnemar_test(per_clip_a, per_clip_b)
        self.mapsswe = _mapsswe(segments, clusters, errors_a.size, alignment)
        p = self.mapsswe["p_value"]
        self.mapsswe_p = p if isinstance(p, float | int) else None

    def workings(self) -> dict[str, JSONValue]:
        """The pair's `tests` block: units, tallies and methods behind each p."""
        return {
            "unit": "clip (errors summed over repeats)",
            "n_clips": self.n_clips,
            "challenger_fewer_errors": self.sign.n_positive,
            "challenger_more_errors": self.sign.n_negative,
            "tied": self.sign.n_zero,
            "wilcoxon_method": self.wilcoxon.method,
            "mcnemar": {
                **self.mcnemar.to_dict(),
                "unit": "clip (correct = no error on any repeat)",
                "reference_only_correct": self.mcnemar.only_x_correct,
                "challenger_only_correct": self.mcnemar.only_y_correct,
            },
            "mapsswe": self.mapsswe,
        }


def _mapsswe(
    segments: SegmentColumns | None,
    clusters: NDArray[np.int64] | None,
    n_rows: int,
    alignment: MapssweAlignment = "earmark",
) -> dict[str, JSONValue]:
    """The MAPSSWE block (x = reference arm, y = challenger), or null with a reason."""
    if clusters is not None:
        return {
            "p_value": None,
            "null_reason": "repeats of a clip are not independent sentences; MAPSSWE "
            "takes one hypothesis per utterance",
        }
    if segments is None or segments.n_rows != n_rows:
        return {"p_value": None, "null_reason": "no alignments given"}
    result = mapsswe_from_columns(segments.reference_words, segments.errors_x, segments.errors_y)
    return {
        **result.to_dict(),
        "alignment": "earmark (fewest edits; sc_stats uses sclite's weighted alignment)"
        if alignment == "earmark"
        else "sclite (sub 4, ins/del 3, as sc_stats reads it from sclite -o sgml)",
        "sign": "mean_difference = reference arm errors - challenger errors per segment",
    }


#: (raw p field, its Holm-adjusted field), Wilcoxon first: its family size is recorded.
_HOLM = (
    ("wilcoxon_p", "p_holm"),
    ("sign_test_p", "sign_test_p_holm"),
    ("mcnemar_p", "mcnemar_p_holm"),
    ("mapsswe_p", "mapsswe_p_holm"),
)


def apply_holm(pairs: Sequence[PairedDifference]) -> list[PairedDifference]:
    """The pairs with `p_holm` (Wilcoxon), `sign_test_p_holm`, `mcnemar_p_holm` and
    `mapsswe_p_holm` filled within each family (each test adjusted on its own).

    A family is one (language scope, metric, view): the challengers compared with the
    reference on the same figure. Holm is applied only when a family has more than one
    challenger (more than two arms); otherwise the adjusted p equals the raw p.
    """
    families: dict[tuple[str | None, str, str | None], list[int]] = {}
    for i, pair in enumerate(pairs):
        families.setdefault((pair.language, pair.metric, pair.view), []).append(i)
    adjusted: list[dict[str, float]] = [{} for _ in pairs]
    family_size = [0] * len(pairs)
    for members in families.values():
        for key, target in _HOLM:
            raw = {i: getattr(pairs[i], key) for i in members}
            tested = [i for i in members if raw[i] is not None]
            if key == "wilcoxon_p":
                for i in members:
                    family_size[i] = len(tested)
            values = [raw[i] for i in tested]
            if len(tested) > 1:
                values = holm_adjust(values)
            for i, value in zip(tested, values, strict=True):
                adjusted[i][target] = value
    return [
        replace(
            pair,
            p_holm=adjusted[i].get("p_holm"),
            holm_family_size=family_size[i],
            sign_test_p_holm=adjusted[i].get("sign_test_p_holm"),
            mcnemar_p_holm=adjusted[i].get("mcnemar_p_holm"),
            mapsswe_p_holm=adjusted[i].get("mapsswe_p_holm"),
            key_order=_layout(pair),
        )
        for i, pair in enumerate(pairs)
    ]
