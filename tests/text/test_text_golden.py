"""Every normaliser's output on its golden cases, view by view.

A failure means a frozen normaliser changed behaviour (or an engine upgrade changed it,
e.g. OpenCC for zh-eval-v1): fix the code or release a new versioned name; do not
regenerate the golden file of a released normaliser.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from text_golden_cases import CASES, GOLDEN_DIR, render

from earmark.text import available_normalizers


def _records(name: str) -> list[dict[str, Any]]:
    path = GOLDEN_DIR / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _case(record: dict[str, Any]) -> tuple[str, ...]:
    if "text" in record:
        return (record["note"], record["text"])
    return (record["note"], record["reference"], record["hypothesis"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_file_matches_every_view(name: str) -> None:
    records = _records(name)
    assert [_case(r) for r in records] == CASES[name], "golden file and case list disagree"
    mismatches = [
        (record["note"], record["views"], render(name, _case(record))["views"])
        for record in records
        if render(name, _case(record)) != record
    ]
    assert not mismatches, "\n".join(f"{n}: expected {e}, got {g}" for n, e, g in mismatches)


def test_every_registered_normaliser_has_a_golden_file() -> None:
    assert sorted(CASES) == available_normalizers()
    assert {p.stem for p in Path(GOLDEN_DIR).glob("*.jsonl")} == set(CASES)


@pytest.mark.parametrize("name", ["zh-eval-v1", "ga-v1", "en-v1"])
def test_language_normalisers_have_thirty_cases(name: str) -> None:
    assert len(_records(name)) >= 30
