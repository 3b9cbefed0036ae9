"""`earmark run`: run ASR arms over a corpus, then score; rerun to resume."""

from __future__ import annotations

import argparse

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
from earmark.execution.run_request import BATCH_BACKENDS, DEVICE_BACKENDS


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
    _add_offline_and_audio_flags(p)
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


def _add_offline_and_audio_flags(p: argparse.ArgumentParser) -> None:
    """`--require-offline` and `--allow-missing-audio` (issue 24), in one block."""
    p.add_argument(
        "--require-offline",
        action="store_true",
        help="refuse, before anything runs, an arm whose programs (command, stdio) cannot be "
        "started without a network on this machine (no `unshare --net`)",
    )
    p.add_argument(
        "--allow-missing-audio",
        action="store_true",
        help="run even when audio files are missing: their clips are recorded as "
        "missing_file and scored as deletions (default: refuse the run)",
    )


def run(args: argparse.Namespace) -> int:
    import sys

    from earmark.execution.options import RunOptions
    from earmark.execution.run_request import (
        PlanSettings,
        PlanSource,
        RunRequest,
        execute_run,
        failure_message,
    )
    from earmark.render.terminal import print_summary

    request = RunRequest(
        out=args.out,
        source=PlanSource(
            plan=args.plan,
            expect_sha256=args.expect_sha256,
            manifest=args.manifest,
            audio_root=args.audio_root,
            arms=tuple(args.arm),
            weight_types=_listed(args.weight_types),
        ),
        settings=PlanSettings(
            normalizer=args.normalizer,
            protocol=args.protocol,
            repeats=args.repeats,
            bootstrap=args.bootstrap,
            seed=args.seed,
            threads=args.threads,
            cpu_isa=args.cpu_isa,
            device=args.device,
            batch_size=args.batch_size,
            first=args.first,
            distinct_texts=args.distinct_texts,
            languages=_listed(args.languages),
            allow_network=args.allow_network,
            cluster=args.cluster,
            min_per_slice=args.min_per_slice,
            min_speakers=args.min_speakers,
        ),
        options=RunOptions(
            quiet=args.quiet,
            isolation=args.isolation,
            retry_failed=args.retry_failed,
            command_line=list(sys.argv),
            executor=args.executor,
            ray_address=args.ray_address,
            ray_actors=args.ray_actors,
            ray_max_retries=args.ray_max_retries,
            ray_cpus_per_actor=args.ray_cpus_per_actor,
            ray_gpus_per_actor=args.ray_gpus_per_actor,
            require_offline=args.require_offline,
            allow_missing_audio=args.allow_missing_audio,
        ),
    )
    results = execute_run(request)
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


def _listed(value: str | None) -> tuple[str, ...] | None:
    """A comma-separated flag's items (empty ones dropped); None when not given."""
    return tuple(s for s in value.split(",") if s) if value else None
