"""Reading a run's `provenance.json` and judging whether its result can be verified.

Seed 000 forbids publishing a winner without model revision (or file hashes), corpus hash
and host profile. `earmark run` records them (`earmark.execution.provenance` collects the host
and software half); the report, the leaderboard and the decision record all ask the same
question of what was recorded, so the rule is written once, here, beside the reader.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from earmark.results.codec import JSONValue
from earmark.rundir.json_records import read_json_record
from earmark.rundir.layout import PROVENANCE

#: Why a results file without provenance.json can never be verified.
NO_PROVENANCE = f"{PROVENANCE} (model revision, corpus hash and host profile not recorded)"


def read_provenance(folder: str | os.PathLike[str]) -> dict[str, JSONValue] | None:
    """The folder's provenance record; None when it has none (an `earmark score` output).

    An empty file is refused rather than read as "no provenance": it is a write that was
    interrupted, and a report would otherwise call a verifiable run unverifiable."""
    return read_json_record(Path(folder) / PROVENANCE)


def is_verifiable(provenance: Mapping[str, Any]) -> tuple[bool, list[str]]:
    """Seed 000: a result without model revision/hashes, corpus hash and host profile
    cannot be verified. Returns (verifiable, what is missing)."""
    missing = []
    if not provenance.get("corpus", {}).get("manifest_sha256"):
        missing.append("corpus manifest sha256")
    host = provenance.get("host") or {}
    if not host.get("cpu_model") or not host.get("arch"):
        missing.append("host profile")
    for name, arm in (provenance.get("arms") or {}).items():
        model = arm.get("model") or {}
        if not model.get("file_sha256") and not model.get("revision"):
            missing.append(f"model revision or file hashes of arm {name}")
        elif (model.get("extra") or {}).get("verifiable") is False:
            # The engine knows its hashes miss the weights (a command without model=).
            reason = (model.get("extra") or {}).get("unverifiable_reason")
            missing.append(str(reason or f"arm {name} is declared unverifiable by its engine"))
    return (not missing, missing)


def arm_verifiable(
    provenance: Mapping[str, Any] | None, arm: str | None = None
) -> tuple[bool, list[str]]:
    """`is_verifiable` of a folder's record (None: it has none), restricted to one arm when
    given, so that another arm's missing hashes don't taint this one."""
    if provenance is None:
        return False, [NO_PROVENANCE]
    if arm is not None:
        arms = provenance.get("arms") or {}
        if arm not in arms:
            _, missing = is_verifiable({**provenance, "arms": {}})
            return False, [*missing, f"model revision or file hashes of arm {arm}"]
        provenance = {**provenance, "arms": {arm: arms[arm]}}
    return is_verifiable(provenance)
