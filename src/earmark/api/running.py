"""`earmark.run`, `earmark.plan_freeze`, `earmark.plan_show`: runs and their plans.

`run` groups its keywords (spelled as `earmark run`'s flags) into the typed
`earmark.execution.run_request.RunRequest` the command builds too, and runs it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from earmark.api.values import PathArg, check_choice, check_count, check_out
from earmark.errors import EarmarkError

if TYPE_CHECKING:
    from earmark.execution.plan import FrozenPlan
    from earmark.results import JSONValue, Results


def run(
    *,
    out: PathArg,
    plan: PathArg | None = None,
    manifest: PathArg | None = None,
    expect_sha256: str | None = None,
    audio_root: PathArg | None = None,
    arm: Sequence[str] = (),
    weight_types: str | Sequence[str] | None = None,
    normalizer: str | None = None,
    protocol: str | None = None,
    repeats: int = 1,
    bootstrap: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    cpu_isa: str | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    first: int | None = None,
    distinct_texts: bool = False,
    languages: str | Sequence[str] | None = None,
    allow_network: bool = False,
    require_offline: bool = False,
    allow_missing_audio: bool = False,
    retry_failed: bool = False,
    isolation: Literal["process", "inline"] = "process",
    executor: Literal["local", "ray"] = "local",
    ray_address: str | None = None,
    ray_actors: int = 2,
    ray_cpus_per_actor: float = 1.0,
    ray_gpus_per_actor: float = 0.0,
    ray_max_retries: int = 2,
    csv: bool = False,
    quiet: bool = False,
    cluster: str | None = None,
    min_per_slice: int | None = None,
    min_speakers: int | None = None,
) -> Results:
    """`earmark run --plan PLAN | --manifest MANIFEST --arm SPEC ... --out OUT`.

    Returns the run's typed results (the folder OUT also holds predictions.jsonl,
    provenance.json and results.md, and predictions.csv with `csv`; `quiet` turns off
    the progress bars). A run that wrote its files but whose figures are not a result
    (an arm that did not finish, or produced no hypothesis), exit 1 on the command line,
    raises an `EarmarkError` naming why; its files are kept for the rerun that resumes it.
    `weight_types` and `languages` are lists, or comma-separated as on the command line.
    """
    from earmark.execution.options import RunOptions
    from earmark.execution.run_request import (
        PlanSettings,
        PlanSource,
        RunRequest,
        execute_run,
        failure_message,
    )

    check_out(out)
    for name, value, floor in (
        ("repeats", repeats, 1),
        ("bootstrap", bootstrap, 0),
        ("threads", threads, 1),
        ("batch_size", batch_size, 1),
        ("first", first, 0),
        ("ray_actors", ray_actors, 1),
        ("ray_max_retries", ray_max_retries, 0),
    ):
        check_count(name, value, floor)
    check_choice("isolation", isolation, ("process", "inline"))
    check_choice("executor", executor, ("local", "ray"))
    check_choice("device", device, ("cpu", "cuda"))
    check_choice("cpu_isa", cpu_isa, ("AVX2", "AVX512", "AVX", "GENERIC"))
    if (plan is None) == (manifest is None):
        raise EarmarkError(
            "give one of --plan and --manifest",
            field="plan",
            hint="--plan PLAN.toml, or --manifest MANIFEST with --arm SPEC",
        )
    request = RunRequest(
        out=os.fspath(out),
        source=PlanSource(
            plan=_text(plan),
            expect_sha256=expect_sha256,
            manifest=_text(manifest),
            audio_root=_text(audio_root),
            arms=tuple(arm),
            weight_types=_listed(weight_types),
        ),
        settings=PlanSettings(
            normalizer=normalizer,
            protocol=protocol,
            repeats=repeats,
            bootstrap=bootstrap,
            seed=seed,
            threads=threads,
            cpu_isa=cpu_isa,
            device=device,
            batch_size=batch_size,
            first=first,
            distinct_texts=distinct_texts,
            languages=_listed(languages),
            allow_network=allow_network,
            cluster=cluster,
            min_per_slice=min_per_slice,
            min_speakers=min_speakers,
        ),
        options=RunOptions(
            quiet=quiet,
            isolation=isolation,
            retry_failed=retry_failed,
            command_line=list(sys.argv),
            executor=executor,
            ray_address=ray_address,
            ray_actors=ray_actors,
            ray_max_retries=ray_max_retries,
            ray_cpus_per_actor=ray_cpus_per_actor,
            ray_gpus_per_actor=ray_gpus_per_actor,
            require_offline=require_offline,
            allow_missing_audio=allow_missing_audio,
        ),
    )
    results = execute_run(request)
    if csv:
        from earmark.api.scoring import write_csv

        write_csv(out, command="run")
    message = failure_message(results)
    if message is not None:
        from earmark.rundir.layout import RESULTS

        raise EarmarkError(message, file=str(Path(os.fspath(out)) / RESULTS))
    return results


def _text(path: PathArg | None) -> str | None:
    return None if path is None else os.fspath(path)


def _listed(value: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """Comma-separated text (as on the command line) or a list, as its items (empty ones
    dropped); None when not given."""
    if not value:
        return None
    items = value.split(",") if isinstance(value, str) else value
    return tuple(item for item in items if item)


def plan_freeze(plan: PathArg) -> FrozenPlan:
    """`earmark plan freeze PLAN`: check the plan's structure (no data needed) and write
    PLAN.sha256; returns the plan's SHA-256, the record written and any prompt hash
    recorded in its `[postprocess]` table."""
    from earmark.execution.plan import freeze_plan

    return freeze_plan(plan)


def plan_show(plan: PathArg) -> dict[str, JSONValue]:
    """`earmark plan show PLAN`: the parsed plan, its canonical SHA-256 and the file's,
    and its `[postprocess]` table (what the command prints as JSON)."""
    from earmark.execution.plan import load_plan
    from earmark.postprocess.plan import plan_postprocess
    from earmark.rundir.plan_file import file_sha256, read_plan_toml

    data = read_plan_toml(plan)
    shown: dict[str, JSONValue] = {"file_sha256": file_sha256(plan)}
    if "manifest" in data or "arms" in data or "postprocess" not in data:
        try:
            built = load_plan(plan)
        except EarmarkError:
            # Before the data exists: the structure, with the audio root not yet resolved
            # against the manifest's sidecar (so this canonical hash may still change).
            built = load_plan(plan, resolve_data=False)
            shown["audio_root_resolved"] = False
        shown.update({"sha256": built.sha256(), "plan": built.to_dict()})
    if "postprocess" in data:
        shown["postprocess"] = plan_postprocess(plan).to_dict()
    return shown
