"""The promotion rule carries one `BootstrapSettings`, spelled as three flat keys outside.

The TOML file, the decision record's `rules` and decision.md keep `resamples`, `seed` and
`level` as top-level keys in their old place, so records written before and after compare
byte for byte but for the `generator` that follows them since issue 25 (the decision
golden test pins the whole record).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from earmark.decisions.thresholds import DecisionRules
from earmark.errors import EarmarkError
from earmark.stats.settings import DEFAULT_SEED, BootstrapSettings

#: The record's `rules` keys, in the order `asdict` gave them when the three were fields,
#: and the paired bootstrap's generator after them (named since issue 25; a record
#: without it was drawn with numpy-pcg64).
RECORD_KEYS = [
    "min_relative_error_reduction",
    "min_latency_reduction",
    "min_core_cost_reduction",
    "non_inferiority_margin",
    "metric",
    "latency_statistic",
    "require_significant_improvement",
    "resamples",
    "seed",
    "level",
    "generator",
    "max_peak_rss_bytes",
    "max_real_time_factor",
    "max_latency_seconds",
    "min_coverage",
    "allow_setting_differences",
]


def test_defaults_are_the_one_default_bootstrap() -> None:
    rules = DecisionRules()
    assert rules.bootstrap == BootstrapSettings(10_000, DEFAULT_SEED, 0.95)
    assert list(rules.applied().to_dict()) == RECORD_KEYS
    assert rules.applied().to_dict()["resamples"] == 10_000
    assert rules.applied().to_dict()["seed"] == DEFAULT_SEED
    assert rules.applied().to_dict()["level"] == 0.95
    assert rules.applied().to_dict()["generator"] == "numpy-pcg64-poisson"


def test_toml_keys_fill_the_bootstrap(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text("[decision]\nresamples = 500\nlevel = 0.9\nmin_coverage = 0.5\n", "utf-8")
    rules = DecisionRules.from_toml(path)
    assert rules.bootstrap == BootstrapSettings(resamples=500, seed=DEFAULT_SEED, level=0.9)
    assert rules.min_coverage == 0.5
    flat = rules.applied().to_dict()
    assert (flat["resamples"], flat["seed"], flat["level"]) == (500, DEFAULT_SEED, 0.9)


def test_toml_names_the_flat_keys_and_refuses_bootstrap_as_a_table(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text("[bootstrap]\nresamples = 5\n", "utf-8")
    with pytest.raises(EarmarkError) as caught:
        DecisionRules.from_toml(path)
    assert caught.value.field == "bootstrap"
    hint = caught.value.hint or ""
    assert hint == "known: " + ", ".join(sorted(RECORD_KEYS))
