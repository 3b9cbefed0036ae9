"""The stdio backend against the reference program (earmark.testing.stdio_echo_asr):
started once for many clips, audio intact, crash / hang / error become reason codes and
the run goes on, restarts are bounded, provenance as for `command`, `earmark run` end to
end with the egress audit, and kill -9 then resume without duplicates."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile

import earmark.testing.stdio_echo_asr as echo_module
from earmark.cli import main
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.writer import write_manifest
from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.base import Clip
from earmark.engines.clip_audio import wav_bytes
from earmark.engines.file_hashes import content_revision
from earmark.errors import EarmarkError
from earmark.execution.arm_loop import model_info_dict
from earmark.rundir.provenance import is_verifiable

ECHO = Path(echo_module.__file__)
PROGRAM = f"{sys.executable} {ECHO}"
WORDS = ("alpha", "beta", "gamma", "delta")


def expected_text(clip: Clip) -> str:
    """What the echo program must answer, computed here from the WAV earmark would write:
    three words from the SHA-256 of its 16-bit samples (read back by libsndfile)."""
    samples, _ = soundfile.read(io.BytesIO(wav_bytes(clip)), dtype="int16")
    digest = hashlib.sha256(samples.astype("<i2").tobytes()).hexdigest()
    return " ".join(WORDS[int(c, 16) % 4] for c in digest[:3])


@pytest.fixture()
def clips() -> list[Clip]:
    t = np.arange(8000, dtype=np.float32) / 16000
    return [
        Clip(f"u{i}", (0.2 * np.sin(2 * np.pi * (150 + 70 * i) * t)).astype(np.float32), 16000)
        for i in range(6)
    ]


def starts(folder: Path) -> list[int]:
    """The pids of the program's starts, in start order (one file each)."""
    files = sorted(folder.iterdir(), key=lambda p: p.stat().st_mtime_ns)
    return [int(p.name) for p in files]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) counts as gone.
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "\nState:\tZ" in status.read_text())


def wait_gone(pids: list[int], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def test_started_once_for_every_clip_and_the_audio_arrives_intact(
    tmp_path: Path, clips: list[Clip]
) -> None:
    count = tmp_path / "starts"
    count.mkdir()
    engine = build_engine(parse_arm_spec(f"stdio:{PROGRAM} --starts-dir {count}"))
    info = engine.load()
    hyps = engine.transcribe(clips[:3], "en") + engine.transcribe(clips[3:], "en")
    assert len(starts(count)) == 1
    assert [h.text for h in hyps] == [expected_text(c) for c in clips]
    assert len({h.text for h in hyps}) > 1  # the clips differ, so the texts prove the audio
    assert all(h.error is None and h.language_used == "en" for h in hyps)
    assert [h.segments[0].end for h in hyps] == [0.5] * 6  # 8000 samples at 16 kHz
    assert info.runtime == "stdio:stdio-echo-asr" and info.runtime_version == "1.0"
    engine.close()
    assert wait_gone(starts(count)), "the program outlived close()"


def test_pcm_input_gives_the_same_samples_as_the_wav_path(clips: list[Clip]) -> None:
    engine = build_engine(parse_arm_spec(f"stdio:{PROGRAM}?audio_input=pcm"))
    engine.load()
    assert [h.text for h in engine.transcribe(clips, None)] == [expected_text(c) for c in clips]
    engine.close()


def test_a_request_carries_language_seed_and_forwarded_settings() -> None:
    engine = build_engine(
        parse_arm_spec(f"stdio:{PROGRAM} --echo-request?set_beam_size=5&set_vad=true")
    )
    engine.load()
    clip = Clip("a b", np.zeros(1600, dtype=np.float32), 16000, seed=42)
    [hyp] = engine.transcribe([clip], "zh")
    assert json.loads(hyp.text) == {
        "id": "a b",
        "type": "transcribe",
        "sample_rate": 16000,
        "language": "zh",
        "seed": 42,
        "settings": {"beam_size": "5", "vad": "true"},
    }
    engine.close()


def test_a_crash_is_that_clips_reason_code_and_later_clips_succeed(
    tmp_path: Path, clips: list[Clip]
) -> None:
    count = tmp_path / "starts"
    count.mkdir()
    engine = build_engine(parse_arm_spec(f"stdio:{PROGRAM} --crash-on u2 --starts-dir {count}"))
    engine.load()
    hyps = engine.transcribe(clips, "en")
    assert [h.error for h in hyps] == [None, None, "stdio_crashed", None, None, None]
    crashed = hyps[2]
    assert crashed.text == "" and crashed.extra["exit_code"] == 3
    assert "crashing on u2 as asked" in crashed.extra["stderr_tail"]
    assert [h.text for h in hyps[3:]] == [expected_text(c) for c in clips[3:]]
    assert hyps[3].extra["restarts_before"] == 1
    assert len(starts(count)) == 2  # once, and once more after the crash
    engine.close()


def test_a_hang_hits_the_timeout_and_the_hung_program_is_killed(
    tmp_path: Path, clips: list[Clip]
) -> None:
    count = tmp_path / "starts"
    count.mkdir()
    engine = build_engine(
        parse_arm_spec(f"stdio:{PROGRAM} --hang-on u1 --starts-dir {count}?timeout=0.5")
    )
    engine.load()
    started = time.perf_counter()
    hyps = engine.transcribe(clips[:3], "en")
    assert time.perf_counter() - started < 10
    assert [h.error for h in hyps] == [None, "timeout", None]
    assert 0.5 <= hyps[1].decode_seconds < 5
    assert hyps[2].text == expected_text(clips[2])
    first, second = starts(count)
    assert wait_gone([first]) and alive(second)
    engine.close()


def test_restarts_are_bounded(tmp_path: Path, clips: list[Clip]) -> None:
    count = tmp_path / "starts"
    count.mkdir()
    spec = f"stdio:{PROGRAM} --crash-on u0 --crash-on u1 --starts-dir {count}?max_restarts=1"
    engine = build_engine(parse_arm_spec(spec))
    engine.load()
    hyps = engine.transcribe(clips[:4], None)
    assert [h.error for h in hyps] == ["stdio_crashed"] * 4
    assert "max_restarts" in hyps[2].extra["detail"] and "max_restarts" in hyps[3].extra["detail"]
    assert len(starts(count)) == 2  # the first start and one restart, no more
    engine.close()


def test_an_error_answer_is_a_reason_code_without_a_restart(
    tmp_path: Path, clips: list[Clip]
) -> None:
    count = tmp_path / "starts"
    count.mkdir()
    engine = build_engine(parse_arm_spec(f"stdio:{PROGRAM} --error-on u0 --starts-dir {count}"))
    engine.load()
    hyps = engine.transcribe(clips[:2], None)
    assert [h.error for h in hyps] == ["stdio_error", None]
    assert hyps[0].extra["message"] == "refused u0 as asked"
    assert len(starts(count)) == 1
    engine.close()


def test_an_answer_out_of_step_is_a_protocol_error_and_the_program_is_replaced(
    tmp_path: Path, clips: list[Clip]
) -> None:
    count = tmp_path / "starts"
    count.mkdir()
    engine = build_engine(parse_arm_spec(f"stdio:{PROGRAM} --wrong-id-on u1 --starts-dir {count}"))
    engine.load()
    hyps = engine.transcribe(clips[:3], None)
    assert [h.error for h in hyps] == [None, "stdio_protocol_error", None]
    assert hyps[1].extra["detail"] == "answer for id 'not-u1' to a request for 'u1'"
    assert hyps[2].text == expected_text(clips[2]) and len(starts(count)) == 2
    engine.close()


def test_lines_that_are_not_json_are_skipped(clips: list[Clip]) -> None:
    engine = build_engine(parse_arm_spec(f"stdio:{PROGRAM} --banner"))
    engine.load()
    assert [h.text for h in engine.transcribe(clips[:2], None)] == [
        expected_text(c) for c in clips[:2]
    ]
    engine.close()


@pytest.mark.parametrize(
    ("program", "message"),
    [
        (f"{PROGRAM} --no-hello", "no hello within start_timeout=0.5 s"),
        (f"{sys.executable} -c 'import sys; sys.exit(4)'", "closed its output"),
        (f"{sys.executable} -c 'print(1)'", "the program closed its output"),
        (
            f'{sys.executable} -c \'print("{{\\"type\\": \\"hello\\", \\"protocol\\": 9}}")\'',
            "speaks protocol 9",
        ),
    ],
)
def test_a_program_that_does_not_say_hello_fails_to_load(program: str, message: str) -> None:
    engine = build_engine(parse_arm_spec(f"stdio:{program}?start_timeout=0.5"))
    with pytest.raises(EarmarkError, match=message):
        engine.load()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (f"stdio:{PROGRAM} {{audio}}", "{audio} in a stdio command line"),
        ("stdio:definitely-not-a-program-xyz", "not found"),
        (f"stdio:{PROGRAM}?audio_input=mp3", "is not one of wav, pcm"),
        (f"stdio:{PROGRAM}?beam_size=5", "unknown setting"),
    ],
)
def test_bad_specs_are_refused_before_anything_starts(spec: str, message: str) -> None:
    with pytest.raises(EarmarkError, match=message):
        build_engine(parse_arm_spec(spec))


def _provenance(info_dict: dict) -> dict:
    return {
        "corpus": {"manifest_sha256": "a" * 64},
        "host": {"cpu_model": "test", "arch": "x86_64"},
        "arms": {"asr": {"model": info_dict}},
    }


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_provenance_hashes_the_program_and_the_declared_model(tmp_path: Path) -> None:
    weights = tmp_path / "weights.bin"
    weights.write_bytes(b"\x00weights\x01")
    info = build_engine(
        parse_arm_spec(f"stdio:{PROGRAM} --model {weights}?model={weights}&name=asr")
    ).load()
    python = Path(sys.executable).resolve()
    expected = {
        python.as_posix(): _sha(python),
        ECHO.resolve().as_posix(): _sha(ECHO),
        weights.resolve().as_posix(): _sha(weights),
    }
    assert info.file_sha256 == expected
    assert info.revision == content_revision(expected)
    assert info.extra["hello"]["model_sha256"] == _sha(weights)  # the program's claim, kept
    assert is_verifiable(_provenance(model_info_dict(info))) == (True, [])


def test_without_a_declared_model_the_arm_is_unverifiable_whatever_the_hello_says(
    tmp_path: Path,
) -> None:
    weights = tmp_path / "weights.bin"
    weights.write_bytes(b"w")
    info = build_engine(parse_arm_spec(f"stdio:{PROGRAM} --model {weights}")).load()
    assert info.extra["verifiable"] is False
    verifiable, missing = is_verifiable(_provenance(model_info_dict(info)))
    assert not verifiable and "declares no model=" in missing[0]


@pytest.mark.parametrize(
    ("flags", "settings", "deterministic", "note"),
    [
        ("", "", True, "declared by the program's hello"),
        ("", "?deterministic=false", False, "the program's hello said true"),
        ("--no-determinism-claim", "", False, "says nothing about determinism"),
        ("--no-determinism-claim", "?deterministic=true", True, "declared by the arm"),
    ],
)
def test_determinism_is_declared_by_the_arm_or_the_hello_never_assumed(
    flags: str, settings: str, deterministic: bool, note: str
) -> None:
    engine = build_engine(parse_arm_spec(f"stdio:{PROGRAM} {flags}".rstrip() + settings))
    info = engine.load()
    engine.close()
    assert info.deterministic is deterministic
    assert info.determinism_note is not None and note in info.determinism_note


# --- `earmark run` end to end --------------------------------------------------------------

#: The same mapping as the echo program, as a per-clip command: the peer the stdio arm
#: must agree with on every clip (both get the WAV earmark writes).
COMMAND_PEER = """import hashlib, sys, soundfile
samples, _ = soundfile.read(sys.argv[1], dtype="int16")
digest = hashlib.sha256(samples.astype("<i2").tobytes()).hexdigest()
print(" ".join(("alpha", "beta", "gamma", "delta")[int(c, 16) % 4] for c in digest[:3]))
"""


def make_corpus(root: Path, n: int) -> Path:
    audio = root / "audio"
    audio.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    rows = []
    for i in range(n):
        samples = (np.sin(np.arange(3200) * (0.01 + i * 0.003)) * 0.3).astype(np.float32)
        samples += rng.normal(0, 0.01, 3200).astype(np.float32)
        soundfile.write(audio / f"c{i:03d}.wav", samples, 16000, subtype="PCM_16")
        rows.append(
            Utterance(id=f"c{i:03d}", audio=f"audio/c{i:03d}.wav", text="alpha beta", language="en")
        )
    manifest = root / "manifest.jsonl"
    meta = CorpusMeta(
        dataset="tones",
        licence="CC0-1.0",
        consent_basis="synthetic",
        redistribute_audio=True,
        redistribute_transcripts=True,
    )
    write_manifest(manifest, rows, meta)
    return manifest


def run_args(manifest: Path, out: Path, *arms: str) -> list[str]:
    args = ["run", "--manifest", str(manifest), "--normalizer", "none", "--bootstrap", "50"]
    for arm in arms:
        args += ["--arm", arm]
    return [*args, "--out", str(out), "--quiet"]


def predictions(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "predictions.jsonl").read_text("utf-8").splitlines()]


def test_earmark_run_starts_the_program_once_and_agrees_with_a_per_clip_command(
    tmp_path: Path,
) -> None:
    manifest = make_corpus(tmp_path / "corpus", 5)
    peer = tmp_path / "peer.py"
    peer.write_text(COMMAND_PEER, "utf-8")
    count = tmp_path / "starts"
    count.mkdir()
    out = tmp_path / "run"
    stdio_arm = f"stdio:{PROGRAM} --starts-dir {count}?model={ECHO}&name=persistent"
    command_arm = f"command:{sys.executable} {peer} {{audio}}?name=per-clip"
    assert main(run_args(manifest, out, stdio_arm, command_arm)) == 0
    rows = predictions(out)
    by_arm: dict[str, dict[str, str]] = {}
    for row in rows:
        assert row["status"] == "ok", row
        by_arm.setdefault(row["arm"], {})[row["id"]] = row["hypothesis"]
    assert list(by_arm["persistent"]) == [f"c{i:03d}" for i in range(5)]
    assert by_arm["persistent"] == by_arm["per-clip"]
    assert len(starts(count)) == 1
    model = json.loads((out / "arms" / "persistent" / "model.json").read_text("utf-8"))
    assert model["backend"] == "stdio" and model["extra"]["hello"]["name"] == "stdio-echo-asr"
    # The program was started inside the egress guard: the audit followed it.
    egress = json.loads((out / "arms" / "persistent" / "egress.json").read_text("utf-8"))
    assert egress["audited"] is True and egress["processes"]["python_audited"] >= 1
    assert wait_gone(starts(count))


def test_kill_9_then_resume_finishes_without_duplicates(tmp_path: Path) -> None:
    manifest = make_corpus(tmp_path / "corpus", 10)
    count = tmp_path / "starts"
    count.mkdir()
    out = tmp_path / "run"
    arm = f"stdio:{PROGRAM} --delay 0.15 --starts-dir {count}?name=slow"
    cmd = [sys.executable, "-m", "earmark", *run_args(manifest, out, arm)]
    store = out / "predictions.jsonl"
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if store.exists() and len(store.read_bytes().splitlines()) >= 3:
            break
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    written = len(store.read_bytes().splitlines())
    assert 0 < written < 10, written  # the kill landed inside the run
    # The orphaned program sees its stdin close and exits: it never outlives earmark.
    assert wait_gone(starts(count))
    final = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert final.returncode == 0, final.stderr
    rows = predictions(out)
    assert [r["id"] for r in rows] == [f"c{i:03d}" for i in range(10)]
    assert all(r["status"] == "ok" for r in rows)
    resources = json.loads((out / "arms" / "slow" / "resources.json").read_text("utf-8"))
    assert resources["session"]["skipped_finished"] >= written
    assert resources["session"]["transcribed"] == 10 - resources["session"]["skipped_finished"]
    assert len(starts(count)) == 2  # one start per earmark process
    clean = tmp_path / "clean"
    assert main(run_args(manifest, clean, arm)) == 0
    assert [r["hypothesis"] for r in predictions(clean)] == [r["hypothesis"] for r in rows]
