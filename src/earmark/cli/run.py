"""`earmark run`: run ASR arms over a corpus, then score; rerun to resume."""

from __future__ import annotations

import argparse
from typing import Any

from earmark.api.running import BATCH_BACKENDS, DEVICE_BACKENDS
from earmark.cli.arguments import (
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
)
from earmark.cli.options import (
    Subcommands,
    add_bootstrap,
    add_csv,
    add_expect_sha256,
    add_normalizer_policy,
    add_out,
    add_protocol,
    add_quiet,
    add_seed,
    add_speaker_options,
)


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "run",
        help="run one or more ASR arms over a corpus and score them (resumable)",
        description="Run arms (backend + model + settings) over a manifest; every arm loads "
        "its model once, in its own process. Rerunning the same command resumes.",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--plan", help="TOML plan (see `earmark plan --help`)")
    src.add_argument("--manifest", help="manifest JSONL (with its .meta.json sidecar)")
    add_expect_sha256(p)
    p.add_argument("--audio-root", help="folder the manifest's audio paths are relative to")
    p.add_argument(
        "--arm",
        action="append",
        default=[],
        metavar="SPEC",
        help="BACKEND:MODEL?key=value&... (repeatable), e.g. "
        "faster-whisper:bundled:tiny.en?compute_type=int8&beam_size=5",
    )
    p.add_argument(
        "--weight-types",
        help="expand each arm into one arm per weight type (compute_type), "
        "the first being the reference, e.g. float32,int8",
    )
    add_normalizer_policy(p, when="default: auto")
    add_protocol(p, tail=". With --plan, write `protocol = NAME` in the plan")
    p.add_argument(
        "--repeats",
        type=positive_int,
        default=1,
        help="decodes of every clip per arm (default: 1; more measure run-to-run variation)",
    )
    add_bootstrap(p)
    add_seed(p, samplers=True)
    _add_hardware(p)
    p.add_argument(
        "--first", type=non_negative_int, help="keep the first N rows (after filters; default: all)"
    )
    p.add_argument("--distinct-texts", action="store_true", help="with --first: N distinct texts")
    p.add_argument("--languages", help="comma-separated languages to keep")
    p.add_argument("--allow-network", action="store_true", help="permit outbound connections")
    p.add_argument("--retry-failed", action="store_true", help="on resume, redo failed rows")
    p.add_argument(
        "--isolation",
        choices=("process", "inline"),
        default="process",
        help="process (the default): each arm in its own process (clean memory figures); "
        "inline: this one",
    )
    _add_executor(p)
    add_out(
        p,
        "run directory (resumed if it exists; one writer at a time: a second run or "
        "score into it while this one runs is refused)",
    )
    add_csv(p, "utterance, repeat and arm")
    add_quiet(p, "no progress bars or tables")
    add_speaker_options(p)
    p.set_defaults(func=run)


def _add_hardware(p: argparse.ArgumentParser) -> None:
    """How every arm decodes: threads, CPU code path, device, batch."""
    p.add_argument(
        "--threads",
        type=positive_int,
        help="intra-op threads of every arm, local or on Ray (default: 1; results depend on it)",
    )
    p.add_argument(
        "--cpu-isa",
        choices=("AVX2", "AVX512", "AVX", "GENERIC"),
        help="pin the CPU code path (CTranslate2 ISA, oneDNN cap, MKL off, OpenBLAS kernels); "
        "default: each runtime chooses, and the choice is recorded",
    )
    p.add_argument(
        "--device",
        choices=("cpu", "cuda"),
        help="device of every arm whose backend takes one ("
        + ", ".join(DEVICE_BACKENDS)
        + ") and that sets none itself (default: each backend's own, cpu); cuda is refused "
        "up front when the backend's runtime sees no CUDA device",
    )
    p.add_argument(
        "--batch-size",
        type=positive_int,
        metavar="N",
        help="clips handed to an engine at once, and the batch_size setting of arms whose "
        "backend batches (" + ", ".join(BATCH_BACKENDS) + ") and that set none (default: 1)",
    )


def _add_executor(p: argparse.ArgumentParser) -> None:
    """Where the arms run: this machine, or Ray actors (and how many, with what)."""
    p.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="local (the default): arms one after another on this machine; ray: each arm "
        "served by Ray actors (pip install 'earmark[ray]'); resume works across executors",
    )
    p.add_argument("--ray-address", help="join this Ray cluster (default: start a local one)")
    p.add_argument(
        "--ray-actors",
        type=positive_int,
        default=2,
        help="actors per arm, each loading the model (default: %(default)s)",
    )
    p.add_argument(
        "--ray-cpus-per-actor",
        type=positive_float,
        default=1.0,
        help="CPUs Ray reserves for each actor (default: 1)",
    )
    p.add_argument(
        "--ray-gpus-per-actor",
        type=non_negative_float,
        default=0.0,
        help="GPUs Ray reserves for each actor (default: 0; pair with --device cuda)",
    )
    p.add_argument(
        "--ray-max-retries",
        type=non_negative_int,
        default=2,
        help="retries of a lost worker's clips (default: %(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    import sys

    from earmark.errors import EarmarkError
    from earmark.execution.plan import (
        RunPlan,
        check_frozen,
        default_audio_root,
        file_sha256,
        load_plan,
    )
    from earmark.execution.runner import RunOptions, run_plan
    from earmark.execution.sweep import expand_weight_types
    from earmark.render.terminal import print_summary

    plan_file_sha = None
    if args.plan:
        if args.expect_sha256:
            plan_file_sha = check_frozen(args.plan, args.expect_sha256)
        else:
            plan_file_sha = file_sha256(args.plan)
        plan = load_plan(args.plan)
        if args.arm:
            raise EarmarkError("--arm goes in the plan file when --plan is used", field="arm")
        if args.device is not None or args.batch_size is not None:
            raise EarmarkError(
                "--device and --batch-size go in the plan file when --plan is used",
                field="device" if args.device is not None else "batch_size",
                hint='write `batch_size = N` in the plan and `device = "cuda"` in the '
                "arms' settings",
            )
        if args.threads is not None or args.cpu_isa is not None:
            raise EarmarkError(
                "--threads and --cpu-isa go in the plan file when --plan is used",
                field="threads",
                hint='write `threads = N` or `cpu_isa = "AVX2"` in the plan',
            )
        given = [
            f for f in ("cluster", "min_per_slice", "min_speakers") if getattr(args, f) is not None
        ]
        if given:
            raise EarmarkError(
                f"--{given[0].replace('_', '-')} goes in the plan file when --plan is used",
                field=given[0],
                hint="write `cluster`, `min_per_slice` or `min_speakers` in the plan",
            )
        if args.protocol is not None and args.protocol != plan.protocol:
            raise EarmarkError(
                f"--protocol {args.protocol} differs from the plan's protocol "
                f"({plan.protocol or 'none'})",
                field="protocol",
                hint=f'write `protocol = "{args.protocol}"` in the plan file instead',
            )
    else:
        from pathlib import Path

        from earmark.engines.spec import parse_arm_spec

        if args.expect_sha256:
            raise EarmarkError("--expect-sha256 needs --plan", field="expect-sha256")
        if not args.arm:
            raise EarmarkError("give at least one --arm SPEC", field="arm")
        arms = tuple(parse_arm_spec(s) for s in args.arm)
        arms = with_device(arms, args.device)
        arms = with_batch_size(arms, args.batch_size)
        selection: dict[str, Any] = {}
        if args.first is not None:
            selection["first"] = args.first
        if args.distinct_texts:
            selection["distinct_texts"] = True
        if args.languages:
            selection["languages"] = [s for s in args.languages.split(",") if s]
        from earmark.scoring.protocols import resolve

        choice = resolve(
            args.protocol,
            normalizer=args.normalizer,
            resamples=args.bootstrap,
            seed=args.seed,
            default_normalizer="auto",
        )
        manifest = Path(args.manifest).resolve()
        plan = RunPlan(
            manifest=str(manifest),
            audio_root=str(default_audio_root(manifest, args.audio_root)),
            arms=arms,
            normalizer=choice.normalizer,
            repeats=args.repeats,
            bootstrap=choice.resamples,
            seed=choice.seed,
            selection=selection,
            allow_network=args.allow_network,
            protocol=args.protocol,
            threads=1 if args.threads is None else args.threads,
            cpu_isa=args.cpu_isa,
            batch_size=args.batch_size or 1,
            cluster=args.cluster or "clip",
            min_per_slice=args.min_per_slice,
            min_speakers=args.min_speakers,
        )
    if args.weight_types:
        plan = expand_weight_types(plan, [w for w in args.weight_types.split(",") if w])
    if args.executor == "local":  # a Ray cluster's workers may have devices this host lacks
        check_devices(plan.arms)
    results = run_plan(
        plan,
        args.out,
        RunOptions(
            quiet=args.quiet,
            isolation=args.isolation,
            retry_failed=args.retry_failed,
            command_line=list(sys.argv),
            plan_file=args.plan,
            plan_file_sha256=plan_file_sha,
            executor=args.executor,
            ray_address=args.ray_address,
            ray_actors=args.ray_actors,
            ray_max_retries=args.ray_max_retries,
            ray_cpus_per_actor=args.ray_cpus_per_actor,
            ray_gpus_per_actor=args.ray_gpus_per_actor,
        ),
    )
    if not args.quiet:
        print_summary(results, title="earmark run")
        print(f"wrote {args.out}/results.json, predictions.jsonl, provenance.json, results.md")
    if args.csv:
        from pathlib import Path

        from earmark.render.predictions_csv import write_predictions_csv
        from earmark.rundir.layout import PREDICTIONS

        csv_path = write_predictions_csv(Path(args.out) / PREDICTIONS, command="run")
        if not args.quiet:
            print(f"wrote {csv_path}")
    message = failure_message(results)
    if message:
        print(f"earmark: {message}", file=sys.stderr)
        return 1
    return 0


def with_device(arms: tuple[Any, ...], device: str | None) -> tuple[Any, ...]:
    """Each arm with `device` set when its backend takes one and it sets none itself.

    Like the plan's thread count, the setting becomes part of the arm's canonical form
    (and so of every row's cache key): rows decoded on another device are not reused.
    """
    from dataclasses import replace

    from earmark.errors import EarmarkError

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


def with_batch_size(arms: tuple[Any, ...], batch_size: int | None) -> tuple[Any, ...]:
    """Each batching arm with `batch_size` set unless it sets its own: the plan's batch
    only groups clips, and a backend decodes them together only up to its own setting."""
    from dataclasses import replace

    if batch_size is None:
        return arms
    return tuple(
        replace(arm, settings=(*arm.settings, ("batch_size", str(batch_size))))
        if arm.backend in BATCH_BACKENDS and "batch_size" not in arm.settings_dict
        else arm
        for arm in arms
    )


def check_devices(arms: tuple[Any, ...]) -> None:
    """Refuse `device=cuda` up front when the backend's runtime sees no CUDA device.

    Otherwise the arm process dies at load with the runtime's traceback ("CUDA failed
    with error CUDA driver version is insufficient...") and the run ends as arm_failed.
    A runtime that is not installed is left to the load, which names the extra to install.
    """
    import importlib

    from earmark.errors import EarmarkError

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


def failure_message(results: dict[str, Any]) -> str | None:
    """One line saying why a finished run is not a result (exit 1), or None.

    Exit 1 covers every run that wrote its files but whose figures must not be read as
    results: an arm that did not finish, an arm with no hypothesis for any clip, or a
    run in which every clip failed to load; exit 2 stays for refusals before anything ran.
    """
    arms = results["arms"]
    not_finished = [name for name, arm in arms.items() if arm.get("arm_exit_code")]
    failures = {f["arm"]: f for f in results.get("failures") or []}
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
