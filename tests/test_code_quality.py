"""The house rules, checked in CI: ruff on everything, mypy strict on the whole of src/."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is installed by the test extra")
def test_ruff_clean() -> None:
    out = _run("ruff", "check", "src", "tests", "benchmarks", "scripts")
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_strict_on_all_of_src() -> None:
    pytest.importorskip("mypy", reason="mypy is installed by the test extra")
    out = _run(sys.executable, "-m", "mypy")  # files and strictness come from pyproject.toml
    assert out.returncode == 0, out.stdout + out.stderr
