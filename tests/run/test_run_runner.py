"""`earmark run` on a deterministic command-line system: files, resume, failures, gate."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from earmark.cli import main
from earmark.execution.store import PredictionStore
from earmark.render.results import results_schema


def _run_args(manifest: Path, arm: str, out: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--manifest",
        str(manifest),
        "--arm",
        arm,
        "--normalizer",
        "none",
        "--bootstrap",
        "200",
        "--out",
        str(out),
        "--quiet",
        *extra,
    ]


def _predictions(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "predictions.jsonl").read_text("utf-8").splitlines()]


def test_run_writes_every_file_and_accounts_for_every_clip(
    tmp_path: Path, fake_asr: str, corpus_factory
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 6)
    # One clip is corrupt: it must become a reason code, not a crash or a silent drop.
    (tmp_path / "corpus" / "audio" / "c002.wav").write_bytes(b"RIFF not really a wav")
    out = tmp_path / "run"
    rc = main(_run_args(manifest, f"command:{fake_asr} {{audio}}?name=fake", out))
    assert rc == 0
    for name in ("plan.json", "predictions.jsonl", "results.json", "provenance.json", "results.md"):
        assert (out / name).exists(), name
    rows = _predictions(out)
    assert [r["id"] for r in rows] == [f"c{i:03d}" for i in range(6)]
    bad = next(r for r in rows if r["id"] == "c002")
    assert bad["status"] == "sha256_mismatch" or bad["status"] == "unreadable"
    results = json.loads((out / "results.json").read_text("utf-8"))
    jsonschema.validate(results, results_schema())
    arm = results["arms"]["fake"]
    assert arm["coverage"]["references"] == 6
    assert {r["id"] for r in arm["coverage"]["not_ok"]} == {"c002"}
    wer = arm["overall"]["views"]["raw"]["wer"]
    assert wer["ref_units"] == 18  # 6 clips × 3 words: the failed clip still counts
    assert arm["resources"]["clips_timed"] == 5
    assert arm["resources"]["latency_p95_seconds"] > 0
    prov = json.loads((out / "provenance.json").read_text("utf-8"))
    assert prov["corpus"]["manifest_sha256"] == results["corpus"]["manifest_sha256"]
    assert prov["host"]["cores_available"] >= 1
    assert any(d["kind"] == "excluded_or_failed" for d in prov["deviations"])


def test_rerun_resumes_without_redoing_rows(tmp_path: Path, fake_asr: str, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 4)
    out = tmp_path / "run"
    args = _run_args(manifest, f"command:{fake_asr} {{audio}}?name=fake", out)
    assert main(args) == 0
    first = _predictions(out)
    assert main(args) == 0
    resources = json.loads((out / "arms" / "fake" / "resources.json").read_text())
    assert resources["session"] == {"transcribed": 0, "skipped_finished": 4, "failed": 0}
    assert [r["hypothesis"] for r in _predictions(out)] == [r["hypothesis"] for r in first]


def test_changed_setting_is_not_served_from_stale_rows(
    tmp_path: Path, fake_asr: str, corpus_factory
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 3)
    out = tmp_path / "run"
    assert main(_run_args(manifest, f"command:{fake_asr} {{audio}}?name=fake", out)) == 0
    # Same arm name, different settings: a different plan, refused for this directory.
    rc = main(_run_args(manifest, f"command:{fake_asr} {{audio}} 0.0?name=fake", out))
    assert rc == 2


def test_torn_last_line_is_repaired(tmp_path: Path) -> None:
    path = tmp_path / "predictions.jsonl"
    path.write_text('{"arm":"a","id":"1","repeat":0}\n{"arm":"a","id":"2","re', "utf-8")
    store = PredictionStore(path)
    assert store.repair.torn_bytes > 0
    assert list(store.latest()) == [("a", "1", 0)]
    store.append({"arm": "a", "id": "2", "repeat": 0})
    assert len(store.latest()) == 2


def test_licence_gate_refuses_undeclared_corpus(
    tmp_path: Path, fake_asr: str, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2, licence=None)
    rc = main(_run_args(manifest, f"command:{fake_asr} {{audio}}", tmp_path / "run"))
    assert rc == 2
    assert "licence" in capsys.readouterr().err.lower()


def test_repeats_are_clustered(tmp_path: Path, fake_asr: str, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 3)
    out = tmp_path / "run"
    assert (
        main(_run_args(manifest, f"command:{fake_asr} {{audio}}?name=fake", out, "--repeats", "2"))
        == 0
    )
    rows = _predictions(out)
    assert sorted((r["id"], r["repeat"]) for r in rows) == [
        (f"c{i:03d}", k) for i in range(3) for k in range(2)
    ]
    overall = json.loads((out / "results.json").read_text())["arms"]["fake"]["overall"]
    assert overall["n_utterances"] == 6 and overall["n_clusters"] == 3


def _kill_and_resume(tmp_path: Path, fake_asr: str, seed: int, make_corpus) -> list[dict]:
    manifest = make_corpus(tmp_path / "corpus", 12)
    out = tmp_path / f"run{seed}"
    arm = f"command:{fake_asr} {{audio}} 0.05?name=fake"
    cmd = [sys.executable, "-m", "earmark", *_run_args(manifest, arm, out)]
    rng = random.Random(seed)
    store = out / "predictions.jsonl"
    partial_counts = []
    for _ in range(3):
        # Kill at a random point: once the store holds a random number of rows (so the kill
        # lands mid-run whatever the machine's speed), plus a random extra delay.
        done_before = len(store.read_bytes().splitlines()) if store.exists() else 0
        target = min(11, done_before + rng.randint(1, 4))
        proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if store.exists() and len(store.read_bytes().splitlines()) >= target:
                time.sleep(rng.uniform(0.0, 0.1))
                break
            time.sleep(0.01)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        partial_counts.append(len(store.read_bytes().splitlines()) if store.exists() else 0)
    # The kills must land inside the run (some rows written, not all), or the test proves nothing.
    assert any(0 < c < 12 for c in partial_counts), partial_counts
    final = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert final.returncode == 0, final.stderr
    return _predictions(out)


@pytest.mark.parametrize("seed", [1, 2])
def test_kill_9_then_resume_loses_and_duplicates_nothing(
    tmp_path: Path, fake_asr: str, seed: int, corpus_factory
) -> None:
    rows = _kill_and_resume(tmp_path, fake_asr, seed, corpus_factory)
    manifest = tmp_path / "corpus" / "manifest.jsonl"
    reference_out = tmp_path / "clean"
    assert (
        main(_run_args(manifest, f"command:{fake_asr} {{audio}} 0.05?name=fake", reference_out))
        == 0
    )
    clean = _predictions(reference_out)
    assert [(r["id"], r["repeat"]) for r in rows] == [(r["id"], r["repeat"]) for r in clean]
    assert [r["hypothesis"] for r in rows] == [r["hypothesis"] for r in clean]
    assert all(r["status"] == "ok" for r in rows)


def test_ctrl_c_leaves_a_resumable_run(tmp_path: Path, fake_asr: str, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 8)
    out = tmp_path / "run"
    arm = f"command:{fake_asr} {{audio}} 0.05?name=fake"
    cmd = [sys.executable, "-m", "earmark", *_run_args(manifest, arm, out)]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    store = out / "predictions.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if store.exists() and len(store.read_bytes().splitlines()) >= 2:
            break
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "rerun the same command to resume" in err
    written = len(store.read_bytes().splitlines())
    assert 0 < written < 8
    assert main(_run_args(manifest, arm, out)) == 0
    rows = _predictions(out)
    assert [r["id"] for r in rows] == [f"c{i:03d}" for i in range(8)]
    resources = json.loads((out / "arms" / "fake" / "resources.json").read_text())
    assert resources["session"]["skipped_finished"] >= written - 1


def test_an_arm_that_cannot_load_fails_the_command_but_keeps_the_others(
    tmp_path: Path, fake_asr: str, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 3)
    out = tmp_path / "run"
    # The spec passes the pre-run check (the file exists); loading it fails in the arm.
    (tmp_path / "broken.jsonl").write_text("{not json\n", "utf-8")
    rc = main(
        [
            "run",
            "--manifest",
            str(manifest),
            "--arm",
            f"command:{fake_asr} {{audio}}?name=ok",
            "--arm",
            f"precomputed:{tmp_path / 'broken.jsonl'}?name=broken",
            "--normalizer",
            "none",
            "--bootstrap",
            "50",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 1
    assert "broken did not finish" in capsys.readouterr().err
    results = json.loads((out / "results.json").read_text())
    assert results["arms"]["ok"]["coverage"]["statuses"] == {"ok": 3}
    broken = results["arms"]["broken"]["coverage"]
    assert broken["statuses"] == {"arm_failed": 3}  # every utterance still accounted for
