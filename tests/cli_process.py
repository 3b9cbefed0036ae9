"""Running the real `earmark` CLI in its own process, as the output-integrity tests do.

A separate process is the point: the output-folder lock and the file-size limit
(`RLIMIT_FSIZE`, how a full disk is simulated) are per process, so the CLI cannot be
called in-process for these checks.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

from earmark.outputs import LOCK_NAME


def earmark(*args: str, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m earmark ARGS`, its files capped at `limit` bytes when given."""

    def file_size_limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "earmark", *args],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=file_size_limit if limit is not None else None,
    )


def one_error_line(stderr: str) -> str:
    """The CLI's single `earmark: error: ...` line; fails the test on anything else."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("earmark: error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


def wait_until_it_holds(process: subprocess.Popen[bytes], folder: Path) -> None:
    """Return once `process` has written its pid into `folder`'s lock, has ended, or two
    minutes have passed; the caller asserts which (a stopped holder makes a second writer's
    refusal deterministic, a killed one tests the cleanup)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        lock = folder / LOCK_NAME
        if lock.exists() and lock.read_text().strip() == str(process.pid):
            return
        time.sleep(0.002)
