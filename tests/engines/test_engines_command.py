"""The command backend: a working script, a failing program, a hanging one."""

from __future__ import annotations

import hashlib
import stat
import sys
import time
from pathlib import Path

import pytest
import soundfile

from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.base import Clip, Engine
from earmark.engines.file_hashes import content_revision
from earmark.errors import EarmarkError


def script(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


ECHO_AUDIO = """import sys, soundfile
info = soundfile.info(sys.argv[1])
print(f"  {info.samplerate} {info.channels} {info.subtype} {sys.argv[2]}  ")
"""


def test_working_script(tmp_path: Path, tone_clips: list[Clip]) -> None:
    asr = script(tmp_path, "asr with space.py", ECHO_AUDIO)
    engine = build_engine(parse_arm_spec(f"command:'{asr}' {{audio}} {{language}}"))
    assert isinstance(engine, Engine)
    info = engine.load()
    hyps = engine.transcribe(tone_clips, "zh")
    assert [h.text for h in hyps] == ["16000 1 PCM_16 zh"] * 2
    assert all(h.error is None and h.decode_seconds > 0 and h.language_used is None for h in hyps)
    digest = hashlib.sha256(asr.read_bytes()).hexdigest()
    assert info.file_sha256 == {asr.resolve().as_posix(): digest}
    assert info.revision == content_revision(info.file_sha256)
    assert info.artifact_id == f"'{asr}' {{audio}} {{language}}"
    engine.close()


def test_shell_mode_quotes_values(tmp_path: Path, tone_clips: list[Clip]) -> None:
    asr = script(tmp_path, "asr.py", ECHO_AUDIO)
    engine = build_engine(
        parse_arm_spec(f"command:{asr} {{audio}} {{language}} | tr a-z A-Z?shell=true")
    )
    engine.load()
    [hyp] = engine.transcribe(tone_clips[:1], "zh")
    assert hyp.text == "16000 1 PCM_16 ZH"


def test_original_audio_path(tmp_path: Path, tone_clips: list[Clip]) -> None:
    original = tmp_path / "orig.flac"
    soundfile.write(original, tone_clips[0].audio, 16000, format="FLAC")
    clip = Clip("orig", tone_clips[0].audio, 16000, path=str(original))
    asr = script(tmp_path, "asr.py", "import sys; print(sys.argv[1])")
    engine = build_engine(parse_arm_spec(f"command:{asr} {{audio}}?audio_input=original"))
    engine.load()
    [hyp] = engine.transcribe([clip], None)
    assert hyp.text == str(original)


def test_failing_program_is_a_reason_code(tmp_path: Path, tone_clips: list[Clip]) -> None:
    failing = script(
        tmp_path, "fail.py", "import sys\nsys.stderr.write('model exploded')\nsys.exit(3)\n"
    )
    engine = build_engine(parse_arm_spec(f"command:{failing} {{audio}}"))
    engine.load()
    hyps = engine.transcribe(tone_clips, "en")
    assert [h.error for h in hyps] == ["command_failed:3"] * 2
    assert hyps[0].text == "" and "model exploded" in hyps[0].extra["stderr_tail"]


def test_hanging_program_times_out(tmp_path: Path, tone_clips: list[Clip]) -> None:
    hang = script(tmp_path, "hang.py", "import time\ntime.sleep(30)\n")
    engine = build_engine(parse_arm_spec(f"command:{hang} {{audio}}?timeout=0.5"))
    engine.load()
    started = time.perf_counter()
    [hyp] = engine.transcribe(tone_clips[:1], "en")
    assert hyp.error == "timeout"
    assert time.perf_counter() - started < 5


def test_hanging_shell_pipeline_is_killed_whole(tone_clips: list[Clip]) -> None:
    engine = build_engine(
        parse_arm_spec("command:cat {audio} >/dev/null; sleep 30 | cat?shell=true&timeout=0.5")
    )
    engine.load()
    started = time.perf_counter()
    [hyp] = engine.transcribe(tone_clips[:1], "en")
    assert hyp.error == "timeout" and time.perf_counter() - started < 5


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("definitely-not-a-program-xyz {audio}", "not found"),
        ("echo hello", "no {audio} placeholder"),
        ("echo {audio} {speaker}", "unknown placeholder {speaker}"),
        ("echo 'unbalanced {audio}", "cannot split"),
    ],
)
def test_bad_templates(template: str, message: str) -> None:
    with pytest.raises(EarmarkError, match=message):
        build_engine(parse_arm_spec(f"command:{template}"))


def test_braces_that_are_not_placeholders_are_allowed() -> None:
    engine = build_engine(parse_arm_spec("command:awk '{print $1}' {audio}"))
    assert engine.name.startswith("command-awk-")
