"""`audio_input=original` hands a `command` arm the manifest's own file (issue 16 item 8):
before, every clip went through a temporary WAV while model.json said "original"."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from earmark.cli import main

#: Prints the name of the file it was given: the test reads it back as the hypothesis.
WHO = "import os, sys\nprint(os.path.basename(sys.argv[1]))\n"


def _run(tmp_path: Path, manifest: Path, settings: str, out: str) -> list[dict]:
    script = tmp_path / "who.py"
    script.write_text(WHO, "utf-8")
    arm = f"command:{sys.executable} {script} {{audio}}?name=who{settings}"
    args = ["run", "--manifest", str(manifest), "--arm", arm, "--normalizer", "none"]
    assert main([*args, "--bootstrap", "0", "--out", str(tmp_path / out), "--quiet"]) == 0
    text = (tmp_path / out / "predictions.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


def test_original_audio_reaches_the_program(tmp_path: Path, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    rows = _run(tmp_path, manifest, "&audio_input=original", "original")
    assert [r["hypothesis"] for r in rows] == ["c000.wav", "c001.wav"]
    default = _run(tmp_path, manifest, "", "wav")
    assert all(r["hypothesis"].startswith("clip-") for r in default)  # a temporary WAV
