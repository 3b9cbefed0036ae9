"""Failures are failures: a run that cannot succeed is refused before its folder exists,
and a run whose arms produced nothing exits non-zero with its results marked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earmark.cli import main


def _args(manifest: Path, out: Path, *arms: str, extra: tuple[str, ...] = ()) -> list[str]:
    args = ["run", "--manifest", str(manifest), "--normalizer", "none", "--bootstrap", "50"]
    for arm in arms:
        args += ["--arm", arm]
    return [*args, "--out", str(out), "--quiet", *extra]


def test_arm_spec_typo_is_refused_before_the_run_folder_exists(
    tmp_path: Path, fake_asr: str, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    out = tmp_path / "run"
    good = f"command:{fake_asr} {{audio}}?name=fake"
    typo = f"command:{fake_asr} {{audio}}?name=typo&timout=5"
    assert main(_args(manifest, out, good, typo)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1  # one line
    assert "arm 'typo'" in err and "timout" in err
    assert not out.exists()
    # The fixed spec runs into the same --out.
    fixed = f"command:{fake_asr} {{audio}}?name=typo&timeout=5"
    assert main(_args(manifest, out, good, fixed)) == 0
    assert (out / "results.json").exists()


def test_unknown_backend_and_missing_program_are_refused_before_running(
    tmp_path: Path, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    out = tmp_path / "run"
    assert main(_args(manifest, out, "fasterwhisper:bundled:tiny.en")) == 2
    assert "unknown backend 'fasterwhisper'" in capsys.readouterr().err
    assert main(_args(manifest, out, "command:/no/such/asr {audio}?name=x")) == 2
    assert "arm 'x'" in capsys.readouterr().err
    assert not out.exists()


def test_missing_audio_is_refused_naming_the_first_files_and_the_count(
    tmp_path: Path, fake_asr: str, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 5)
    for i in (1, 2, 3, 4):
        (tmp_path / "corpus" / "audio" / f"c{i:03d}.wav").unlink()
    out = tmp_path / "run"
    assert main(_args(manifest, out, f"command:{fake_asr} {{audio}}")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "4 of 5 audio files not found under" in err
    assert "audio/c001.wav, audio/c002.wav, audio/c003.wav, …" in err
    assert "audio/c004.wav" not in err
    assert "--audio-root" in err
    assert not out.exists()


def test_wrong_audio_root_is_refused(
    tmp_path: Path, fake_asr: str, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 3)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "run"
    extra = ("--audio-root", str(elsewhere))
    assert main(_args(manifest, out, f"command:{fake_asr} {{audio}}", extra=extra)) == 2
    assert f"3 of 3 audio files not found under {elsewhere}" in capsys.readouterr().err
    assert not out.exists()


def test_every_clip_failing_to_load_exits_1_with_results_marked(
    tmp_path: Path, fake_asr: str, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 3)
    for i in range(3):  # present (the pre-run check passes) but not audio
        (tmp_path / "corpus" / "audio" / f"c{i:03d}.wav").write_bytes(b"RIFF not really")
    out = tmp_path / "run"
    rc = main(_args(manifest, out, f"command:{fake_asr} {{audio}}?name=fake"))
    assert rc == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "every clip failed to load" in err and "no arm produced a hypothesis" in err
    results = json.loads((out / "results.json").read_text("utf-8"))
    statuses = results["arms"]["fake"]["coverage"]["statuses"]
    assert "ok" not in statuses and sum(statuses.values()) == 3
    assert results["arms"]["fake"]["failure"]["kind"] == "no_audio_loaded"
    assert results["failures"] == [{"arm": "fake", **results["arms"]["fake"]["failure"]}]
    prov = json.loads((out / "provenance.json").read_text("utf-8"))
    assert any(d["kind"] == "no_audio_loaded" for d in prov["deviations"])


def test_an_arm_with_no_hypothesis_exits_1_and_the_others_are_kept(
    tmp_path: Path, fake_asr: str, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 3)
    out = tmp_path / "run"
    rc = main(
        _args(
            manifest,
            out,
            f"command:{fake_asr} {{audio}}?name=good",
            "command:false {audio}?name=silent",  # runs, exits 1 on every clip
        )
    )
    assert rc == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "silent (no hypothesis for any of 3 rows (command_failed:1: 3))" in err
    assert "good" not in err
    results = json.loads((out / "results.json").read_text("utf-8"))
    assert results["arms"]["silent"]["failure"]["kind"] == "no_hypothesis"
    assert "failure" not in results["arms"]["good"]
    assert results["arms"]["good"]["coverage"]["statuses"] == {"ok": 3}


def test_a_partly_failed_arm_still_exits_0(tmp_path: Path, fake_asr: str, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 3)
    (tmp_path / "corpus" / "audio" / "c001.wav").write_bytes(b"RIFF not really")
    out = tmp_path / "run"
    assert main(_args(manifest, out, f"command:{fake_asr} {{audio}}?name=fake")) == 0
    results = json.loads((out / "results.json").read_text("utf-8"))
    assert results["failures"] == []


def test_a_backend_whose_runtime_is_not_installed_is_refused_before_running(
    tmp_path: Path, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    from earmark.engines.extras import is_installed

    if is_installed("qwen_asr"):
        pytest.skip("qwen-asr is installed here: the refusal cannot be shown with it")
    manifest = corpus_factory(tmp_path / "corpus", 2)
    model = tmp_path / "qwen-model"
    model.mkdir()
    out = tmp_path / "run"
    assert main(_args(manifest, out, f"qwen3-asr:{model}?name=qwen")) == 2
    err = capsys.readouterr().err
    assert "arm 'qwen': backend qwen3-asr needs the optional package 'qwen_asr'" in err
    assert "pip install 'earmark[qwen3-asr]'" in err
    assert not out.exists()
