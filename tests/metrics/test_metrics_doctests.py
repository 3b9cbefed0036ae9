"""The examples in the metrics docstrings are assertions too."""

from __future__ import annotations

import doctest

import pytest

from earmark.metrics import alignment, analysis, rates


@pytest.mark.parametrize("module", [alignment, analysis, rates])
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module, raise_on_error=False)  # type: ignore[arg-type]
    assert result.attempted > 0
    assert result.failed == 0
