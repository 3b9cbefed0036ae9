"""`earmark verify`: an untouched run reproduces; any tampering exits 1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from compare_fixtures import write_rows

from earmark.cli import main
from earmark.verification import differences, verify_run

EXAMPLE = Path(__file__).parent / "data" / "example-run"


@pytest.fixture()
def run_dir(tmp_path: Path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(EXAMPLE, target)
    return target


def _rewrite_rows(run: Path, change) -> None:
    path = run / "predictions.jsonl"
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    change(rows)
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows), "utf-8"
    )


def test_untouched_run_verifies(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = verify_run(run_dir)
    statuses = {c.name: c.status for c in report.checks}
    assert report.ok
    assert statuses["arm tiny.en-int8: figures"] == "ok"
    assert statuses["arm tiny.en-int8: per-row counts"] == "ok"
    assert statuses["plan sha256"] == "ok"
    assert statuses["scorer probes"] == "ok"
    # The manifest and model live in installed packages here; elsewhere they may be absent.
    assert statuses["manifest sha256"] in ("ok", "unavailable")
    assert main(["verify", str(run_dir)]) == 0
    assert "OK" in capsys.readouterr().out


def test_tampered_count_fails(run_dir: Path) -> None:
    def change(rows: list[dict]) -> None:
        rows[0]["views"]["normalized"]["wer"]["substitutions"] -= 1

    _rewrite_rows(run_dir, change)
    report = verify_run(run_dir)
    bad = [c for c in report.checks if c.status == "mismatch"]
    assert [c.name for c in bad] == ["arm tiny.en-int8: per-row counts"]
    assert "row en-01" in bad[0].detail
    assert main(["verify", str(run_dir), "--quiet"]) == 1


def test_tampered_hypothesis_fails(run_dir: Path) -> None:
    def change(rows: list[dict]) -> None:
        rows[1]["hypothesis"] = "something else entirely"

    _rewrite_rows(run_dir, change)
    report = verify_run(run_dir)
    names = {c.name for c in report.checks if c.status == "mismatch"}
    assert "arm tiny.en-int8: figures" in names
    assert main(["verify", str(run_dir)]) == 1


def test_tampered_result_value_fails(run_dir: Path) -> None:
    path = run_dir / "results.json"
    results = json.loads(path.read_text("utf-8"))
    metric = results["arms"]["tiny.en-int8"]["by_language"]["en"]["views"]["normalized"]["wer"]
    metric["ci95"][0] += 1e-9  # a CI must reproduce exactly
    path.write_text(json.dumps(results), "utf-8")
    report = verify_run(run_dir)
    (bad,) = [c for c in report.checks if c.status == "mismatch"]
    assert "by_language.en.views.normalized.wer.ci95[0]" in bad.detail
    assert main(["verify", str(run_dir)]) == 1


def test_tampered_plan_fails(run_dir: Path) -> None:
    path = run_dir / "plan.json"
    plan = json.loads(path.read_text("utf-8"))
    plan["plan"]["seed"] = 1
    path.write_text(json.dumps(plan), "utf-8")
    statuses = {c.name: c.status for c in verify_run(run_dir).checks}
    assert statuses["plan sha256"] == "mismatch"


def test_score_output_verifies(tmp_path: Path) -> None:
    from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions

    rows = [
        {"id": "a", "reference": "the cat sat", "hypothesis": "the cat sat"},
        {"id": "b", "reference": "on the mat", "hypothesis": "on a mat", "clip": "b"},
        {"id": "c", "reference": "hello there", "hypothesis": None},
    ]
    preds = write_rows(tmp_path / "preds.jsonl", rows)
    score_predictions(
        ScoreInputs(preds),
        ScoreFigures(normalizer="en-v1", resamples=300, seed=4),
        out_dir=tmp_path / "s",
    ).to_dict()
    report = verify_run(tmp_path / "s")
    statuses = {c.name: c.status for c in report.checks}
    assert report.ok
    assert statuses["arm preds: figures"] == "ok"
    assert statuses["manifest sha256"] == "unavailable"
    assert statuses["plan sha256"] == "unavailable"
    # Tamper with the one score figure: exit 1.
    path = tmp_path / "s" / "results.json"
    results = json.loads(path.read_text("utf-8"))
    results["arms"]["preds"]["overall"]["views"]["normalized"]["wer"]["value"] = 0.0
    path.write_text(json.dumps(results), "utf-8")
    assert main(["verify", str(tmp_path / "s")]) == 1


def test_differences_is_exact() -> None:
    assert differences({"a": [1.0, 2]}, {"a": [1.0, 2]}) == []
    assert differences({"a": 0.1 + 0.2}, {"a": 0.3}) != []
    assert differences({"a": 1}, {"a": 1.0}) == []
    assert differences({"a": True}, {"a": 1}) != []
    assert differences({"a": 1}, {}) == ["a: not recomputed (unexpected key)"]
