"""The local executor: one arm in this process, its rows appended to the store as they come.

This is what happens inside one arm's process (one process per weight type, so memory
and CPU figures belong to that arm alone). The loop itself is `arm_loop.ArmLoop`, shared
with the Ray actor; here it gets every clip of the arm at once, hands each row to the
crash-safe store and reports progress per clip. Finished rows whose cache key still
matches are skipped, so a killed run resumes where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from earmark.corpus.model import Utterance
from earmark.engines.spec import ArmSpec
from earmark.execution.arm_loop import ArmLoop, ArmTally, Row, model_info_dict, work_items
from earmark.execution.plan import RunPlan
from earmark.execution.progress import ClipProgress
from earmark.execution.resources import peak_rss_bytes
from earmark.execution.store import PredictionStore
from earmark.outputs import atomic_write_json
from earmark.rundir.layout import (
    ARM_EGRESS,
    ARM_MODEL,
    ARM_RESOURCES,
    PREDICTIONS,
    arm_folder,
)

__all__ = ["run_arm"]


def run_arm(
    plan: RunPlan,
    spec: ArmSpec,
    utterances: Sequence[Utterance],
    out_dir: Path,
    *,
    retry_failed: bool = False,
    quiet: bool = False,
) -> dict[str, Any]:
    """Load the arm's model once and transcribe every clip not already finished.

    Writes `arms/<name>/model.json`, `resources.json` and `egress.json`; returns
    `{"transcribed", "skipped", "failed"}`.
    """
    arm_dir = arm_folder(out_dir, spec.name)
    arm_dir.mkdir(parents=True, exist_ok=True)
    store = PredictionStore(out_dir / PREDICTIONS)
    existing = store.latest()
    wall_start = time.perf_counter()
    loop = ArmLoop(plan, spec)
    tally = ArmTally()

    def stored(row: Row) -> None:
        store.append(row)
        tally.add(row)

    # One guard for the arm's whole life: load, every clip, and closing the engine.
    with loop.guard:
        try:
            info = loop.load()
            assert loop.fingerprint is not None
            atomic_write_json(arm_dir / ARM_MODEL, model_info_dict(info))
            items, tally.skipped = work_items(
                existing,
                loop.spec.name,
                utterances,
                repeats=plan.repeats,
                retry_failed=retry_failed,
                fingerprint=loop.fingerprint,
            )
            with ClipProgress(loop.spec.name, len(items), quiet) as advance:
                done = loop.transcribe(items, stored, advance)
            tally.skipped += done.skipped
            tally.add_earlier(
                existing,
                utterances,
                arm=loop.spec.name,
                repeats=plan.repeats,
                fingerprint=loop.fingerprint,
                arm_dir=arm_dir,
            )
        finally:
            loop.close()
            store.close()
    resources = tally.resources(
        load_seconds=info.load_seconds,
        rss_after_load_bytes=loop.rss_after_load,
        peak_rss_bytes=peak_rss_bytes(),
        cpu_seconds=done.cpu_seconds,
        wall_seconds=time.perf_counter() - wall_start,
        model_size_bytes=info.size_bytes,
        spec=loop.spec,
        plan=plan,
    )
    resources["environment"] = loop.environment
    atomic_write_json(arm_dir / ARM_RESOURCES, resources)
    atomic_write_json(arm_dir / ARM_EGRESS, loop.guard.record())
    return tally.summary()
