"""Commands that do no linear algebra load numpy with one OpenBLAS thread, and leave the
environment as it was; commands that run an engine keep numpy's default."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from earmark import cli
from earmark.cli import blas_threads

_THREADS = """
import os, sys
from earmark.cli import blas_threads
if sys.argv[1] == "single":
    print(blas_threads.load_numpy_single_threaded())
else:
    import numpy
    print(None)
print(len(os.listdir("/proc/self/task")), os.environ.get("OPENBLAS_NUM_THREADS"))
"""


_THREAD_VARIABLES = {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "GOTO_NUM_THREADS"}


def _threads(mode: str, **env: str) -> list[str]:
    # OpenBLAS also obeys OMP_NUM_THREADS and GOTO_NUM_THREADS, which other tests of the
    # suite set in this process's environment (a CI run saw the control start 1 thread).
    environ = {k: v for k, v in os.environ.items() if k not in _THREAD_VARIABLES}
    done = subprocess.run(
        [sys.executable, "-c", _THREADS, mode],
        capture_output=True, text=True, check=True, env={**environ, **env},
    )  # fmt: skip
    return done.stdout.split()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="threads read from /proc")
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="OpenBLAS starts no thread on one core")
def test_numpy_loads_with_one_thread_and_the_environment_is_put_back() -> None:
    loaded, threads, variable = _threads("single")
    assert (loaded, threads, variable) == ("True", "1", "None")
    # Without it, OpenBLAS starts threads of its own as numpy loads (what the call saves).
    _, threads, _ = _threads("default")
    assert int(threads) > 1


def test_a_users_setting_wins() -> None:
    assert _threads("single", OPENBLAS_NUM_THREADS="2")[0::2] == ["False", "2"]


def test_numpy_already_loaded_is_left_alone() -> None:
    assert "numpy" in sys.modules or __import__("numpy")
    assert blas_threads.load_numpy_single_threaded() is False
    assert "OPENBLAS_NUM_THREADS" not in os.environ or os.environ["OPENBLAS_NUM_THREADS"]


def test_the_process_entry_asks_for_it_for_scoring_commands_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(blas_threads, "load_numpy_single_threaded", lambda: asked.append("x"))
    monkeypatch.setattr(sys, "argv", ["earmark", "normalizers"])
    assert cli._run_command(None) == 0
    assert asked == ["x"]
    assert cli._run_command(["normalizers"]) == 0  # a caller's own argv: not a process entry
    assert asked == ["x"]
    capsys.readouterr()
    # Engines run in these; their latency is measured under numpy's own default.
    assert not blas_threads.COMMANDS & {"run", "demo", "engines", "fetch", "plan", "manifest"}
    assert blas_threads.COMMANDS <= set(cli._MODULE_OF)
