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
from earmark.comparison.inputs import CompareInputs, take
from earmark.results.codec import JSONObject
from earmark.results.comparison import CompareMetric, ComparisonArm, ComparisonScope
from earmark.scoring.row_counts import UNIT_FOR_METRIC, RowCounts, scope_metrics
from earmark.stats.protocol_bootstrap import python_random_ci

IntArray = NDArray[np.int64]


def arm_figures(inputs: CompareInputs, name: str) -> tuple[ComparisonArm, JSONObject]:
    """One arm's `arms.<name>` block of compare.json and its diagnostics."""
    matches = exact_matches(inputs.hyps[name], inputs.ref_hyps)

    def scope(positions: IntArray) -> ComparisonScope:
        return ComparisonScope(
            exact_match_vs_reference=exact_match(
                matches[positions], inputs.sub_clusters(positions), inputs.options.bootstrap
            ),
            vs_reference_arm=_metrics(inputs, inputs.vs_ref[name], positions),
            vs_human=_metrics(inputs, inputs.vs_human[name], positions),
            n=int(positions.size),
        )

    overall = scope(inputs.everything())
    block = ComparisonArm(
        source=inputs.arms[name].source,
        exact_match_vs_reference=overall.exact_match_vs_reference,
        vs_reference_arm=overall.vs_reference_arm,
        vs_human=overall.vs_human,
        by_language={k: scope(v) for k, v in inputs.by_lang.items()},
        by_slice={k: scope(v) for k, v in inputs.by_slice.items()},
        differs_from_reference=tuple(inputs.labels[p] for p in np.flatnonzero(~matches).tolist()),
    )
    pos = inputs.aligned.positions[name]
    arm = inputs.arms[name]
    diagnostics = diagnose_arm(
        ArmRows(
            ids=inputs.labels,
            references=inputs.human,
            hypotheses=inputs.hyps[name],
            languages=inputs.languages,
            audio_seconds=take(arm.audio_seconds, pos),
            language_mismatch=take(arm.language_mismatch, pos),
            vs_human=inputs.vs_human[name],
        ),
        inputs.ref_scripts,
        inputs.diagnostics_memo,
    )
    return block, diagnostics


def _metrics(
    inputs: CompareInputs, rows: RowCounts, positions: IntArray
) -> Mapping[str, CompareMetric]:
    """The scope's rates, as results.json's metric objects (`scope_metrics`); under a
    python-random protocol with their intervals drawn by the protocol's generator."""
    options = inputs.options
    figures = scope_metrics(rows, positions, inputs.clusters, options.bootstrap, options.aggregate)
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
    clusters = None if inputs.clusters is None else inputs.clusters[kept].tolist()
    ci = python_random_ci(
        (counts[:, 0] + counts[:, 1] + counts[:, 2]).tolist(),
        (counts[:, 0] + counts[:, 1] + counts[:, 3]).tolist(),
        clusters=clusters,
        resamples=p.resamples,
        seed=p.seed,
        level=p.level,
    )
    return None if ci is None else (ci.low, ci.high)
