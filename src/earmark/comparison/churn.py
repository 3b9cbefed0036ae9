"""Churn: how often an arm's output is byte-identical to the reference arm's (seed 002).

A quantised model whose WER is flat can still change 8% of transcripts; the exact-match
rate is the number that says whether a change is free. Raw strings are compared, before
any normalisation, and a missing hypothesis never equals anything (not even another
missing one), so a crash cannot pass for agreement.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from earmark.results.comparison import ExactMatch
from earmark.stats.bootstrap import bootstrap_statistic, ratio_of_sums
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


def exact_match(
    matches: NDArray[np.bool_],
    clusters: NDArray[np.int64] | None,
    bootstrap: BootstrapSettings,
) -> ExactMatch:
    """The share k/n of matching rows with a clip-bootstrap CI (null with no rows)."""
    n = int(matches.size)
    k = int(matches.sum())
    if n == 0:
        return ExactMatch(value=None, ci=None, matches=0, n=0, null_reason="no rows")
    ci: tuple[float, float] | None = None
    if bootstrap.resamples > 0:
        drawn = bootstrap_statistic(
            (matches.astype(np.int64), np.ones(n, dtype=np.int64)),
            ratio_of_sums,
            clusters=clusters,
            resamples=bootstrap.resamples,
            seed=bootstrap.seed,
            level=bootstrap.level,
            generator=bootstrap.generator,
        )
        if drawn.low is not None and drawn.high is not None:
            ci = (float(drawn.low), float(drawn.high))
    return ExactMatch(value=k / n, ci=ci, matches=k, n=n)
