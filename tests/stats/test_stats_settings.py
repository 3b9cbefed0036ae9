"""One bootstrap settings value and one default seed (issue 13)."""

from __future__ import annotations

import doctest
import inspect

import pytest

import earmark.stats.settings as settings
from earmark.comparison.gap import corpus_gap
from earmark.comparison.options import CompareOptions
from earmark.file_comparison import compare
from earmark.scoring.protocols import resolve
from earmark.stats import bootstrap
from earmark.stats.settings import DEFAULT_SEED, BootstrapSettings


def test_doctests() -> None:
    failures, tried = doctest.testmod(settings)
    assert tried and not failures


def test_defaults_and_record_order() -> None:
    assert BootstrapSettings() == BootstrapSettings(10_000, 20260926, 0.95)
    assert list(BootstrapSettings(7, 1, 0.9).to_dict().items()) == [
        ("resamples", 7),
        ("seed", 1),
        ("level", 0.9),
        ("generator", "numpy-pcg64-poisson"),
    ]
    with pytest.raises(AttributeError):
        BootstrapSettings().seed = 1  # type: ignore[misc]


def test_one_default_seed() -> None:
    """The stats functions' default and compare's defaults are the one constant."""
    assert bootstrap.DEFAULT_SEED == DEFAULT_SEED
    assert CompareOptions(normalizer="none").bootstrap.seed == DEFAULT_SEED
    assert inspect.signature(corpus_gap).parameters["seed"].default == DEFAULT_SEED
    # `compare` leaves the default to `scoring.protocols.resolve` (None: not given).
    assert inspect.signature(compare).parameters["seed"].default is None
    assert resolve(None, normalizer="none").seed == DEFAULT_SEED


def test_compare_options_take_the_settings_whole() -> None:
    options = CompareOptions(normalizer="none", bootstrap=BootstrapSettings(200, 5, 0.9))
    assert options.bootstrap == BootstrapSettings(200, 5, 0.9)
