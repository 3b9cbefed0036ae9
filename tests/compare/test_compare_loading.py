"""Arm specs: run directories, RUN_DIR#ARM, files, NAME= labels, and their errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from compare_fixtures import write_rows

from earmark.errors import EarmarkError
from earmark.rundir.arm_inputs import load_arm_specs, load_arms


def _run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    rows = []
    for arm in ("f32", "q8"):
        for i in range(3):
            for rep in range(2):
                rows.append(
                    {
                        "arm": arm,
                        "id": f"u{i}",
                        "repeat": rep,
                        "reference": "a b",
                        "hypothesis": "a b" if arm == "f32" else "a",
                        "audio_seconds": 1.5,
                    }
                )
    write_rows(run / "predictions.jsonl", rows)
    return run


def test_run_dir_gives_every_arm(tmp_path: Path) -> None:
    arms = load_arms(str(_run_dir(tmp_path)))
    assert [a.name for a in arms] == ["f32", "q8"]
    assert len(arms[0]) == 6
    assert arms[0].keys[:2] == [("u0", 0), ("u0", 1)]
    assert arms[0].clusters[:2] == ["u0", "u0"]
    assert arms[0].audio_seconds[0] == 1.5


def test_one_arm_of_a_run_and_labels(tmp_path: Path) -> None:
    run = _run_dir(tmp_path)
    (arm,) = load_arms(f"{run}#q8")
    assert arm.name == "q8"
    (renamed,) = load_arms(f"other={run}#q8")
    assert renamed.name == "other"
    with pytest.raises(EarmarkError, match="no arm 'q4'") as info:
        load_arms(f"{run}#q4")
    assert "f32, q8" in str(info.value)
    with pytest.raises(EarmarkError, match="a NAME= label needs exactly one"):
        load_arms(f"x={run}")


def test_duplicate_names_refused(tmp_path: Path) -> None:
    spec = write_rows(tmp_path / "s.jsonl", [{"id": "a", "reference": "x", "hypothesis": "x"}])
    with pytest.raises(EarmarkError, match="two arms are named 's'"):
        load_arm_specs([spec, spec])
    assert list(load_arm_specs([spec, f"t={spec}"])) == ["s", "t"]


def test_bad_rows_name_file_line_field(tmp_path: Path) -> None:
    spec = write_rows(
        tmp_path / "bad.jsonl",
        [{"id": "a", "reference": "x", "hypothesis": "x"}, {"id": "b", "reference": 3}],
    )
    with pytest.raises(EarmarkError) as info:
        load_arms(spec)
    assert (info.value.line, info.value.field) == (2, "reference")
    dup = write_rows(
        tmp_path / "dup.jsonl",
        [{"id": "a", "reference": "x", "hypothesis": "x"}] * 2,
    )
    with pytest.raises(EarmarkError, match="duplicate row"):
        load_arms(dup)


def test_csv_predictions(tmp_path: Path) -> None:
    path = tmp_path / "sys.csv"
    path.write_text("id,reference,hypothesis\nu1,a b,a b\nu2,c d,c\n", "utf-8")
    (arm,) = load_arms(str(path))
    assert arm.name == "sys"
    assert arm.hypotheses == ["a b", "c"]
