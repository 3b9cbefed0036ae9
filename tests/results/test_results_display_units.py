"""The one spelling of a unit figure (results.md, the HTML page, the leaderboard, decide,
contamination): hand-computed cases, and `—` for anything not measured."""

from __future__ import annotations

import pytest

from earmark.results.display import fmt_decimal, fmt_mib, fmt_ms, fmt_pct


@pytest.mark.parametrize(
    ("value", "text"), [(None, "—"), (0.0, "0.00%"), (0.125, "12.50%"), (1.5, "150.00%")]
)
def test_fmt_pct(value: float | None, text: str) -> None:
    assert fmt_pct(value) == text


@pytest.mark.parametrize(
    ("value", "text"), [(None, "—"), (0.0, "0.000"), (0.1254, "0.125"), (12.0, "12.000")]
)
def test_fmt_decimal(value: float | None, text: str) -> None:
    assert fmt_decimal(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(None, "—"), (0, "0 MiB"), (2**20, "1 MiB"), (512 * 2**20, "512 MiB"), (1.5 * 2**20, "2 MiB")],
)
def test_fmt_mib(value: float | None, text: str) -> None:
    assert fmt_mib(value) == text


@pytest.mark.parametrize(("value", "text"), [(None, "—"), (0.12, "120 ms"), (1.0, "1000 ms")])
def test_fmt_ms(value: float | None, text: str) -> None:
    assert fmt_ms(value) == text
