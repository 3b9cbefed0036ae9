"""Delta-method standard error of a ratio of sums: a near-instant cross-check of the bootstrap.

For R = sum(y) / sum(x) over n independently drawn clusters, linearising R around the
sample totals gives Var(R) ~= sum_i (y_i - R x_i)^2 / (sum_i x_i)^2. This uses the plug-in
variance (divisor n, not n - 1), which is what the nonparametric bootstrap estimates, so the
bootstrap standard deviation should agree with it on a large corpus.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from earmark.stats.resampling import as_count_columns, cluster_index, cluster_totals


def delta_method_se(
    errors: ArrayLike, ref_units: ArrayLike, *, clusters: ArrayLike | None = None
) -> float | None:
    """Standard error of sum(errors) / sum(ref_units); None when sum(ref_units) is 0.

    With `clusters`, rows are first summed per cluster (the independent unit).

    >>> round(delta_method_se([1, 0, 2, 1], [4, 5, 1, 2]), 4)
    0.2003
    """
    rows = as_count_columns([errors, ref_units], ["errors", "ref_units"])
    index, n_clusters = cluster_index(clusters, rows.shape[0])
    per_cluster = cluster_totals(rows, index, n_clusters)
    y, x = per_cluster[:, 0], per_cluster[:, 1]
    x_total = float(x.sum())
    if x_total <= 0:
        return None
    ratio = float(y.sum()) / x_total
    residuals = y - ratio * x
    return math.sqrt(float(np.dot(residuals, residuals))) / x_total
