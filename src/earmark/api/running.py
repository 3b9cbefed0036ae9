"""`earmark.run`, `earmark.plan_freeze`, `earmark.plan_show`: runs and their plans.

Until the run request moves into `earmark.execution` (its own typed entry point), the
plan is built here from the keywords, as `earmark run` builds it from its flags: the
same refusals, word for word, and the same `RunPlan`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from earmark.api.values import PathArg, check_choice, check_count, check_out
from earmark.errors import EarmarkError

if TYPE_CHECKING:
    from earmark.engines.spec import ArmSpec
    from earmark.execution.plan import FrozenPlan, RunPlan
    from earmark.execution.runner import RunOptions
    from earmark.results import JSONValue, Results

#: Backends whose arm settings take `device` (cpu or cuda), and the runtime that must see
#: a CUDA device for `device=cuda` to load: CTranslate2 for faster-whisper, torch otherwise.
DEVICE_BACKENDS = {
    "faster-whisper": "ctranslate2",
    "funasr": "torch",
    "qwen3-asr": "torch",
    "transformers-ctc": "torch",
    "transformers-seq2seq": "torch",
}
#: Backends whose arm settings take `batch_size` (clips decoded in one forward pass).
BATCH_BACKENDS = ("qwen3-asr", "transformers-ctc", "transformers-seq2seq")


@dataclass(frozen=True)
class RunSource:
    """Where the run's plan comes from: a plan file (frozen or not), or a manifest with
    arms given here."""

    plan: PathArg | None = None
    manifest: PathArg | None = None
    expect_sha256: str | None = None
    audio_root: PathArg | None = None
    arms: tuple[str, ...] = ()
    weight_types: str | None = None


@dataclass(frozen=True)
class RunFigures:
    """What is measured: the normaliser policy or protocol, repeats, bootstrap and seed,
    the bootstrap unit and the pre-registered minimums."""

    normalizer: str | None = None
    protocol: str | None = None
    repeats: int = 1
    bootstrap: int | None = None
    seed: int | None = None
    cluster: str | None = None
    min_per_slice: int | None = None
    min_speakers: int | None = None


@dataclass(frozen=True)
class RunHardware:
    """How each arm decodes: threads, CPU code path, device and batch."""

    threads: int | None = None
    cpu_isa: str | None = None
    device: str | None = None
    batch_size: int | None = None


@dataclass(frozen=True)
class RowSelection:
    """Which manifest rows are run: the first N (of distinct texts), some languages."""

    first: int | None = None
    distinct_texts: bool = False
    languages: str | None = None

    def to_plan(self) -> dict[str, JSONValue]:
        """The plan's `selection` table."""
        selection: dict[str, JSONValue] = {}
        if self.first is not None:
            selection["first"] = self.first
        if self.distinct_texts:
            selection["distinct_texts"] = True
        if self.languages:
            selection["languages"] = [s for s in self.languages.split(",") if s]
        return selection


def run(
    *,
    out: PathArg,
    plan: PathArg | None = None,
    manifest: PathArg | None = None,
    expect_sha256: str | None = None,
    audio_root: PathArg | None = None,
    arm: Sequence[str] = (),
    weight_types: str | None = None,
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
    languages: str | None = None,
    allow_network: bool = False,
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
    provenance.json and results.md; `quiet` turns off the progress bars). A run that
    wrote its files but whose figures are not a result (an arm that did not finish, or
    produced no hypothesis), exit 1 on the command line, raises an `EarmarkError` naming
    why; its files are kept for the rerun that resumes it.
    """
    from earmark.execution.runner import RunOptions

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
    source = RunSource(plan, manifest, expect_sha256, audio_root, tuple(arm), weight_types)
    figures = RunFigures(
        normalizer, protocol, repeats, bootstrap, seed, cluster, min_per_slice, min_speakers
    )
    hardware = RunHardware(threads, cpu_isa, device, batch_size)
    built, plan_sha = build_plan(
        source, figures, hardware, RowSelection(first, distinct_texts, languages), allow_network
    )
    options = RunOptions(
        quiet=quiet,
        isolation=isolation,
        retry_failed=retry_failed,
        command_line=list(sys.argv),
        plan_file=None if plan is None else os.fspath(plan),
        plan_file_sha256=plan_sha,
        executor=executor,
        ray_address=ray_address,
        ray_actors=ray_actors,
        ray_max_retries=ray_max_retries,
        ray_cpus_per_actor=ray_cpus_per_actor,
        ray_gpus_per_actor=ray_gpus_per_actor,
    )
    return run_built(built, out, options, csv=csv)


def run_built(plan: RunPlan, out: PathArg, options: RunOptions, *, csv: bool = False) -> Results:
    """Run a built plan into `out` (devices checked first on a local executor) and
    return its typed results, refusing figures that are not a result."""
    from earmark.execution.runner import run_plan
    from earmark.results import Results

    if options.executor == "local":  # a Ray cluster's workers may have devices this host lacks
        check_devices(plan.arms)
    results = Results.from_dict(run_plan(plan, out, options), copy=False)
    if csv:
        from earmark.api.scoring import write_csv

        write_csv(out, command="run")
    message = failure_message(results)
    if message is not None:
        raise EarmarkError(message, file=str(Path(os.fspath(out)) / "results.json"))
    return results


def build_plan(
    source: RunSource,
    figures: RunFigures,
    hardware: RunHardware,
    rows: RowSelection,
    allow_network: bool,
) -> tuple[RunPlan, str | None]:
    """The `RunPlan` the keywords describe, and the plan file's SHA-256 when one is read."""
    from earmark.execution.plan import check_frozen, file_sha256, load_plan
    from earmark.execution.sweep import expand_weight_types

    if (source.plan is None) == (source.manifest is None):
        raise EarmarkError(
            "give one of --plan and --manifest",
            field="plan",
            hint="--plan PLAN.toml, or --manifest MANIFEST with --arm SPEC",
        )
    plan_sha = None
    if source.plan is not None:
        if source.expect_sha256:
            plan_sha = check_frozen(source.plan, source.expect_sha256)
        else:
            plan_sha = file_sha256(source.plan)
        plan = load_plan(source.plan)
        _refuse_plan_file_flags(plan, source, figures, hardware)
    else:
        plan = _manifest_plan(source, figures, hardware, rows, allow_network)
    if source.weight_types:
        plan = expand_weight_types(plan, [w for w in source.weight_types.split(",") if w])
    return plan, plan_sha


def _refuse_plan_file_flags(
    plan: RunPlan, source: RunSource, figures: RunFigures, hardware: RunHardware
) -> None:
    """With a plan file, what it fixes goes in the file, never beside it."""
    if source.arms:
        raise EarmarkError("--arm goes in the plan file when --plan is used", field="arm")
    if hardware.device is not None or hardware.batch_size is not None:
        raise EarmarkError(
            "--device and --batch-size go in the plan file when --plan is used",
            field="device" if hardware.device is not None else "batch_size",
            hint='write `batch_size = N` in the plan and `device = "cuda"` in the arms\' settings',
        )
    if hardware.threads is not None or hardware.cpu_isa is not None:
        raise EarmarkError(
            "--threads and --cpu-isa go in the plan file when --plan is used",
            field="threads",
            hint='write `threads = N` or `cpu_isa = "AVX2"` in the plan',
        )
    given = [
        name
        for name, value in (
            ("cluster", figures.cluster),
            ("min_per_slice", figures.min_per_slice),
            ("min_speakers", figures.min_speakers),
        )
        if value is not None
    ]
    if given:
        raise EarmarkError(
            f"--{given[0].replace('_', '-')} goes in the plan file when --plan is used",
            field=given[0],
            hint="write `cluster`, `min_per_slice` or `min_speakers` in the plan",
        )
    if figures.protocol is not None and figures.protocol != plan.protocol:
        raise EarmarkError(
            f"--protocol {figures.protocol} differs from the plan's protocol "
            f"({plan.protocol or 'none'})",
            field="protocol",
            hint=f'write `protocol = "{figures.protocol}"` in the plan file instead',
        )


def _manifest_plan(
    source: RunSource,
    figures: RunFigures,
    hardware: RunHardware,
    rows: RowSelection,
    allow_network: bool,
) -> RunPlan:
    """The plan of a manifest and arms given as specs."""
    from earmark.engines.spec import parse_arm_spec
    from earmark.execution.plan import RunPlan, default_audio_root
    from earmark.scoring.protocols import resolve

    if source.expect_sha256:
        raise EarmarkError("--expect-sha256 needs --plan", field="expect-sha256")
    if not source.arms:
        raise EarmarkError("give at least one --arm SPEC", field="arm")
    assert source.manifest is not None
    arms = arm_settings(
        tuple(parse_arm_spec(s) for s in source.arms), hardware.device, hardware.batch_size
    )
    choice = resolve(
        figures.protocol,
        normalizer=figures.normalizer,
        resamples=figures.bootstrap,
        seed=figures.seed,
        default_normalizer="auto",
    )
    manifest = Path(os.fspath(source.manifest)).resolve()
    audio_root = None if source.audio_root is None else os.fspath(source.audio_root)
    return RunPlan(
        manifest=str(manifest),
        audio_root=str(default_audio_root(manifest, audio_root)),
        arms=arms,
        normalizer=choice.normalizer,
        repeats=figures.repeats,
        bootstrap=choice.resamples,
        seed=choice.seed,
        selection=rows.to_plan(),
        allow_network=allow_network,
        protocol=figures.protocol,
        threads=1 if hardware.threads is None else hardware.threads,
        cpu_isa=hardware.cpu_isa,
        batch_size=hardware.batch_size or 1,
        cluster=figures.cluster or "clip",
        min_per_slice=figures.min_per_slice,
        min_speakers=figures.min_speakers,
    )


def arm_settings(
    arms: tuple[ArmSpec, ...], device: str | None, batch_size: int | None
) -> tuple[ArmSpec, ...]:
    """Each arm with `device` and `batch_size` set where its backend takes them and it
    sets none itself: part of the arm's canonical form (and every row's cache key), so
    rows decoded on another device or batch are not reused."""
    if device is not None and not any(a.backend in DEVICE_BACKENDS for a in arms):
        raise EarmarkError(
            f"--device {device}: no arm here takes a device",
            field="device",
            hint="--device applies to " + ", ".join(DEVICE_BACKENDS),
        )
    added: list[ArmSpec] = []
    for spec in arms:
        settings = spec.settings_dict
        extra = []
        if device is not None and spec.backend in DEVICE_BACKENDS and "device" not in settings:
            extra.append(("device", device))
        if (
            batch_size is not None
            and spec.backend in BATCH_BACKENDS
            and "batch_size" not in settings
        ):
            extra.append(("batch_size", str(batch_size)))
        added.append(replace(spec, settings=(*spec.settings, *extra)) if extra else spec)
    return tuple(added)


def check_devices(arms: tuple[ArmSpec, ...]) -> None:
    """Refuse `device=cuda` up front when the backend's runtime sees no CUDA device,
    rather than let the arm die at load with the runtime's traceback. A runtime that is
    not installed is left to the load, which names the extra to install."""
    import importlib

    for spec in arms:
        runtime = DEVICE_BACKENDS.get(spec.backend)
        if runtime is None or spec.settings_dict.get("device") != "cuda":
            continue
        try:
            module = importlib.import_module(runtime)
        except ImportError:
            continue
        found = (
            module.get_cuda_device_count() > 0
            if runtime == "ctranslate2"
            else bool(module.cuda.is_available())
        )
        if not found:
            raise EarmarkError(
                f"arm {spec.name!r} asks for device cuda, but {runtime} sees no CUDA device "
                "on this machine",
                field="device",
                hint="use --device cpu (or device=cpu in the arm), or run where a GPU and "
                f"a CUDA build of {runtime} are installed",
            )


def failure_message(results: Results) -> str | None:
    """One line saying why a finished run is not a result (exit 1 on the command line),
    or None: an arm that did not finish, an arm with no hypothesis for any clip, or a run
    in which every clip failed to load."""
    arms = results.arms
    not_finished = [name for name, a in arms.items() if a.arm_exit_code]
    failures = {str(f["arm"]): f for f in results.failures or ()}
    if (
        arms
        and set(failures) == set(arms)
        and all(f["kind"] == "no_audio_loaded" for f in failures.values())
    ):
        first = next(iter(failures.values()))
        return (
            f"{first['detail']}: no arm produced a hypothesis; results are written and "
            "marked failed. Fix the audio, then rerun with --retry-failed."
        )
    parts = []
    if not_finished:
        parts.append(
            f"arm(s) {', '.join(not_finished)} did not finish; their rows are recorded as "
            "arm_failed"
        )
    empty = [name for name in failures if name not in not_finished]
    if empty:
        parts.append(
            "arm(s) "
            + "; ".join(f"{name} ({failures[name]['detail']})" for name in empty)
            + " produced no hypothesis for any clip"
        )
    if not parts:
        return None
    rerun = "with --retry-failed" if empty else "the same command to resume"
    return "; ".join(parts) + f". Fix the cause and rerun {rerun}."


def plan_freeze(plan: PathArg) -> FrozenPlan:
    """`earmark plan freeze PLAN`: check the plan's structure (no data needed) and write
    PLAN.sha256; returns the plan's SHA-256, the record written and any prompt hash
    recorded in its `[postprocess]` table."""
    from earmark.execution.plan import freeze_plan

    return freeze_plan(plan)


def plan_show(plan: PathArg) -> dict[str, JSONValue]:
    """`earmark plan show PLAN`: the parsed plan, its canonical SHA-256 and the file's,
    and its `[postprocess]` table (what the command prints as JSON)."""
    from earmark.execution.plan import file_sha256, load_plan, read_plan_toml
    from earmark.postprocess.plan import plan_postprocess

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
