"""Churn: how often an arm's output is byte-identical to the reference arm's (seed 002).

A quantised model whose WER is flat can still change 8% of transcripts; the exact-match
rate is the number that says whether a change is free. Raw strings are compared, before
any normalisation, and a missing hypothesis never equals anything (not even another
missing one), so a crash cannot pass for agreement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from earmark.stats import bootstrap_ratio
from earmark.stats.settings import BootstrapSettings


def exact_matches(
    hypotheses: Sequence[str | None], reference_hypotheses: Sequence[str | None]
) -> NDArray[np.bool_]:
    """Per row: both present and byte-identical (Python `str` equality is code-point
    equality, which for UTF-8 text is byte equality)."""
    return np.fromiter(
        (
            h is not None and r is not None and h == r
            for h, r in zip(hypotheses, reference_hypotheses, strict=True)
        ),
        dtype=bool,
        count=len(hypotheses),
    )


def exact_match_block(
    matches: NDArray[np.bool_],
    clusters: NDArray[np.int64] | None,
    bootstrap: BootstrapSettings,
) -> dict[str, Any]:
    """{"value", "ci95", "matches", "n"} with a clip-bootstrap CI of k/n."""
    n = int(matches.size)
    k = int(matches.sum())
    if n == 0:
        return {"value": None, "ci95": None, "matches": 0, "n": 0, "null_reason": "no rows"}
    out: dict[str, Any] = {"value": k / n, "ci95": None, "matches": k, "n": n}
    if bootstrap.resamples > 0:
        ci = bootstrap_ratio(
            matches.astype(np.int64),
            np.ones(n, dtype=np.int64),
            clusters=clusters,
            resamples=bootstrap.resamples,
            seed=bootstrap.seed,
            level=bootstrap.level,
        )
        if ci.low is not None and ci.high is not None:
            out["ci95"] = [float(ci.low), float(ci.high)]
    return out
