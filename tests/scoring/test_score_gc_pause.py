"""`score_predictions` pauses the cyclic collector for the whole run and always resumes it."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from earmark.errors import EarmarkError
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions


def test_collector_resumed_and_rows_counted(tmp_path: Path) -> None:
    src = tmp_path / "p.jsonl"
    src.write_text(
        '{"id": "u1", "reference": "a b c", "hypothesis": "a x c"}\n'
        '{"id": "u2", "reference": "d e", "hypothesis": "d e f"}\n',
        encoding="utf-8",
    )
    assert gc.isenabled()
    score_predictions(
        ScoreInputs(src), ScoreFigures(normalizer="none", resamples=0), out_dir=tmp_path / "out"
    ).to_dict()
    assert gc.isenabled()
    rows = [
        json.loads(line)
        for line in (tmp_path / "out" / "predictions.jsonl").read_text("utf-8").splitlines()
    ]
    words = [r["views"]["raw"]["wer"] for r in rows]
    # u1: one substitution, two hits; u2: one insertion, two hits (hand-aligned).
    assert [(w["substitutions"], w["deletions"], w["insertions"], w["hits"]) for w in words] == [
        (1, 0, 0, 2),
        (0, 0, 1, 2),
    ]


def test_collector_resumed_after_an_error(tmp_path: Path) -> None:
    src = tmp_path / "bad.jsonl"
    src.write_text('{"id": "u1", "reference": "a"\n', encoding="utf-8")
    with pytest.raises(EarmarkError):
        score_predictions(
            ScoreInputs(src), ScoreFigures(normalizer="none", resamples=0), out_dir=tmp_path / "out"
        ).to_dict()
    assert gc.isenabled()


def test_collector_left_off_when_the_caller_turned_it_off(tmp_path: Path) -> None:
    src = tmp_path / "p.jsonl"
    src.write_text('{"id": "u1", "reference": "a", "hypothesis": "a"}\n', encoding="utf-8")
    gc.disable()
    try:
        score_predictions(ScoreInputs(src), ScoreFigures(normalizer="none", resamples=0)).to_dict()
        assert not gc.isenabled()
    finally:
        gc.enable()
