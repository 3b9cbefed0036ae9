"""Statistics over error counts: clip bootstrap CIs, paired comparisons, paired tests.

Pure numpy: no I/O, no global state. Every bootstrap recomputes the corpus-level (micro)
statistic from resampled *counts*; see `earmark.stats.resampling` for the exact algorithm.
"""

from __future__ import annotations

from earmark.stats.bootstrap import (
    BootstrapResult,
    PairedBootstrapResult,
    bootstrap_ci,
    bootstrap_cis,
    bootstrap_ratio,
    bootstrap_statistic,
    bootstrap_statistics,
    paired_bootstrap,
    ratio_of_sums,
    utterance_rates,
)
from earmark.stats.delta_method import delta_method_se
from earmark.stats.paired_tests import (
    SignTestResult,
    WilcoxonResult,
    holm_adjust,
    sign_test,
    wilcoxon_signed_rank,
)
from earmark.stats.settings import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "BootstrapResult",
    "PairedBootstrapResult",
    "SignTestResult",
    "WilcoxonResult",
    "bootstrap_ci",
    "bootstrap_cis",
    "bootstrap_ratio",
    "bootstrap_statistic",
    "bootstrap_statistics",
    "delta_method_se",
    "holm_adjust",
    "paired_bootstrap",
    "ratio_of_sums",
    "sign_test",
    "utterance_rates",
    "wilcoxon_signed_rank",
]
