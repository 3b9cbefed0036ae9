"""The plan file (`PLAN.toml`): its top-level keys, its TOML read with every problem naming
the file, and the frozen-plan check (`--expect-sha256`).

Plan-file knowledge sits here, below `run` and `postprocess`, because both read plans:
`run` builds a `RunPlan` from one and `postprocess` a post-processing plan.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from earmark.artefacts import sha256_file
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.records import require_regular_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: Every top-level key a plan may hold; anything else is refused by name.
PLAN_KEYS = {
    "manifest",
    "audio_root",
    "normalizer",
    "repeats",
    "bootstrap",
    "seed",
    "selection",
    "audio",
    "arms",
    "allow_network",
    "batch_size",
    "protocol",
    "threads",
    "cpu_isa",
    "ceilings",
    "postprocess",
    "cluster",
    "min_per_slice",
    "min_speakers",
}


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The plan file's SHA-256 (what `--expect-sha256` and `plan freeze` record)."""
    return sha256_file(path)


def read_plan_toml(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A plan file's TOML, its top-level keys checked; every problem names the file."""
    p = Path(path)
    require_regular_file(p)
    try:
        data: dict[str, Any] = tomllib.loads(p.read_text("utf-8"))
    except FileNotFoundError:
        raise EarmarkError("plan file not found", file=str(p)) from None
    except UnicodeDecodeError:
        raise EarmarkError("plan file is not UTF-8", file=str(p)) from None
    except tomllib.TOMLDecodeError as exc:
        raise EarmarkError(f"invalid TOML: {exc}", file=str(p)) from None
    unknown = sorted(set(data) - PLAN_KEYS)
    if unknown:
        raise EarmarkError(
            f"unknown plan key(s) {', '.join(unknown)}", file=str(p), field=unknown[0]
        )
    return data


def check_frozen(path: str | os.PathLike[str], expected: str) -> str:
    """The plan's SHA-256 when it equals `expected` and names no moving hub ref; else an
    error saying what changed."""
    digest = file_sha256(path)
    if digest != expected.strip().lower():
        raise EarmarkError(
            f"plan changed since it was frozen: sha256 {digest} != expected {expected}",
            file=str(path),
            hint="a frozen plan must not change; freeze a new plan and record the deviation",
        )
    arms = read_plan_toml(path).get("arms")
    if isinstance(arms, list):
        from earmark.engines.model_source import refuse_moving_refs

        specs = [ArmSpec.from_mapping(a, file=str(path)) for a in arms if isinstance(a, dict)]
        refuse_moving_refs(specs, look_up=False, file=str(path))
    return digest
