"""What `earmark run` is asked to do, as typed options, and the run it makes of them.

A run's plan comes from a TOML plan file (frozen, optionally checked against its SHA-256)
or from a manifest and arm specs with settings beside them; `build_plan` turns either into
the `RunPlan` and refuses contradictions with the messages the command line has always
given, and `execute_run` runs it and returns the typed results. The CLI only parses its
flags into a `RunRequest`; Python callers build one directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from earmark.errors import EarmarkError
from earmark.execution.options import RunOptions

if TYPE_CHECKING:
    from earmark.engines.spec import ArmSpec
    from earmark.execution.plan import RunPlan
    from earmark.results.results_file import Results

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


@dataclass(frozen=True, kw_only=True)
class PlanSource:
    """Where the plan comes from: a plan file, or a manifest and `BACKEND:MODEL?...` arms."""

    plan: str | None = None
    expect_sha256: str | None = None
    manifest: str | None = None
    audio_root: str | None = None
    arms: tuple[str, ...] = ()
    #: Expand each arm into one arm per weight type (the first is the reference).
    weight_types: tuple[str, ...] | None = None


@dataclass(frozen=True, kw_only=True)
class PlanSettings:
    """What a plan built from a manifest asks for; a plan file gives these itself, and
    those that would change its meaning are refused beside it."""

    normalizer: str | None = None
    protocol: str | None = None
    repeats: int = 1
    bootstrap: int | None = None
    seed: int | None = None
    threads: int | None = None
    cpu_isa: str | None = None
    device: str | None = None
    batch_size: int | None = None
    first: int | None = None
    distinct_texts: bool = False
    languages: tuple[str, ...] | None = None
    allow_network: bool = False
    cluster: str | None = None
    min_per_slice: int | None = None
    min_speakers: int | None = None


@dataclass(frozen=True, kw_only=True)
class RunRequest:
    """One `earmark run`: the plan's source and settings, the folder, how to execute."""

    out: str
    source: PlanSource
    settings: PlanSettings = field(default_factory=PlanSettings)
    options: RunOptions = field(default_factory=RunOptions)


def execute_run(request: RunRequest) -> Results:
    """Build the plan, run it into `request.out` (resuming), and return its results."""
    from earmark.execution import runner

    plan, plan_file_sha = build_plan(request)
    options = replace(
        request.options, plan_file=request.source.plan, plan_file_sha256=plan_file_sha
    )
    return runner.run_plan(plan, request.out, options)


def build_plan(request: RunRequest) -> tuple[RunPlan, str | None]:
    """The run's plan and, for a plan file, the SHA-256 of its bytes."""
    from earmark.execution.sweep import expand_weight_types

    source, settings = request.source, request.settings
    plan_file_sha = None
    if source.plan:
        plan, plan_file_sha = _plan_from_file(source.plan, source, settings)
    else:
        plan = _plan_from_manifest(source, settings)
    if source.weight_types is not None:
        plan = expand_weight_types(plan, list(source.weight_types))
    if request.options.executor == "local":  # a Ray cluster's workers may have devices
        check_devices(plan.arms)
    return plan, plan_file_sha


def _plan_from_file(path: str, source: PlanSource, settings: PlanSettings) -> tuple[RunPlan, str]:
    from earmark.execution.plan import load_plan
    from earmark.rundir.plan_file import check_frozen, file_sha256

    if source.expect_sha256:
        plan_file_sha = check_frozen(path, source.expect_sha256)
    else:
        plan_file_sha = file_sha256(path)
    plan = load_plan(path)
    if source.arms:
        raise EarmarkError("--arm goes in the plan file when --plan is used", field="arm")
    if settings.device is not None or settings.batch_size is not None:
        raise EarmarkError(
            "--device and --batch-size go in the plan file when --plan is used",
            field="device" if settings.device is not None else "batch_size",
            hint='write `batch_size = N` in the plan and `device = "cuda"` in the arms\' settings',
        )
    if settings.threads is not None or settings.cpu_isa is not None:
        raise EarmarkError(
            "--threads and --cpu-isa go in the plan file when --plan is used",
            field="threads",
            hint='write `threads = N` or `cpu_isa = "AVX2"` in the plan',
        )
    given = [
        f for f in ("cluster", "min_per_slice", "min_speakers") if getattr(settings, f) is not None
    ]
    if given:
        raise EarmarkError(
            f"--{given[0].replace('_', '-')} goes in the plan file when --plan is used",
            field=given[0],
            hint="write `cluster`, `min_per_slice` or `min_speakers` in the plan",
        )
    if settings.protocol is not None and settings.protocol != plan.protocol:
        raise EarmarkError(
            f"--protocol {settings.protocol} differs from the plan's protocol "
            f"({plan.protocol or 'none'})",
            field="protocol",
            hint=f'write `protocol = "{settings.protocol}"` in the plan file instead',
        )
    return plan, plan_file_sha


def _plan_from_manifest(source: PlanSource, settings: PlanSettings) -> RunPlan:
    from earmark.engines.spec import parse_arm_spec
    from earmark.execution.plan import RunPlan, default_audio_root
    from earmark.scoring.protocols import resolve

    if source.expect_sha256:
        raise EarmarkError("--expect-sha256 needs --plan", field="expect-sha256")
    if not source.arms:
        raise EarmarkError("give at least one --arm SPEC", field="arm")
    if source.manifest is None:
        raise EarmarkError("give --plan or --manifest", field="manifest")
    arms = tuple(parse_arm_spec(s) for s in source.arms)
    arms = with_device(arms, settings.device)
    arms = with_batch_size(arms, settings.batch_size)
    selection: dict[str, int | bool | list[str]] = {}
    if settings.first is not None:
        selection["first"] = settings.first
    if settings.distinct_texts:
        selection["distinct_texts"] = True
    if settings.languages is not None:
        selection["languages"] = list(settings.languages)
    choice = resolve(
        settings.protocol,
        normalizer=settings.normalizer,
        resamples=settings.bootstrap,
        seed=settings.seed,
        default_normalizer="auto",
    )
    manifest = Path(source.manifest).resolve()
    return RunPlan(
        manifest=str(manifest),
        audio_root=str(default_audio_root(manifest, source.audio_root)),
        arms=arms,
        normalizer=choice.normalizer,
        repeats=settings.repeats,
        bootstrap=choice.resamples,
        seed=choice.seed,
        selection=selection,
        allow_network=settings.allow_network,
        protocol=settings.protocol,
        threads=1 if settings.threads is None else settings.threads,
        cpu_isa=settings.cpu_isa,
        batch_size=settings.batch_size or 1,
        cluster=settings.cluster or "clip",
        min_per_slice=settings.min_per_slice,
        min_speakers=settings.min_speakers,
    )


def with_device(arms: tuple[ArmSpec, ...], device: str | None) -> tuple[ArmSpec, ...]:
    """Each arm with `device` set when its backend takes one and it sets none itself.

    Like the plan's thread count, the setting becomes part of the arm's canonical form
    (and so of every row's cache key): rows decoded on another device are not reused.
    """
    if device is None:
        return arms
    if not any(arm.backend in DEVICE_BACKENDS for arm in arms):
        raise EarmarkError(
            f"--device {device}: no arm here takes a device",
            field="device",
            hint="--device applies to " + ", ".join(DEVICE_BACKENDS),
        )
    return tuple(
        replace(arm, settings=(*arm.settings, ("device", device)))
        if arm.backend in DEVICE_BACKENDS and "device" not in arm.settings_dict
        else arm
        for arm in arms
    )


def with_batch_size(arms: tuple[ArmSpec, ...], batch_size: int | None) -> tuple[ArmSpec, ...]:
    """Each batching arm with `batch_size` set unless it sets its own: the plan's batch
    only groups clips, and a backend decodes them together only up to its own setting."""
    if batch_size is None:
        return arms
    return tuple(
        replace(arm, settings=(*arm.settings, ("batch_size", str(batch_size))))
        if arm.backend in BATCH_BACKENDS and "batch_size" not in arm.settings_dict
        else arm
        for arm in arms
    )


def check_devices(arms: tuple[ArmSpec, ...]) -> None:
    """Refuse `device=cuda` up front when the backend's runtime sees no CUDA device.

    Otherwise the arm process dies at load with the runtime's traceback ("CUDA failed
    with error CUDA driver version is insufficient...") and the run ends as arm_failed.
    A runtime that is not installed is left to the load, which names the extra to install.
    """
    import importlib

    for arm in arms:
        runtime = DEVICE_BACKENDS.get(arm.backend)
        if runtime is None or arm.settings_dict.get("device") != "cuda":
            continue
        try:
            module = importlib.import_module(runtime)
        except ImportError:
            continue
        if runtime == "ctranslate2":
            found = module.get_cuda_device_count() > 0
        else:
            found = bool(module.cuda.is_available())
        if not found:
            raise EarmarkError(
                f"arm {arm.name!r} asks for device cuda, but {runtime} sees no CUDA device "
                "on this machine",
                field="device",
                hint="use --device cpu (or device=cpu in the arm), or run where a GPU and "
                f"a CUDA build of {runtime} are installed",
            )


def failure_message(results: Results) -> str | None:
    """One line saying why a finished run is not a result (exit 1), or None.

    Exit 1 covers every run that wrote its files but whose figures must not be read as
    results: an arm that did not finish, an arm with no hypothesis for any clip, or a
    run in which every clip failed to load; exit 2 stays for refusals before anything ran.
    """
    arms = results.arms
    not_finished = [name for name, arm in arms.items() if arm.arm_exit_code]
    failures = {str(f["arm"]): f for f in results.failures or ()}
    if (
        arms
        and all(f["kind"] == "no_audio_loaded" for f in failures.values())
        and (set(failures) == set(arms))
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
