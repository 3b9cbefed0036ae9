"""`earmark run --csv`: one spreadsheet row per utterance × repeat × arm, beside the JSONL."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from earmark.cli import main


def test_run_csv_has_a_row_per_arm_utterance_and_repeat(
    tmp_path: Path, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)  # references: "alpha beta gamma"
    good = tmp_path / "good.jsonl"
    good.write_text(
        "".join(
            json.dumps({"id": k, "hypothesis": v}) + "\n"
            for k, v in {"c000": "alpha beta gamma", "c001": "alpha beta"}.items()
        )
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "c000", "hypothesis": "+alpha delta gamma epsilon"}) + "\n")
    out = tmp_path / "run"
    args = ["run", "--manifest", str(manifest), "--arm", f"precomputed:{good}?name=good"]
    args += ["--arm", f"precomputed:{bad}?name=bad", "--repeats", "2", "--isolation", "inline"]
    args += ["--normalizer", "none", "--bootstrap", "0", "--out", str(out), "--quiet", "--csv"]
    assert main(args) == 0, capsys.readouterr().err
    with open(out / "predictions.csv", encoding="utf-8-sig", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert len(table) == 2 * 2 * 2
    cells = {
        (r["arm"], r["id"], r["repeat"]): (r["hypothesis"], r["errors"], r["ref_units"], r["rate"])
        for r in table
    }
    for repeat in ("0", "1"):
        assert cells[("good", "c000", repeat)] == ("alpha beta gamma", "0", "3", "0.0")
        assert cells[("good", "c001", repeat)][1:] == ("1", "3", str(1 / 3))
        # "+alpha delta gamma epsilon": S(+alpha), S(delta), I(epsilon) -> 3 errors / 3
        assert cells[("bad", "c000", repeat)] == ("'+alpha delta gamma epsilon", "3", "3", "1.0")
        # No row for c001 in bad.jsonl: an empty hypothesis, all deletions, and listed.
        assert cells[("bad", "c001", repeat)] == ("", "3", "3", "1.0")
    statuses = {(r["arm"], r["id"]): r["status"] for r in table}
    assert statuses[("good", "c000")] == "ok"
    assert statuses[("bad", "c001")] != "ok"
    assert {r["view"] for r in table} == {"raw"} and {r["metric"] for r in table} == {"wer"}
    capsys.readouterr()
    assert main(["verify", str(out), "--quiet"]) == 0, capsys.readouterr().out
