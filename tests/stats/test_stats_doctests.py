"""The examples in the stats docstrings are exact assertions: run them."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "earmark.stats.bootstrap",
    "earmark.stats.delta_method",
    "earmark.stats.paired_tests",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    failures, tried = doctest.testmod(importlib.import_module(name))
    assert tried > 0 and failures == 0


def test_statistic_must_be_vectorised() -> None:
    from earmark.errors import EarmarkError
    from earmark.stats.bootstrap import bootstrap_statistic

    with pytest.raises(EarmarkError) as caught:
        bootstrap_statistic(([1, 2],), lambda total: 1.0, resamples=10)
    assert caught.value.field == "statistic"
