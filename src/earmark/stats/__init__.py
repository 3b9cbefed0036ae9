"""Statistics over error counts: clip bootstrap CIs, paired comparisons, paired tests.

Pure numpy: no I/O, no global state. Every bootstrap recomputes the corpus-level (micro)
statistic from resampled *counts*; see `earmark.stats.resampling` for the exact algorithm.

The names below are imported on first use (PEP 562), so `earmark.stats.settings` -- which
every command's flags read -- does not import numpy: `earmark --help` and the commands
that never bootstrap start without it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from earmark.stats.settings import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED

if TYPE_CHECKING:
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

#: Where each public name lives.
_HOME = {
    "BootstrapResult": "bootstrap",
    "PairedBootstrapResult": "bootstrap",
    "bootstrap_ci": "bootstrap",
    "bootstrap_cis": "bootstrap",
    "bootstrap_ratio": "bootstrap",
    "bootstrap_statistic": "bootstrap",
    "bootstrap_statistics": "bootstrap",
    "paired_bootstrap": "bootstrap",
    "ratio_of_sums": "bootstrap",
    "utterance_rates": "bootstrap",
    "delta_method_se": "delta_method",
    "SignTestResult": "paired_tests",
    "WilcoxonResult": "paired_tests",
    "holm_adjust": "paired_tests",
    "sign_test": "paired_tests",
    "wilcoxon_signed_rank": "paired_tests",
}


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'earmark.stats' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"earmark.stats.{home}"), name)
    globals()[name] = value
    return value


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
