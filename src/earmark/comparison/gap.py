"""Cross-corpus generalisation gap: the same system on two corpora (seed 003, BlasBench §5.2).

A model fine-tuned on Common Voice lost 33-43 WER points on FLEURS; single-corpus numbers
hide that. The gap is `rate(corpus B) - rate(corpus A)` for one arm. The two corpora hold
different utterances, so nothing is paired: the CI comes from an *independent* bootstrap
that resamples each corpus's clips separately (corpus A with the recorded seed, corpus B
with seed + 1) and takes percentiles of the replicate differences.

Both corpora must be scored by one normaliser on their primary view (a difference of
figures from two normalisers measures the normalisers); otherwise the gap is null with
the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone

import numpy as np
from numpy.typing import NDArray

from earmark import __version__
from earmark.comparison.loading import ArmData
from earmark.comparison.options import policy_record
from earmark.comparison.pairing import cluster_codes
from earmark.results.codec import JSONValue
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.row_counts import (
    METRIC_FOR_UNIT,
    PairTable,
    RowCounts,
    count_rows,
    scope_metrics,
)
from earmark.stats.bootstrap import replicate_totals, utterance_rates
from earmark.stats.resampling import cluster_index, cluster_totals
from earmark.stats.settings import DEFAULT_GENERATOR, DEFAULT_SEED, BootstrapSettings

SCHEMA_ID = "earmark.comparison.gap/1"


def _replicate_rates(
    counts: NDArray[np.int64],
    clusters: NDArray[np.int64],
    aggregate: str,
    resamples: int,
    seed: int,
    generator: str,
) -> NDArray[np.float64]:
    errors = (counts[:, 0] + counts[:, 1] + counts[:, 2]).astype(np.float64)
    ref = (counts[:, 0] + counts[:, 1] + counts[:, 3]).astype(np.float64)
    if aggregate == "macro":
        columns = np.stack([utterance_rates(errors, ref), np.ones_like(ref)], axis=1)
    else:
        columns = np.stack([errors, ref], axis=1)
    index, n_clusters = cluster_index(clusters, len(columns))
    per_cluster = cluster_totals(columns, index, n_clusters)
    totals = replicate_totals(per_cluster, resamples, seed, generator=generator)
    with np.errstate(divide="ignore", invalid="ignore"):
        rates: NDArray[np.float64] = np.where(totals[:, 1] > 0, totals[:, 0] / totals[:, 1], np.nan)
    return rates


def _gap_interval(
    sides: list[tuple[RowCounts, NDArray[np.int64]]],
    unit: str,
    aggregate: str,
    bootstrap: BootstrapSettings,
) -> tuple[JSONValue, int]:
    """The percentile interval of B - A over independent replicates (corpus A with the
    seed, B with seed + 1), and how many replicates were dropped (a rate with no units)."""
    reps = []
    for offset, (rows, clusters) in enumerate(sides):
        ok = rows.available()
        reps.append(
            _replicate_rates(
                rows.counts(unit)[ok],
                clusters[ok],
                aggregate,
                bootstrap.resamples,
                bootstrap.seed + offset,
                bootstrap.generator,
            )
        )
    diff = reps[1] - reps[0]
    kept = diff[np.isfinite(diff)]
    ci: JSONValue = None
    if kept.size:
        tail = (1.0 - bootstrap.level) / 2.0
        lo, hi = np.quantile(kept, [tail, 1.0 - tail])
        ci = [float(lo), float(hi)]
    return ci, int(diff.size - kept.size)


def corpus_gap(
    corpus_a: ArmData,
    corpus_b: ArmData,
    *,
    normalizer: str,
    aggregate: str = "micro",
    resamples: int = 10_000,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
    generator: str = DEFAULT_GENERATOR,
) -> dict[str, JSONValue]:
    """gap.json's content: each corpus's figures and the B - A difference with its CI,
    every interval drawn by `generator` (recorded; `earmark.stats.settings.GENERATORS`)."""
    policy = NormalizerPolicy.parse(normalizer)
    bootstrap = BootstrapSettings(resamples, seed, level, generator)
    table = PairTable(policy)
    sides: dict[str, dict[str, JSONValue]] = {}
    counted = {}
    names: dict[str, list[str]] = {}
    figures: dict[str, dict[str, JSONValue]] = {}
    for label, arm in (("a", corpus_a), ("b", corpus_b)):
        rows = count_rows(table, arm.references, arm.hypotheses, arm.languages)
        clusters = cluster_codes(arm.clusters)
        everything = np.arange(len(arm), dtype=np.int64)
        counted[label] = (rows, clusters)
        names[label] = sorted(set(rows.normalizers))
        figures[label] = scope_metrics(rows, everything, clusters, bootstrap, aggregate)
        sides[label] = {
            "source": arm.source,
            "arm": arm.name,
            "n": len(arm),
            "normalizers": list(names[label]),
            **figures[label],
        }
    names_a, names_b = names["a"], names["b"]
    gaps: dict[str, JSONValue] = {}
    for metric, unit in (("wer", "word"), ("cer", "char")):
        value_a = _value(figures["a"][metric])
        value_b = _value(figures["b"][metric])
        entry: dict[str, JSONValue] = {"value": None, "ci95": None, "a": value_a, "b": value_b}
        if len(names_a) != 1 or names_a != names_b:
            entry["null_reason"] = (
                f"the corpora are scored with different normalisers ({', '.join(names_a)} vs "
                f"{', '.join(names_b)}); a gap would measure the normalisers"
            )
        elif not isinstance(value_a, int | float) or not isinstance(value_b, int | float):
            entry["null_reason"] = _value(figures["a"][metric], "null_reason") or _value(
                figures["b"][metric], "null_reason"
            )
        else:
            entry["value"] = value_b - value_a
            if resamples > 0:
                entry["ci95"], entry["dropped_resamples"] = _gap_interval(
                    [counted["a"], counted["b"]], unit, aggregate, bootstrap
                )
        entry["metric"] = metric
        gaps[metric] = entry
    units: list[JSONValue] = [
        *sorted({METRIC_FOR_UNIT[u] for n in names_a for u in table.units(n)})
    ]
    return {
        "schema": SCHEMA_ID,
        "earmark_version": __version__,
        "created": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "normalizer_policy": policy_record(policy).to_dict(),
        "aggregate": aggregate,
        "bootstrap": {
            "resamples": resamples,
            "seed": seed,
            "seed_b": seed + 1,
            "level": level,
            "generator": generator,
            "method": "percentile of independent replicate differences",
            "unit": "clip, each corpus resampled separately (nothing is paired)",
        },
        "corpus_a": sides["a"],
        "corpus_b": sides["b"],
        "gap": gaps,
        "metrics": units,
        "definition": "gap = rate(corpus_b) - rate(corpus_a)",
    }


def _object(value: JSONValue) -> dict[str, JSONValue]:
    """A section of gap.json that is an object (an empty one for anything else)."""
    return value if isinstance(value, dict) else {}


def _rate(side: Mapping[str, JSONValue], metric: str) -> str:
    from earmark.results.display import fmt_rate

    return fmt_rate(_object(side.get(metric)))


def render_gap_markdown(result: Mapping[str, JSONValue]) -> str:
    """gap.md: both corpora's figures and the gap with its interval, or null with why."""
    from earmark.markdown_cells import md_code, md_table, md_text

    a, b = _object(result["corpus_a"]), _object(result["corpus_b"])
    boot = _object(result["bootstrap"])
    lines = [
        "# earmark compare --gap",
        "",
        f"Arm **{md_text(a['arm'])}** on corpus A ({md_code(a['source'])}, "
        f"N = {md_text(a['n'])}) and corpus B ({md_code(b['source'])}, N = {md_text(b['n'])}). "
        f"Gap = B − A, {md_text(result['aggregate'])} rates; CI from independent clip "
        f"bootstraps of each corpus (B = {md_text(boot['resamples'])}, seeds "
        f"{md_text(boot['seed'])} / {md_text(boot['seed_b'])}).",
        "",
    ]
    rows = []
    for metric in ("wer", "cer"):
        g = _object(_object(result["gap"]).get(metric))
        value, ci = g.get("value"), g.get("ci95")
        if not isinstance(value, int | float):
            cell = f"null ({g.get('null_reason')})"
        else:
            cell = f"{100 * value:+.2f}"
            if isinstance(ci, list) and all(isinstance(x, int | float) for x in ci):
                low, high = (float(x) for x in ci if isinstance(x, int | float))
                cell += f" [{100 * low:+.2f}, {100 * high:+.2f}]"
        rows.append([metric, _rate(a, metric), _rate(b, metric), cell])
    header = ["metric", "corpus A", "corpus B", "gap (points) [95% CI]"]
    return "\n".join([*lines, md_table(header, rows)]) + "\n"


def _value(metric: JSONValue, key: str = "value") -> JSONValue:
    """A metric object's point value, or another of its keys (None for a null metric)."""
    return metric.get(key) if isinstance(metric, dict) else None
