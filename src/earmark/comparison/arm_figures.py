"""One arm's figures in a comparison: agreement with the reference arm (exact match), its
rates against the reference arm and against the humans, overall, per language and slice,
and its harness-artefact diagnostics."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from earmark.comparison.churn import exact_match, exact_matches
from earmark.comparison.diagnostics import ArmRows, diagnose_arm
from earmark.comparison.inputs import CompareInputs
from earmark.results.codec import JSONObject
from earmark.results.comparison import CompareMetric, ComparisonArm, ComparisonScope
from earmark.scoring.row_counts import UNIT_FOR_METRIC, RowCounts, scope_metrics
from earmark.stats.protocol_bootstrap import python_random_ci

IntArray = NDArray[np.int64]


def arm_figures(inputs: CompareInputs, name: str) -> tuple[ComparisonArm, JSONObject]:
    """One arm's `arms.<name>` block of compare.json and its diagnostics."""
    rows, arm = inputs.columns, inputs.columns.arms[name]
    matches = exact_matches(arm.hypotheses, rows.ref_hyps)

    def scope(positions: IntArray) -> ComparisonScope:
        return ComparisonScope(
            exact_match_vs_reference=exact_match(
                matches[positions], rows.sub_clusters(positions), rows.options.bootstrap
            ),
            vs_reference_arm=_metrics(inputs, inputs.vs_ref[name], positions),
            vs_human=_metrics(inputs, inputs.vs_human[name], positions),
            n=int(positions.size),
        )

    overall = scope(rows.everything())
    block = ComparisonArm(
        source=arm.source,
        exact_match_vs_reference=overall.exact_match_vs_reference,
        vs_reference_arm=overall.vs_reference_arm,
        vs_human=overall.vs_human,
        by_language={k: scope(v) for k, v in rows.by_lang.items()},
        by_slice={k: scope(v) for k, v in rows.by_slice.items()},
        differs_from_reference=tuple(rows.labels[p] for p in np.flatnonzero(~matches).tolist()),
    )
    diagnostics = diagnose_arm(
        ArmRows(
            ids=rows.labels,
            references=rows.human,
            hypotheses=arm.hypotheses,
            languages=rows.languages,
            audio_seconds=arm.audio_seconds,
            language_mismatch=arm.language_mismatch,
            vs_human=inputs.vs_human[name],
        ),
        rows.ref_scripts,
        inputs.diagnostics_memo,
    )
    return block, diagnostics


def _metrics(
    inputs: CompareInputs, rows: RowCounts, positions: IntArray
) -> Mapping[str, CompareMetric]:
    """The scope's rates, as results.json's metric objects (`scope_metrics`); under a
    python-random protocol with their intervals drawn by the protocol's generator."""
    options = inputs.options
    clusters = inputs.columns.clusters
    figures = scope_metrics(rows, positions, clusters, options.bootstrap, options.aggregate)
    metrics = {k: CompareMetric.from_dict(v, copy=False) for k, v in figures.items()}
    if not options.python_random or options.bootstrap.resamples == 0:
        return metrics
    return {
        k: m if m.value is None else replace(m, ci=_protocol_ci(inputs, rows, positions, k))
        for k, m in metrics.items()
    }


def _protocol_ci(
    inputs: CompareInputs, rows: RowCounts, positions: IntArray, metric: str
) -> tuple[float, float] | None:
    """The protocol's python-random interval (`earmark.stats.protocol_bootstrap`) of one
    rate over `positions`; paired and exact-match intervals stay earmark's (PCG64)."""
    p = inputs.options.bootstrap
    unit = UNIT_FOR_METRIC[metric]
    kept = positions[rows.available(unit=unit)[positions]]
    counts = rows.counts(unit)[kept]
    clusters = inputs.columns.sub_clusters(kept)
    ci = python_random_ci(
        (counts[:, 0] + counts[:, 1] + counts[:, 2]).tolist(),
        (counts[:, 0] + counts[:, 1] + counts[:, 3]).tolist(),
        clusters=None if clusters is None else clusters.tolist(),
        resamples=p.resamples,
        seed=p.seed,
        level=p.level,
    )
    return None if ci is None else (ci.low, ci.high)
