"""Missing audio: refused up front by default, with the way on named; `--allow-missing-audio`
runs the rest with those clips as `missing_file` rows, scored as deletions (issue 24).

A FIFO or a directory where a clip should be is named as what it is, not "not found", and
is never opened (a FIFO without a writer would block the run for ever).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.execution.options import RunOptions
from earmark.execution.run_request import PlanSettings, PlanSource, RunRequest, execute_run

#: Every clip's reference is "alpha beta gamma"; this program always says it.
PERFECT = "command:echo alpha beta gamma; : {audio}?shell=true&name=e"


def _args(manifest: Path, out: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--manifest",
        str(manifest),
        "--arm",
        PERFECT,
        "--normalizer",
        "none",
        "--bootstrap",
        "20",
        "--out",
        str(out),
        "--quiet",
        *extra,
    ]


def _corpus(tmp_path: Path, corpus_factory, removed: tuple[int, ...]) -> Path:
    manifest: Path = corpus_factory(tmp_path / "corpus", 5)
    for i in removed:
        (tmp_path / "corpus" / "audio" / f"c{i:03d}.wav").unlink()
    return manifest


def test_the_refusal_names_the_flag(
    tmp_path: Path, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = _corpus(tmp_path, corpus_factory, (1, 2))
    out = tmp_path / "run"
    assert main(_args(manifest, out)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "2 of 5 audio files not found under" in err
    assert "(first: audio/c001.wav, audio/c002.wav)" in err
    assert "--allow-missing-audio" in err
    assert not out.exists()


def test_allow_missing_audio_scores_the_missing_clips_as_deletions(
    tmp_path: Path, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = _corpus(tmp_path, corpus_factory, (1, 2))
    out = tmp_path / "run"
    assert main(_args(manifest, out, "--allow-missing-audio")) == 0
    assert capsys.readouterr().err == (
        f"earmark: warning: 2 of 5 audio files not found under {tmp_path / 'corpus'} "
        "(first: audio/c001.wav, audio/c002.wav); --allow-missing-audio: their clips are "
        "recorded as missing_file and scored as deletions\n"
    )
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text("utf-8").splitlines()]
    assert [(r["id"], r["status"]) for r in rows] == [
        ("c000", "ok"),
        ("c001", "missing_file"),
        ("c002", "missing_file"),
        ("c003", "ok"),
        ("c004", "ok"),
    ]
    arm = json.loads((out / "results.json").read_text("utf-8"))["arms"]["e"]
    assert arm["coverage"] == {
        "references": 5,
        "scored": 5,
        "statuses": {"missing_file": 2, "ok": 3},
        "not_ok": [
            {"id": "c001", "status": "missing_file"},
            {"id": "c002", "status": "missing_file"},
        ],
    }
    # 3 perfect clips and 2 of 3 deleted words each: 6 deletions of 15 reference words.
    wer = arm["overall"]["views"]["raw"]["wer"]
    assert (wer["substitutions"], wer["deletions"], wer["insertions"]) == (0, 6, 0)
    assert (wer["ref_units"], wer["hits"], wer["value"]) == (15, 9, 0.4)
    md = (out / "results.md").read_text("utf-8")
    assert "statuses missing_file: 2, ok: 3" in md
    assert "0/6/0 of 15" in md and "| 40.00% [" in md
    assert "- `c001`: missing_file\n- `c002`: missing_file\n" in md


def test_the_python_api_takes_the_option(tmp_path: Path, corpus_factory) -> None:
    manifest = _corpus(tmp_path, corpus_factory, (4,))
    request = RunRequest(
        out=str(tmp_path / "run"),
        source=PlanSource(manifest=str(manifest), arms=(PERFECT,)),
        settings=PlanSettings(normalizer="none", bootstrap=20),
        options=RunOptions(quiet=True, allow_missing_audio=True, command_line=["test"]),
    )
    results = execute_run(request)
    coverage = results.arms["e"].coverage
    assert coverage is not None
    assert dict(coverage.statuses) == {"missing_file": 1, "ok": 4}


def test_a_fifo_is_named_as_a_fifo_and_never_opened(
    tmp_path: Path, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = _corpus(tmp_path, corpus_factory, (1,))
    os.mkfifo(tmp_path / "corpus" / "audio" / "c001.wav")
    (tmp_path / "corpus" / "audio" / "c002.wav").unlink()
    (tmp_path / "corpus" / "audio" / "c002.wav").mkdir()
    out = tmp_path / "run"
    assert main(_args(manifest, out)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert (
        "2 of 5 audio files not found or not regular files under "
        f"{tmp_path / 'corpus'} (first: audio/c001.wav (is a FIFO (named pipe), not a "
        "regular file), audio/c002.wav (is a directory, expected a file))"
    ) in err
    # With the flag the run goes on; the FIFO is never opened, so nothing blocks.
    assert main(_args(manifest, out, "--allow-missing-audio")) == 0
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text("utf-8").splitlines()]
    assert [r["status"] for r in rows] == ["ok", "missing_file", "missing_file", "ok", "ok"]


def test_earmark_run_takes_the_flag_as_a_keyword(tmp_path: Path, corpus_factory) -> None:
    import earmark
    from earmark.errors import EarmarkError

    manifest = _corpus(tmp_path, corpus_factory, (0, 3))
    common = {"manifest": manifest, "arm": [PERFECT], "normalizer": "none", "quiet": True}
    with pytest.raises(EarmarkError, match="--allow-missing-audio"):
        earmark.run(out=tmp_path / "refused", bootstrap=20, **common)  # type: ignore[arg-type]
    results = earmark.run(
        out=tmp_path / "run",
        bootstrap=20,
        allow_missing_audio=True,
        **common,  # type: ignore[arg-type]
    )
    assert dict(results.arms["e"].coverage.statuses) == {"missing_file": 2, "ok": 3}
