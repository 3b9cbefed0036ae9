"""Cross-corpus gap: the difference, its independent bootstrap CI, and refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compare_fixtures import write_rows

from earmark.cli import main
from earmark.file_comparison import gap


def _corpus(tmp_path: Path, name: str, wrong_every: int, language: str = "ga") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    rows = [
        {
            "arm": "sys",
            "id": f"{name}{i}",
            "reference": "a b c d",
            "hypothesis": "a b c x" if i % wrong_every == 0 else "a b c d",
            "language": language,
        }
        for i in range(40)
    ]
    rows += [dict(r, arm="other") for r in rows]
    write_rows(folder / "predictions.jsonl", rows)
    return folder


def test_gap_hand_computed(tmp_path: Path) -> None:
    cv = _corpus(tmp_path, "cv", 4)  # 10 of 40 rows have 1 error in 4 words: 10/160
    fleurs = _corpus(tmp_path, "fleurs", 2)  # 20 of 40: 20/160
    out = tmp_path / "out"
    result = gap(
        str(cv), str(fleurs), normalizer="auto", arm="sys", resamples=500, seed=7, out_dir=out
    )
    g = result["gap"]["wer"]
    assert (g["a"], g["b"]) == (pytest.approx(10 / 160), pytest.approx(20 / 160))
    assert g["value"] == pytest.approx(10 / 160)
    lo, hi = g["ci95"]
    assert lo < g["value"] < hi
    assert result["bootstrap"]["seed"] == 7 and result["bootstrap"]["seed_b"] == 8
    assert json.loads((out / "gap.json").read_text("utf-8"))["gap"]["wer"]["value"] == g["value"]
    # Same numbers from the CLI.
    rc = main(
        [
            "compare",
            "--gap",
            str(cv),
            str(fleurs),
            "--arm",
            "sys",
            "--normalizer",
            "auto",
            "--bootstrap",
            "500",
            "--seed",
            "7",
            "--out",
            str(tmp_path / "cli"),
            "--quiet",
        ]
    )
    assert rc == 0
    cli = json.loads((tmp_path / "cli" / "gap.json").read_text("utf-8"))
    assert cli["gap"] == json.loads(json.dumps(result["gap"]))


def test_gap_needs_one_arm_and_one_normaliser(tmp_path: Path) -> None:
    cv = _corpus(tmp_path, "cv", 4)
    en = _corpus(tmp_path, "en", 4, language="en")
    rc = main(
        ["compare", "--gap", str(cv), str(en), "--normalizer", "auto", "--out", str(tmp_path / "o")]
    )
    assert rc == 2  # two arms in each run and no --arm
    result = gap(str(cv), str(en), arm="sys", normalizer="auto", resamples=50)
    assert result["gap"]["wer"]["value"] is None
    assert "different normalisers" in result["gap"]["wer"]["null_reason"]
