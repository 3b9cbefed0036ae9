"""Paired statistics of a challenger arm against the reference arm on the same utterances.

- The difference of corpus rates (challenger - reference) with a paired clip bootstrap
  (`stats.paired_bootstrap`): both arms are scored on the same resampled clips, and the
  resampling unit is the utterance id, so repeats of a clip stay together.
- A sign test and a Wilcoxon signed-rank test on per-clip error counts (errors summed
  over a clip's repeats first: repeats of one clip are not independent observations).
- Holm's adjustment across the challengers of one family (same scope, metric and view)
  when more than one challenger is compared; with one challenger it is the identity.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from earmark.compare.counting import BootstrapSettings, IntArray
from earmark.stats import (
    holm_adjust,
    paired_bootstrap,
    sign_test,
    utterance_rates,
    wilcoxon_signed_rank,
)


def _rate(errors: IntArray, ref_units: IntArray, aggregate: str) -> float | None:
    if aggregate == "macro":
        return float(utterance_rates(errors, ref_units).mean()) if errors.size else None
    total = int(ref_units.sum())
    return int(errors.sum()) / total if total else None


def paired_comparison(
    reference_counts: IntArray,
    challenger_counts: IntArray,
    clusters: NDArray[np.int64] | None,
    settings: BootstrapSettings,
) -> dict[str, Any]:
    """Difference, CI, win share and paired tests for one metric on aligned rows.

    Row i of both count arrays is the same utterance scored against the same normalised
    human reference, so both share N_ref per row (checked: a mismatch is a bug upstream).
    """
    errors_a = reference_counts[:, 0] + reference_counts[:, 1] + reference_counts[:, 2]
    errors_b = challenger_counts[:, 0] + challenger_counts[:, 1] + challenger_counts[:, 2]
    ref_units = reference_counts[:, 0] + reference_counts[:, 1] + reference_counts[:, 3]
    ref_units_b = challenger_counts[:, 0] + challenger_counts[:, 1] + challenger_counts[:, 3]
    if not np.array_equal(ref_units, ref_units_b):
        raise AssertionError("paired rows must share their reference units")
    out: dict[str, Any] = {
        "reference_value": None,
        "challenger_value": None,
        "difference": None,
        "ci95": None,
        "share_challenger_better": None,
        "share_tied": None,
        "sign_test_p": None,
        "wilcoxon_p": None,
        "n": int(errors_a.size),
    }
    if errors_a.size == 0:
        out["null_reason"] = "no shared rows"
        return out
    a = _rate(errors_a, ref_units, settings.aggregate)
    b = _rate(errors_b, ref_units, settings.aggregate)
    if a is None or b is None:
        out["null_reason"] = "no reference units (every reference is empty)"
        return out
    out.update(reference_value=a, challenger_value=b, difference=b - a)
    if settings.resamples > 0:
        boot = paired_bootstrap(
            errors_a,
            errors_b,
            ref_units,
            clusters=clusters,
            resamples=settings.resamples,
            seed=settings.seed,
            level=settings.level,
            aggregate="macro" if settings.aggregate == "macro" else "micro",
        )
        if boot.low is not None and boot.high is not None:
            out["ci95"] = [float(boot.low), float(boot.high)]
        out["share_challenger_better"] = boot.share_b_better
        out["share_tied"] = boot.share_tied
    if clusters is None:  # every row its own clip
        per_clip_a, per_clip_b = errors_a, errors_b
    else:
        _, compact = np.unique(clusters, return_inverse=True)
        compact = compact.reshape(-1)
        per_clip_a = np.bincount(compact, weights=errors_a)
        per_clip_b = np.bincount(compact, weights=errors_b)
    sign = sign_test(per_clip_a, per_clip_b)
    wilcoxon = wilcoxon_signed_rank(per_clip_a, per_clip_b)
    out["sign_test_p"] = sign.p_value
    out["wilcoxon_p"] = wilcoxon.p_value
    out["tests"] = {
        "unit": "clip (errors summed over repeats)",
        "n_clips": int(per_clip_a.size),
        "challenger_fewer_errors": sign.n_positive,
        "challenger_more_errors": sign.n_negative,
        "tied": sign.n_zero,
        "wilcoxon_method": wilcoxon.method,
    }
    return out


def apply_holm(pairs: list[dict[str, Any]]) -> None:
    """Fill `p_holm` (Wilcoxon) and `sign_test_p_holm` within each family, in place.

    A family is one (language scope, metric, view): the challengers compared with the
    reference on the same figure. Holm is applied only when a family has more than one
    challenger (more than two arms); otherwise the adjusted p equals the raw p.
    """
    families: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for pair in pairs:
        families.setdefault((pair.get("language"), pair["metric"], pair["view"]), []).append(pair)
    for members in families.values():
        for key, target in (("wilcoxon_p", "p_holm"), ("sign_test_p", "sign_test_p_holm")):
            tested = [m for m in members if m.get(key) is not None]
            for m in members:
                m[target] = None
                m["holm_family_size"] = len(tested)
            if len(tested) > 1:
                adjusted = holm_adjust([m[key] for m in tested])
                for m, value in zip(tested, adjusted, strict=True):
                    m[target] = value
            else:
                for m in tested:
                    m[target] = m[key]
