"""Who ran what, where: the record that makes a result auditable and reproducible.

Seed 000 forbids publishing a winner without model revision, corpus hash and host
profile; this module collects the host and software half (the model half comes from
each engine's `ModelInfo`). Whether a recorded result can be verified is judged where
the record is read, `earmark.rundir.provenance.is_verifiable`.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from earmark import __version__
from earmark.engines.cpu_runtime import PIN_VARIABLES, cpu_flags
from earmark.stats.cores import usable_cores

#: Packages whose versions can change a number; recorded when installed.
TRACKED_PACKAGES = (
    "earmark",
    "numpy",
    "rapidfuzz",
    "soundfile",
    "soxr",
    "opencc",
    "faster-whisper",
    "ctranslate2",
    "tokenizers",
    "onnxruntime",
    "av",
    "pyarrow",
    "rich",
    "transformers",
    "torch",
    "ray",
)
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "CT2_USE_EXPERIMENTAL_PACKED_GEMM",
    "OPENBLAS_CORETYPE",
)


def package_versions() -> dict[str, str]:
    out = {}
    for name in TRACKED_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def git_commit(path: Path | None = None) -> str | None:
    """The commit of the earmark source tree, when it is a git checkout."""
    where = path or Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "-C", str(where), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    dirty = subprocess.run(
        ["git", "-C", str(where), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        timeout=5,
        check=False,
    )
    commit = out.stdout.strip()
    return commit + ("+dirty" if dirty.stdout.strip() else "")


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def cpu_model() -> str | None:
    info = _read("/proc/cpuinfo")
    if info:
        for line in info.splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    return platform.processor() or None


def total_memory_bytes() -> int | None:
    info = _read("/proc/meminfo")
    if info:
        for line in info.splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return None


def host_profile() -> dict[str, object]:
    return {
        "os": platform.system(),
        "os_release": platform.release(),
        "arch": platform.machine(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "cores_available": usable_cores(),
        "memory_bytes": total_memory_bytes(),
        "cpu_governor": _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        # Which kernels numeric runtimes may pick (avx2/avx512/vnni...): results can differ.
        "cpu_flags": cpu_flags(),
        "hostname_recorded": False,
    }


def software_profile() -> dict[str, object]:
    return {
        "earmark_version": __version__,
        "earmark_git_commit": git_commit(),
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "packages": package_versions(),
        "thread_environment": {k: os.environ[k] for k in THREAD_VARIABLES if k in os.environ},
        "code_path_environment": {k: os.environ[k] for k in PIN_VARIABLES if k in os.environ},
    }
