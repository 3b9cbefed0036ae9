"""The cores this process may run on: one answer for every part that sizes its work by them.

The bootstrap's threads, compare's forked workers and a run's provenance (`cores_available`)
all mean the same thing by "the cores"; it lives here, without numpy, so a caller that only
counts cores imports nothing heavy.
"""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity where the OS tells it (a
    container or `taskset` may allow fewer than the machine has), else the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
