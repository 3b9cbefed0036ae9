"""The results-schema metric object, computed from per-row counts.

One function shared by `earmark score`, `earmark run` and `earmark compare`, so a figure
means the same thing (same aggregation, same null rules, same bootstrap) wherever it
appears.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from earmark.metrics.counts import ErrorCounts
from earmark.stats import bootstrap_ci


def metric_object(
    counts: np.ndarray,
    clusters: ArrayLike | None,
    *,
    aggregate: str,
    resamples: int,
    seed: int,
    level: float,
    null_reasons: Counter[str] | None = None,
    n_rows: int | None = None,
) -> dict[str, Any]:
    """Value, CI, S/D/I/hits and unit totals of the rows in `counts` (n x 4: S, D, I, hits).

    `counts` holds only the rows where the view is available; `n_rows` counts all rows of
    the scope, so `n_unavailable` says how many were left out and why. A value that cannot
    be computed is None with a `null_reason`.
    """
    null_reasons = null_reasons or Counter()
    n_rows = len(counts) if n_rows is None else n_rows
    s, d, i, h = (int(x) for x in counts.sum(axis=0)) if len(counts) else (0, 0, 0, 0)
    totals = ErrorCounts(s, d, i, h)
    out: dict[str, Any] = {
        "value": None,
        "ci95": None,
        **totals.as_dict(),
        "aggregate": aggregate,
        "n_scored": int(len(counts)),
        "n_unavailable": int(n_rows - len(counts)),
    }
    if null_reasons:
        out["unavailable_reasons"] = dict(sorted(null_reasons.items()))
    out.update(median_utterance(counts))
    if len(counts) == 0:
        reasons = ", ".join(sorted(null_reasons))
        out["null_reason"] = f"no row has this view: {reasons}" if null_reasons else "no rows"
        return out
    errors = counts[:, 0] + counts[:, 1] + counts[:, 2]
    ref_units = counts[:, 0] + counts[:, 1] + counts[:, 3]
    hyp_units = counts[:, 0] + counts[:, 2] + counts[:, 3]
    if aggregate == "micro":
        value = totals.error_rate()
        if value is None:
            out["null_reason"] = "no reference units (every reference is empty)"
            return out
    else:
        rates = np.where(
            ref_units > 0,
            errors / np.maximum(ref_units, 1),
            np.where(hyp_units > 0, 1.0, 0.0),
        )
        value = float(rates.mean())
    out["value"] = value
    out["mer"] = totals.match_error_rate()
    out["wil"] = totals.word_information_lost()
    out["ser"] = float(np.mean(errors > 0))
    if resamples > 0:
        ci = bootstrap_ci(
            errors,
            ref_units,
            clusters=clusters,
            resamples=resamples,
            seed=seed,
            level=level,
            aggregate="macro" if aggregate == "macro" else "micro",
        )
        if ci.low is not None and ci.high is not None:
            out["ci95"] = [float(ci.low), float(ci.high)]
    return out


def median_utterance(counts: np.ndarray) -> dict[str, Any]:
    """The median per-utterance rate beside the corpus rate: a few long, badly decoded
    clips move the corpus rate, the median shows the typical clip. Only rows with
    reference units count (a rate over an empty reference is undefined)."""
    if len(counts) == 0:
        return {"median_per_utterance": None, "median_per_utterance_null_reason": "no rows"}
    ref_units = counts[:, 0] + counts[:, 1] + counts[:, 3]
    keep = ref_units > 0
    if not keep.any():
        return {
            "median_per_utterance": None,
            "median_per_utterance_null_reason": "no row has reference units",
        }
    errors = counts[keep, 0] + counts[keep, 1] + counts[keep, 2]
    return {
        "median_per_utterance": float(np.median(errors / ref_units[keep])),
        "median_per_utterance_n": int(keep.sum()),
    }
