"""Engine plug-ins: a distribution installed in a temporary site folder (a module and a
`.dist-info` with `entry_points.txt`) adds backends through the `earmark.engines`
entry-point group; they are listed by `earmark engines`, run by `earmark run`, and a
broken one is listed with its error without breaking the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import soundfile

from earmark.cli import main
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.writer import write_manifest
from earmark.engines import BACKENDS

PLUGIN_MODULE = '''
"""A toy recogniser shipped by a third party."""

import time

from earmark.engines.base import Hypothesis, ModelInfo
from earmark.engines.settings import SettingsReader


class ToyEngine:
    """Toy engine: answers the model string and the number of samples."""

    backend_info = {
        "summary": "toy recogniser from a plug-in",
        "formats": "any string",
        "languages": "echoes none",
        "timestamps": "none",
        "provenance": "the model string",
    }

    def __init__(self, arm, suffix):
        self.arm = arm
        self.name = arm.name
        self.suffix = suffix

    @classmethod
    def check_spec(cls, arm):
        reader = SettingsReader(arm)
        suffix = reader.text("suffix", "")
        reader.finish()
        return suffix

    @classmethod
    def from_spec(cls, arm):
        return cls(arm, cls.check_spec(arm))

    def load(self):
        return ModelInfo(
            backend="toy",
            artifact_id=self.arm.model,
            revision="toy-1",
            file_sha256={},
            licence=None,
            licence_source=None,
            runtime="toy",
            runtime_version="0.1",
            compute_type=None,
            load_seconds=0.0,
            deterministic=True,
            determinism_note="a function of the samples' count",
            extra={"own": "kept"},
        )

    def transcribe(self, clips, language):
        started = time.perf_counter()
        return [
            Hypothesis(
                id=c.id,
                text=f"{self.arm.model} {len(c.audio)}{self.suffix}",
                decode_seconds=time.perf_counter() - started,
                language_requested=language,
            )
            for c in clips
        ]

    def close(self):
        pass


NOT_AN_ENGINE = object()
'''

ENTRY_POINTS = """\
[earmark.engines]
toy = earmark_toy_plugin:ToyEngine
broken-import = earmark_toy_missing_module:Engine
not-an-engine = earmark_toy_plugin:NOT_AN_ENGINE
command = earmark_toy_plugin:ToyEngine
"""


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    """A folder laid out as `pip install -t` leaves it: the module and its dist-info."""
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "earmark_toy_plugin.py").write_text(textwrap.dedent(PLUGIN_MODULE), "utf-8")
    info = folder / "earmark_toy_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: earmark-toy-plugin\nVersion: 0.1\n", "utf-8"
    )
    (info / "entry_points.txt").write_text(ENTRY_POINTS, "utf-8")
    return folder


@pytest.fixture()
def installed(site: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The site folder on this process's path (and the plug-in module forgotten after)."""
    monkeypatch.syspath_prepend(str(site))
    yield site
    sys.modules.pop("earmark_toy_plugin", None)


def test_listing_shows_the_plugin_and_each_broken_one_with_its_error(
    installed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["engines"]) == 0
    out = capsys.readouterr().out
    for name in BACKENDS:
        assert f"{name}: " in out
    assert "toy: toy recogniser from a plug-in\n" in out
    assert "  extra:        none (plug-in from earmark-toy-plugin 0.1)\n" in out
    assert "  formats:      any string\n" in out
    assert (
        "broken-import: BROKEN plug-in from earmark-toy-plugin 0.1 "
        "(earmark_toy_missing_module:Engine)\n"
        "  error:        ModuleNotFoundError: No module named 'earmark_toy_missing_module'\n"
    ) in out
    assert "not-an-engine: BROKEN plug-in" in out and "has no from_spec or check_spec" in out
    assert "a plug-in cannot replace it" in out  # `command` is built in
    # The built-in command backend is still the built-in one.
    assert out.count("\ncommand: any external program") == 1


def test_json_listing_puts_plugins_after_the_built_ins(
    installed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["engines", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    names = [r["name"] for r in rows]
    assert names[: len(BACKENDS)] == list(BACKENDS)
    assert names[len(BACKENDS) :] == ["toy", "broken-import", "command", "not-an-engine"]
    toy = rows[len(BACKENDS)]
    assert toy["plugin"] == "earmark-toy-plugin 0.1" and toy["installed"] is True
    assert all(r["plugin"] is None for r in rows[: len(BACKENDS)])
    broken = {r["name"]: r for r in rows[len(BACKENDS) + 1 :]}
    assert broken["broken-import"]["installed"] is False
    assert broken["broken-import"]["error"].startswith("ModuleNotFoundError")


def test_check_uses_the_plugins_own_settings(
    installed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["engines", "--check", "toy:hello?suffix=!&name=t"]) == 0
    assert capsys.readouterr().out.startswith("ok  t  {")
    assert main(["engines", "--check", "toy:hello?beam=5"]) == 2
    assert "unknown setting for this backend" in capsys.readouterr().err
    assert main(["engines", "--check", "broken-import:x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "plug-in backend 'broken-import' (earmark-toy-plugin 0.1) is broken" in err


def test_without_the_plugin_its_backend_is_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["engines", "--check", "toy:hello"]) == 2
    assert "unknown backend 'toy'" in capsys.readouterr().err


def _corpus(root: Path) -> Path:
    (root / "audio").mkdir(parents=True)
    rows = []
    for i, n in enumerate((1600, 2400)):
        soundfile.write(root / "audio" / f"c{i}.wav", np.zeros(n, dtype=np.float32), 16000)
        rows.append(Utterance(id=f"c{i}", audio=f"audio/c{i}.wav", text="x", language="en"))
    meta = CorpusMeta(
        dataset="silence",
        licence="CC0-1.0",
        consent_basis="synthetic",
        redistribute_audio=True,
        redistribute_transcripts=True,
    )
    write_manifest(root / "manifest.jsonl", rows, meta)
    return root / "manifest.jsonl"


def test_earmark_run_runs_a_plugin_arm_and_records_the_plugin(site: Path, tmp_path: Path) -> None:
    """A fresh process with the site folder on PYTHONPATH, as an installed plug-in is
    seen: the arm's own process (spawned) finds it too."""
    manifest = _corpus(tmp_path / "corpus")
    out = tmp_path / "run"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
    }
    listing = subprocess.run(
        [sys.executable, "-m", "earmark", "engines"], capture_output=True, text=True, env=env
    )
    assert listing.returncode == 0 and "toy: toy recogniser from a plug-in" in listing.stdout
    cmd = [
        sys.executable, "-m", "earmark", "run", "--manifest", str(manifest),
        "--arm", "toy:hello?suffix=!&name=toy", "--normalizer", "none",
        "--bootstrap", "20", "--out", str(out), "--quiet",
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text("utf-8").splitlines()]
    assert [(r["id"], r["status"], r["hypothesis"]) for r in rows] == [
        ("c0", "ok", "hello 1600!"),
        ("c1", "ok", "hello 2400!"),
    ]
    model = json.loads((out / "arms" / "toy" / "model.json").read_text("utf-8"))
    assert model["backend"] == "toy" and model["extra"]["own"] == "kept"
    assert model["extra"]["plugin"] == {
        "backend": "toy",
        "distribution": "earmark-toy-plugin 0.1",
        "entry_point": "earmark_toy_plugin:ToyEngine",
    }


def test_a_run_with_a_broken_plugin_arm_is_refused_in_one_line(
    installed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = _corpus(tmp_path / "corpus")
    args = ["run", "--manifest", str(manifest), "--arm", "not-an-engine:x"]
    assert main([*args, "--out", str(tmp_path / "run"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no from_spec or check_spec" in err
    assert not (tmp_path / "run").exists()
