"""`earmark run --protocol`: the run is scored, recorded and verified under the protocol."""

from __future__ import annotations

import json
from pathlib import Path

from earmark.cli import main
from earmark.verification import verify_run


def _irish(manifest: Path) -> Path:
    """The tone corpus with its rows tagged Irish (blasbench-v1 scores Irish only)."""
    from dataclasses import replace

    from earmark.corpus.manifest import read_manifest, read_meta
    from earmark.corpus.writer import write_manifest

    rows = [replace(u, language="ga") for u in read_manifest(manifest)]
    write_manifest(manifest, rows, read_meta(manifest))
    return manifest


def test_run_refuses_rows_outside_the_protocols_languages_before_the_folder_exists(
    tmp_path: Path, fake_asr: str, corpus_factory, capsys
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 3)  # English rows
    out = tmp_path / "run"
    arm = f"command:{fake_asr} {{audio}}?name=fake"
    args = ["run", "--manifest", str(manifest), "--arm", arm, "--protocol", "blasbench-v1"]
    assert main([*args, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--protocol blasbench-v1 is for language ga only; rows are in 'en'" in err
    assert not out.exists()


def test_run_with_a_protocol_records_it_and_verifies(
    tmp_path: Path, fake_asr: str, corpus_factory
) -> None:
    manifest = _irish(corpus_factory(tmp_path / "corpus", 5))
    out = tmp_path / "run"
    arm = f"command:{fake_asr} {{audio}}?name=fake"
    args = ["run", "--manifest", str(manifest), "--arm", arm, "--protocol", "blasbench-v1"]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    plan = json.loads((out / "plan.json").read_text("utf-8"))["plan"]
    assert (plan["protocol"], plan["normalizer"], plan["bootstrap"], plan["seed"]) == (
        "blasbench-v1",
        "blasbench-ga-v1",
        1000,
        42,
    )
    results = json.loads((out / "results.json").read_text("utf-8"))
    fake = results["arms"]["fake"]
    assert fake["protocol"]["name"] == "blasbench-v1"
    assert fake["bootstrap"]["generator"] == "python-random"
    assert fake["overall"]["normalizer"]["name"] == "blasbench-ga-v1"
    assert verify_run(out).ok


def test_run_refuses_a_contradicting_flag_before_the_folder_exists(
    tmp_path: Path, fake_asr: str, corpus_factory
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    out = tmp_path / "run"
    arm = f"command:{fake_asr} {{audio}}?name=fake"
    args = ["run", "--manifest", str(manifest), "--arm", arm, "--protocol", "blasbench-v1"]
    assert main([*args, "--bootstrap", "10000", "--out", str(out), "--quiet"]) == 2
    assert not out.exists()
