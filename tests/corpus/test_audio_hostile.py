"""Hostile audio roots and engine numbers (issue 16, item 9 and the minor items).

A symlink loop in the audio root used to raise `RuntimeError` out of path resolution:
the run died at that clip, later clips became `arm_failed`, and every rerun died at the
same place. Now the loop is that clip's `unreadable` failure. A nonexistent
`--audio-root` is refused before the run starts; NaN from an engine never reaches a run's
JSON files.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from earmark.cli import main
from earmark.corpus.audio import AudioFailure, load_audio, resolve_audio_path
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.validation import validate_manifest
from earmark.corpus.writer import write_manifest


def make_corpus(root: Path, n: int = 3) -> Path:
    (root / "audio").mkdir(parents=True)
    rows = []
    for i in range(n):
        tone = (np.sin(np.arange(3200) * 0.01 * (i + 1)) * 0.3).astype(np.float32)
        sf.write(root / "audio" / f"c{i}.wav", tone, 16000, subtype="PCM_16")
        rows.append(Utterance(f"c{i}", f"audio/c{i}.wav", "alpha beta", "en"))
    manifest = root / "manifest.jsonl"
    meta = CorpusMeta(dataset="tones", licence="CC0-1.0", consent_basis="synthetic")
    write_manifest(manifest, rows, meta)
    return manifest


def loop(folder: Path, name: str) -> None:
    """`name` -> `name.x` -> `name`: a real two-link loop."""
    (folder / name).unlink(missing_ok=True)
    (folder / name).symlink_to(folder / f"{name}.x")
    (folder / f"{name}.x").symlink_to(folder / name)


def hypotheses(path: Path, ids: list[str], extra: str = "") -> Path:
    path.write_text(
        "".join(f'{{"id": "{i}", "text": "alpha beta"{extra}}}\n' for i in ids), "utf-8"
    )
    return path


def run_args(manifest: Path, hyps: Path, out: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--manifest",
        str(manifest),
        "--arm",
        f"precomputed:{hyps}",
        "--normalizer",
        "none",
        "--bootstrap",
        "50",
        "--out",
        str(out),
        "--quiet",
        *extra,
    ]


def test_a_symlink_loop_is_the_clips_unreadable_failure(tmp_path: Path) -> None:
    make_corpus(tmp_path)
    loop(tmp_path / "audio", "c1.wav")
    utt = Utterance("c1", "audio/c1.wav", "x", "en")
    # Resolving does not raise; the path stays under the root.
    assert resolve_audio_path(tmp_path, utt.audio) == tmp_path.absolute() / "audio" / "c1.wav"
    failure = load_audio(tmp_path, utt)
    assert failure == AudioFailure(
        "unreadable", "audio/c1.wav: Too many levels of symbolic links (symlink loop)"
    )
    # A loop in a folder on the way is the same failure.
    (tmp_path / "deep").symlink_to(tmp_path / "deep.x")
    (tmp_path / "deep.x").symlink_to(tmp_path / "deep")
    deep = load_audio(tmp_path, Utterance("d", "deep/c.wav", "x", "en"))
    assert isinstance(deep, AudioFailure) and deep.reason == "unreadable"
    # The good clips around it still load.
    ok = load_audio(tmp_path, Utterance("c2", "audio/c2.wav", "x", "en"))
    assert not isinstance(ok, AudioFailure) and ok.samples.shape == (3200,)


def test_validate_lists_the_loop_as_one_problem(tmp_path: Path) -> None:
    manifest = make_corpus(tmp_path)
    loop(tmp_path / "audio", "c1.wav")
    report = validate_manifest(manifest, tmp_path, check_audio=True)
    assert [(p.id, p.reason) for p in report.problems] == [("c1", "unreadable")]
    exists_only = validate_manifest(manifest, tmp_path)
    assert [(p.id, p.reason) for p in exists_only.problems] == [("c1", "missing_file")]


def test_a_run_without_the_loop_edit_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whatever the runner decides about a loop, it is never a traceback."""
    manifest = make_corpus(tmp_path / "corpus")
    loop(tmp_path / "corpus" / "audio", "c1.wav")
    hyps = hypotheses(tmp_path / "hyps.jsonl", ["c0", "c1", "c2"])
    code = main(run_args(manifest, hyps, tmp_path / "run"))
    assert code in (0, 2)
    if code == 2:
        assert capsys.readouterr().err.count("\n") == 1


def test_a_run_reports_the_loop_per_clip_and_reruns_cleanly(tmp_path: Path) -> None:
    manifest = make_corpus(tmp_path / "corpus")
    loop(tmp_path / "corpus" / "audio", "c1.wav")
    hyps = hypotheses(tmp_path / "hyps.jsonl", ["c0", "c1", "c2"])
    out = tmp_path / "run"
    for _ in range(2):  # the rerun does not die at the same clip
        assert main(run_args(manifest, hyps, out)) == 0
        rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text("utf-8").splitlines()]
        assert [(r["id"], r["status"]) for r in rows] == [
            ("c0", "ok"),
            ("c1", "unreadable"),
            ("c2", "ok"),
        ]
        assert "symlink loop" in rows[1]["detail"]


def test_a_nonexistent_audio_root_exits_2_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = make_corpus(tmp_path / "corpus")
    hyps = hypotheses(tmp_path / "hyps.jsonl", ["c0", "c1", "c2"])
    out = tmp_path / "run"
    absent = tmp_path / "no-such-folder"
    assert main(run_args(manifest, hyps, out, "--audio-root", str(absent))) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"3 of 3 audio files not found under {absent}" in err
    assert not out.exists()


def _strict_json(text: str) -> object:
    def refuse(constant: str) -> object:
        raise ValueError(f"{constant} in a JSON file")

    return json.loads(text, parse_constant=refuse)


def test_nan_from_an_engine_never_reaches_the_run_files(tmp_path: Path) -> None:
    manifest = make_corpus(tmp_path / "corpus")
    hyps = hypotheses(tmp_path / "hyps.jsonl", ["c0", "c1", "c2"], ', "decode_seconds": NaN')
    out = tmp_path / "run"
    assert main(run_args(manifest, hyps, out)) == 0
    for line in (out / "predictions.jsonl").read_text("utf-8").splitlines():
        row = _strict_json(line)
        assert isinstance(row, dict)
        assert row["decode_seconds"] is None and row["non_finite"] == ["decode_seconds"]
    for name in ("results.json", "provenance.json"):
        _strict_json((out / name).read_text("utf-8"))
    for resources in out.glob("arms/*/resources.json"):
        _strict_json(resources.read_text("utf-8"))
