"""The examples in the compare modules' docstrings are exact assertions."""

from __future__ import annotations

import doctest

import earmark.comparison.diagnostics as diagnostics


def test_diagnostics_doctests() -> None:
    result = doctest.testmod(diagnostics)
    assert result.attempted >= 2 and result.failed == 0
