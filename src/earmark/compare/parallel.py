"""Run independent pieces of a comparison on several cores (fork), same numbers as serial.

Every bootstrap seeds its own generator with the recorded seed, so which process computes
a figure never changes it; a test checks `jobs=1` and `jobs=2` give identical output.
Workers are forked, so they read the parent's already-counted tables without copying
them; where `fork` is unavailable (Windows) everything runs in this process.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

#: What forked workers read: set by the caller right before `fork_map`, cleared after.
STATE: dict[str, Any] = {}


def default_jobs() -> int:
    """Cores this process may use (affinity-aware where the OS says)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def fork_map(func: Callable[[Any], T], items: Sequence[Any], jobs: int) -> list[T]:
    """`[func(x) for x in items]`, spread over up to `jobs` forked processes, in order."""
    if jobs <= 1 or len(items) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [func(item) for item in items]
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(min(jobs, len(items))) as pool:
        return pool.map(func, items, chunksize=1)
