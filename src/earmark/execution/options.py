"""How a run is executed and recorded, apart from what its plan asks for.

Light on purpose (no executor, scorer or corpus code at import): the command line builds
these options for every `earmark run` before anything is decided.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Literal

Isolation = Literal["process", "inline"]


@dataclass(frozen=True)
class RunOptions:
    """How a plan is executed and recorded (not what it asks for: that is the plan)."""

    quiet: bool = False
    isolation: Isolation = "process"
    retry_failed: bool = False
    command_line: list[str] = field(default_factory=lambda: list(sys.argv))
    plan_file: str | None = None
    plan_file_sha256: str | None = None
    #: `local` (each arm in its own process, or inline) or `ray` (actors on a cluster).
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    ray_actors: int = 2
    ray_max_retries: int = 2
    ray_cpus_per_actor: float = 1.0
    ray_gpus_per_actor: float = 0.0
    #: Refuse, before anything runs, an arm whose programs cannot be run without a
    #: network on this machine (`--require-offline`).
    require_offline: bool = False
    #: Run the clips whose audio is missing as `missing_file` rows (deletions) instead of
    #: refusing the run (`--allow-missing-audio`).
    allow_missing_audio: bool = False
