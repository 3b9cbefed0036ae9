"""earmark.rundir.RunFolder on the checked-in example runs and on folders a crash left behind.

The example runs are read through RunFolder and compared with the files as `json` reads
them (typed objects round-trip to the same JSON); the damaged folders are made by the real
`earmark score` and then torn, emptied or edited as a killed writer or a user would.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.render.run_directory import load_run
from earmark.results import RESULTS_SCHEMA, ModelInfo, Resources, Results
from earmark.rundir import layout
from earmark.rundir.folder import RunFolder
from earmark.rundir.predictions import (
    arm_row_key,
    predictions_file,
    read_prediction_objects,
    read_prediction_records,
    read_run_rows,
    row_key,
    torn_tail_bytes,
)
from earmark.rundir.provenance import NO_PROVENANCE, arm_verifiable, is_verifiable
from earmark.rundir.results_file import SCHEMA_ID

TESTS = Path(__file__).resolve().parents[1]
EXAMPLES = [TESTS / "report/data/example-run", TESTS / "compare/data/example-run"]
ARM = "tiny.en-int8"


def _json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").split("\n") if line.strip()]


@pytest.mark.parametrize("run", EXAMPLES, ids=["report-example", "compare-example"])
def test_example_run_read_through_run_folder(run: Path) -> None:
    folder = RunFolder.at(run / "results.json")  # a file inside the folder names the folder
    assert folder.path == run and RunFolder.at(run) == folder
    assert folder.results_record() == _json(run / "results.json")
    assert folder.checked_results_record() == _json(run / "results.json")

    results = folder.results()
    assert isinstance(results, Results)
    assert results.arm_names == (ARM,)
    assert results.to_json() == (run / "results.json").read_text("utf-8")  # byte for byte

    records = folder.prediction_records()
    assert records == _lines(run / "predictions.jsonl")
    assert len(records) == 31
    rows = folder.prediction_rows()
    assert [r.to_dict() for r in rows] == records
    assert {row_key(r) for r in records} == {(r.id, r.repeat or 0) for r in rows}
    assert {arm_row_key(r)[0] for r in records} == {ARM}

    plan = folder.plan()
    assert plan is not None and plan["sha256"] == _json(run / "plan.json")["sha256"]
    provenance = folder.provenance()
    assert provenance == _json(run / "provenance.json")
    assert folder.verifiable() == (True, [])
    assert folder.verifiable(ARM) == (True, [])
    assert folder.verifiable("absent") == (
        False,
        ["model revision or file hashes of arm absent"],
    )

    assert folder.arm_folders() == [ARM]
    model = folder.model(ARM)
    assert isinstance(model, ModelInfo)
    assert model.to_dict() == _json(run / "arms" / ARM / "model.json")
    resources = folder.resources(ARM)
    assert isinstance(resources, Resources)
    assert resources.to_dict() == _json(run / "arms" / ARM / "resources.json")
    assert folder.egress(ARM) == {
        "policy": "refuse all except: nothing",
        "attempts": [],
        "refused": 0,
    }
    assert folder.model("absent") is None and folder.resources("absent") is None
    assert folder.compare_record() is None and folder.comparison() is None
    assert torn_tail_bytes(folder.predictions_file) == 0


@pytest.mark.parametrize("run", EXAMPLES, ids=["report-example", "compare-example"])
def test_load_run_is_the_run_folder_read_once(run: Path) -> None:
    loaded = load_run(run)
    folder = RunFolder(run)
    assert loaded.path == run
    assert loaded.results == folder.results_record()
    assert loaded.predictions == folder.prediction_records()
    assert loaded.provenance == folder.provenance()
    assert loaded.compare is None
    assert loaded.verifiable(ARM) == folder.verifiable(ARM)
    # references_sha256 by hand: sorted (id, repeat, reference) triples, one JSON line each.
    triples = sorted({(r["id"], r.get("repeat") or 0, r["reference"]) for r in loaded.predictions})
    lines = b"".join(json.dumps(list(t), ensure_ascii=False).encode() + b"\n" for t in triples)
    assert loaded.references_sha256() == hashlib.sha256(lines).hexdigest()


@pytest.fixture()
def score_folder(tmp_path: Path) -> Path:
    """A real `earmark score` folder: results.json names predictions.jsonl by hash."""
    pairs = tmp_path / "pairs.jsonl"
    rows = [
        {"id": "a", "reference": "the cat sat", "hypothesis": "the cat sat", "language": "en"},
        {"id": "b", "reference": "on the mat", "hypothesis": "on a mat", "language": "en"},
        {"id": "c", "reference": "a dog\u2028ran", "hypothesis": None, "language": "en"},
    ]
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    out = tmp_path / "score"
    assert (
        main(
            [
                "score",
                str(pairs),
                "--out",
                str(out),
                "--normalizer",
                "crude-v1",
                "--bootstrap",
                "0",
                "--quiet",
            ]
        )
        == 0
    )
    return out


def test_score_folder_has_no_run_records(score_folder: Path) -> None:
    folder = RunFolder(score_folder)
    record = folder.checked_results_record()
    assert record["predictions"]["file"] == layout.PREDICTIONS
    assert record["predictions"]["rows"] == 3
    assert [r["id"] for r in folder.prediction_records()] == ["a", "b", "c"]
    # U+2028 inside a text is not a line end (the reader splits at "\n" only).
    assert folder.prediction_records()[2]["reference"] == "a dog\u2028ran"
    assert folder.plan() is None and folder.provenance() is None
    assert folder.arm_folders() == []
    assert folder.verifiable() == (False, [NO_PROVENANCE])
    assert (folder.listing_file).is_file()


def test_torn_last_line_is_skipped_but_refused_beside_figures(score_folder: Path) -> None:
    """A killed writer leaves half a row: readers of rows skip it; a reader of figures
    refuses the folder, since results.json was computed from other bytes."""
    path = score_folder / layout.PREDICTIONS
    whole = read_prediction_records(path)
    half = b'{"id": "d", "reference": "half wr'
    with open(path, "ab") as handle:
        handle.write(half)
    assert torn_tail_bytes(path) == len(half)
    assert read_prediction_records(path) == whole
    with pytest.raises(EarmarkError, match="invalid JSON") as caught:
        read_prediction_objects(path)  # the strict reader (verify) takes every row or none
    assert caught.value.line == 4
    with pytest.raises(EarmarkError, match="not the file results.json was computed from"):
        RunFolder(score_folder).checked_results_record()
    with pytest.raises(EarmarkError, match="not the file results.json was computed from"):
        load_run(score_folder)
    # Unchecked, the figures are still readable (verify reports the mismatch itself).
    assert RunFolder(score_folder).results_record()["schema"] == SCHEMA_ID


def test_a_bad_line_before_the_last_is_an_error_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / layout.PREDICTIONS
    path.write_text('{"id": "a"}\n{"id": \n{"id": "c"}\n', "utf-8")
    with pytest.raises(EarmarkError) as caught:
        read_prediction_records(path)
    assert caught.value.file == str(path) and caught.value.line == 2
    path.write_text('{"id": "a"}\n\n{"id": "c"}', "utf-8")  # whole JSON, no final newline
    assert read_prediction_records(path) == [{"id": "a"}, {"id": "c"}]
    assert torn_tail_bytes(path) == len('{"id": "c"}')
    assert read_prediction_records(tmp_path / "absent.jsonl") == []


def test_half_written_run_folder(tmp_path: Path) -> None:
    """A run killed before its figures: rows and plan readable, figures refused by name."""
    run = tmp_path / "run"
    shutil.copytree(EXAMPLES[0], run)
    (run / layout.RESULTS).unlink()
    text = (run / layout.PREDICTIONS).read_bytes()
    (run / layout.PREDICTIONS).write_bytes(text[: text.rfind(b"\n", 0, -1) + 40])
    folder = RunFolder(run)
    assert len(folder.prediction_records()) == 30
    assert folder.plan() is not None
    with pytest.raises(EarmarkError, match="results file not found"):
        folder.results_record()
    with pytest.raises(EarmarkError, match="results file not found"):
        load_run(run)

    (run / layout.RESULTS).write_text("", "utf-8")
    with pytest.raises(EarmarkError, match="results file is empty"):
        folder.results_record()
    shutil.copy(EXAMPLES[0] / layout.RESULTS, run / layout.RESULTS)
    (run / layout.PROVENANCE).write_text(" \n", "utf-8")
    with pytest.raises(EarmarkError, match="provenance.json is empty") as caught:
        load_run(run)
    assert caught.value.file == str(run / layout.PROVENANCE)
    (run / layout.PLAN).write_text("", "utf-8")
    with pytest.raises(EarmarkError, match="plan.json is empty"):
        folder.plan()
    (run / layout.PLAN).write_text("[1]", "utf-8")
    with pytest.raises(EarmarkError, match="expected a JSON object"):
        folder.plan()


def test_results_of_another_schema_are_refused(tmp_path: Path) -> None:
    (tmp_path / layout.RESULTS).write_text('{"schema": "earmark.results/2"}', "utf-8")
    with pytest.raises(EarmarkError, match="unsupported results schema") as caught:
        RunFolder(tmp_path).results_record()
    assert caught.value.field == "schema"
    assert SCHEMA_ID == RESULTS_SCHEMA  # the light writer's spelling is the model's


def test_compare_record_beside_a_run(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLES[0], run)
    (run / layout.COMPARE).write_text('{"schema": "earmark.gap/1"}', "utf-8")
    with pytest.raises(EarmarkError, match="unsupported compare schema"):
        load_run(run)
    (run / layout.COMPARE).write_text('{"schema": "earmark.compare/1", "x": 1}', "utf-8")
    assert load_run(run).compare == {"schema": "earmark.compare/1", "x": 1}
    assert RunFolder(run).compare_record() == {"schema": "earmark.compare/1", "x": 1}


def test_predictions_file_names_the_folder_or_file(tmp_path: Path) -> None:
    with pytest.raises(EarmarkError, match="no predictions.jsonl here") as caught:
        predictions_file(tmp_path, hint="give a run")
    assert caught.value.hint == "give a run"
    (tmp_path / layout.PREDICTIONS).write_text("", "utf-8")
    assert predictions_file(tmp_path) == tmp_path / layout.PREDICTIONS
    assert predictions_file(tmp_path / layout.PREDICTIONS) == tmp_path / layout.PREDICTIONS


def test_row_keys_by_hand() -> None:
    assert row_key({"id": "x", "repeat": 2, "arm": "a"}) == ("x", 2)
    assert row_key({"id": 7}) == ("7", 0)
    assert row_key({"id": "x", "repeat": None}) == ("x", 0)
    assert arm_row_key({"id": "x", "arm": "a"}) == ("a", "x", 0)
    assert arm_row_key({"id": "x", "arm": "a", "repeat": 3}) == ("a", "x", 3)


def test_verifiability_rule_by_hand() -> None:
    host = {"cpu_model": "EPYC", "arch": "x86_64"}
    corpus = {"manifest_sha256": "f" * 64}
    good = {"model": {"revision": "abc"}}
    hashed = {"model": {"file_sha256": {"m.bin": "0" * 64}}}
    assert is_verifiable({"corpus": corpus, "host": host, "arms": {"a": good, "b": hashed}}) == (
        True,
        [],
    )
    declared = {"model": {"revision": "r", "extra": {"verifiable": False}}}
    reasoned = {
        "model": {
            "revision": "r",
            "extra": {"verifiable": False, "unverifiable_reason": "no model= given"},
        }
    }
    ok, missing = is_verifiable(
        {"corpus": {}, "host": {"arch": "x"}, "arms": {"a": {}, "d": declared, "r": reasoned}}
    )
    assert not ok
    assert missing == [
        "corpus manifest sha256",
        "host profile",
        "model revision or file hashes of arm a",
        "arm d is declared unverifiable by its engine",
        "no model= given",
    ]
    both = {"corpus": corpus, "host": host, "arms": {"a": good, "x": {}}}
    assert arm_verifiable(both) == (False, ["model revision or file hashes of arm x"])
    assert arm_verifiable(both, "a") == (True, [])  # another arm's gap does not taint a
    assert arm_verifiable(None, "a") == (False, [NO_PROVENANCE])


def test_run_rows_for_resume_count_what_they_skip(tmp_path: Path) -> None:
    """A resuming run reads every whole row and recomputes the rest: a bad line is
    counted, never fatal; bad UTF-8 inside a row is replaced, the row kept."""

    class Tally:
        invalid_lines = 0

    path = tmp_path / layout.PREDICTIONS
    path.write_bytes(
        b'{"arm": "a", "id": "1", "hypothesis": "x\xe2\x80\xa8y"}\n'
        b"not json\n"
        b'{"id": "2"}\n'
        b"\n"
        b'{"arm": "a", "id": "3", "hypothesis": "caf\xff"}\r\n'
        b"[1, 2]\n"
    )
    tally = Tally()
    rows = list(read_run_rows(path, tally))
    assert [r["id"] for r in rows] == ["1", "3"]
    assert rows[0]["hypothesis"] == "x\u2028y" and rows[1]["hypothesis"] == "caf\ufffd"
    assert tally.invalid_lines == 3
    assert list(read_run_rows(tmp_path / "absent", tally)) == [] and tally.invalid_lines == 3
