"""A run whose texts hold U+2028/U+2029/U+0085 round-trips: store, resume, verify, report.

earmark writes `predictions.jsonl` with those characters unescaped; every reader of that
file (the store on resume, verify, the run-directory loader) must cut rows at "\\n" only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.execution.store import PredictionStore
from earmark.rundir.predictions import read_prediction_records as read_jsonl


def test_run_with_line_separators_resumes_and_verifies(
    tmp_path: Path, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 3)
    hyps = tmp_path / "hyps.jsonl"
    texts = {"c000": "alpha\u2028beta gamma", "c001": "alpha beta\u2029delta", "c002": "x\x85y"}
    hyps.write_text(
        "".join(json.dumps({"id": k, "hypothesis": v}) + "\n" for k, v in texts.items())
    )
    out = tmp_path / "run"
    args = ["run", "--manifest", str(manifest), "--arm", f"precomputed:{hyps}?name=pre"]
    args += ["--normalizer", "none", "--bootstrap", "50", "--out", str(out), "--quiet"]
    assert main(args) == 0, capsys.readouterr().err
    written = (out / "predictions.jsonl").read_text("utf-8")
    assert "\u2028" in written and "\u2029" in written and "\x85" in written

    rows = read_jsonl(out / "predictions.jsonl")
    assert {r["id"]: r["hypothesis"] for r in rows} == texts

    store = PredictionStore(out / "predictions.jsonl")
    assert {key[1]: row["hypothesis"] for key, row in store.latest().items()} == texts
    assert store.repair.invalid_lines == 0

    capsys.readouterr()
    assert main(["verify", str(out)]) == 0, capsys.readouterr()
    # A rerun resumes from the store: nothing is redone and the rows are unchanged.
    assert main(args) == 0, capsys.readouterr().err
    assert (out / "predictions.jsonl").read_text("utf-8") == written


def test_store_keeps_a_row_whole_whatever_its_text(tmp_path: Path) -> None:
    path = tmp_path / "predictions.jsonl"
    with PredictionStore(path) as store:
        store.append({"arm": "a", "id": "1", "hypothesis": "x\u2028y\x85z\x0cw"})
        store.append({"arm": "a", "id": "2", "hypothesis": "plain"})
    # A JSON writer may put "\r" between tokens; only "\n" ends a row.
    with open(path, "ab") as handle:
        handle.write(b'{"arm": "a",\r"id": "3", "hypothesis": "cr"}\n')
    store = PredictionStore(path)
    rows = list(store.rows())
    assert [r["id"] for r in rows] == ["1", "2", "3"]
    assert rows[0]["hypothesis"] == "x\u2028y\x85z\x0cw"
    assert store.repair.invalid_lines == 0
