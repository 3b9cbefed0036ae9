"""Run one arm on a Ray cluster with the same contract as `earmark.execution.arm_worker.run_arm`.

Each arm is served by a few Ray actors that load the model once in their constructor
(`ArmServer`). The driver cuts the clips still to do into small shards, hands the next
shard to whichever actor is free, and appends the rows each shard returns to the same
crash-safe store a local run uses — the driver is the store's only writer. Each actor
runs the local executor's loop (`arm_loop.ArmLoop`) and the driver counts rows with the
same `ArmTally`, so a run interrupted on Ray resumes locally and the other way round,
with no lost or duplicate row.

A worker that dies mid-shard loses no clip: every clip of its shard is retried alone on
another actor, up to `max_retries` times, and then recorded with the reason code
`worker_lost` (a row that exists and counts as all deletions, never a silent drop).

Ray is an optional extra: it is imported here, inside the function, and a missing Ray
raises `MissingExtraError`.
"""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from earmark.corpus.model import Utterance
from earmark.engines.extras import require
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError, MissingExtraError
from earmark.execution.arm_environment import arm_environment, with_plan_threads
from earmark.execution.arm_loop import (
    ArmTally,
    Row,
    RowSink,
    WorkItem,
    cache_key,
    http_hosts,
    prediction_row,
    work_items,
)
from earmark.execution.egress import EgressGuard, merge_tree_summaries
from earmark.execution.plan import RunPlan
from earmark.execution.progress import ClipProgress
from earmark.execution.sharding import WORKER_LOST, ShardQueue, make_shards
from earmark.execution.store import PredictionStore
from earmark.outputs import atomic_write_json
from earmark.results.codec import JSONValue
from earmark.rundir.layout import (
    ARM_EGRESS,
    ARM_MODEL,
    ARM_RESOURCES,
    PREDICTIONS,
    arm_folder,
)

if TYPE_CHECKING:
    from earmark.execution.ray_arm_server import ActorDescription, ActorError

#: How long the driver waits for the first actor to load its model before giving up.
DEFAULT_STARTUP_TIMEOUT_S = 600.0


@dataclass
class _ActorRecord:
    """What the driver learns about one actor over its life (for resources.json)."""

    actor: int
    pid: int | None = None
    host: str | None = None
    load_seconds: float | None = None
    rss_after_load_bytes: int | None = None
    peak_rss_bytes: int | None = None
    cpu_seconds: float = 0.0
    shards: int = 0
    rows: int = 0
    lost: str | None = None

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "actor": self.actor,
            "pid": self.pid,
            "host": self.host,
            "load_seconds": self.load_seconds,
            "rss_after_load_bytes": self.rss_after_load_bytes,
            "peak_rss_bytes": self.peak_rss_bytes,
            "cpu_seconds": self.cpu_seconds,
            "shards": self.shards,
            "rows": self.rows,
            "ready": self.pid is not None,
            "lost": self.lost,
        }


class ActorOptions(TypedDict):
    """What each Ray actor of an arm is started with (`ray.remote(...).options(**these)`)."""

    num_cpus: float
    num_gpus: float
    max_restarts: int
    max_task_retries: int
    runtime_env: dict[str, dict[str, str]]


@dataclass
class _Fleet:
    """The actors serving one arm: handles, their records, and which are free."""

    ray: Any
    remote_class: Any
    plan: RunPlan
    spec: ArmSpec
    options: ActorOptions
    records: list[_ActorRecord] = field(default_factory=list)
    handles: dict[int, Any] = field(default_factory=dict)
    idle: deque[int] = field(default_factory=deque)

    def spawn(self) -> tuple[int, Any]:
        """Start one actor; return its index and the ref of its `describe()` call."""
        index = len(self.records)
        handle = self.remote_class.options(**self.options).remote(self.plan, self.spec, index)
        self.records.append(_ActorRecord(actor=index))
        self.handles[index] = handle
        return index, handle.describe.remote()

    def drop(self, index: int) -> None:
        handle = self.handles.pop(index, None)
        if handle is not None:
            try:
                self.ray.kill(handle, no_restart=True)
            except Exception:  # already gone: nothing to release
                pass

    def close_all(self, graceful: set[int], timeout: float = 10.0) -> None:
        """Let idle actors release their engine, then kill every actor still held."""
        refs = [self.handles[i].close.remote() for i in graceful if i in self.handles]
        if refs:
            self.ray.wait(refs, num_returns=len(refs), timeout=timeout)
        for index in list(self.handles):
            self.drop(index)


def run_arm_on_ray(
    plan: RunPlan,
    spec: ArmSpec,
    utterances: Sequence[Utterance],
    out_dir: Path,
    *,
    address: str | None = None,
    num_actors: int = 2,
    max_retries: int = 2,
    quiet: bool = False,
    retry_failed: bool = False,
    shard_size: int = 8,
    num_cpus: float = 1.0,
    num_gpus: float = 0.0,
    on_row: RowSink | None = None,
    startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S,
) -> dict[str, Any]:
    """Transcribe every clip of `spec` not already finished, on Ray actors.

    Same files and rows as `run_arm`: `out_dir/predictions.jsonl` (appended by this
    process only), `arms/<name>/{model,resources,egress}.json`. Ray is started locally
    when it is not initialised and `address` is None (and shut down again at the end);
    `address` connects to a running cluster (`ray start --head`). `num_cpus`/`num_gpus`
    are reserved per actor; `on_row` is called after each row is durably appended.
    Returns `{"transcribed", "skipped", "failed", "workers_lost", "retried_clips",
    "actors"}`.
    """
    if num_actors < 1:
        raise EarmarkError("num_actors must be at least 1", field="ray_actors")
    if max_retries < 0:
        raise EarmarkError("max_retries must be at least 0", field="max_retries")
    if shard_size < 1:
        raise EarmarkError("shard_size must be at least 1", field="shard_size")
    from earmark.engines.registry import validate_arm

    validate_arm(spec)  # a bad setting fails here, before any cluster work
    with ray_cluster(address, quiet=quiet) as ray:
        return _drive(
            ray,
            plan,
            spec,
            list(utterances),
            Path(out_dir),
            num_actors=num_actors,
            max_retries=max_retries,
            quiet=quiet,
            retry_failed=retry_failed,
            shard_size=shard_size,
            actor_options={
                "num_cpus": num_cpus,
                "num_gpus": num_gpus,
                "max_restarts": 0,
                "max_task_retries": 0,
                # Set before the worker imports anything, like a local arm process's.
                "runtime_env": {"env_vars": arm_environment(plan)},
            },
            on_row=on_row,
            startup_timeout_s=startup_timeout_s,
            address=address,
        )


@contextmanager
def ray_cluster(address: str | None = None, *, quiet: bool = False) -> Iterator[Any]:
    """Ray, connected for the block: started (or joined at `address`) and shut down at
    the end — unless it was already initialised, in which case it is left as it was.

    Wrap a whole run in it so every arm uses one Ray session instead of starting its own.
    """
    ray = require("ray", "running arms on Ray", "ray")
    if ray.is_initialized():
        yield ray
        return
    ray.init(
        address=address,
        include_dashboard=False,
        log_to_driver=not quiet,
        logging_level=logging.WARNING if quiet else logging.INFO,
    )
    try:
        yield ray
    finally:
        ray.shutdown()


def _lost_errors(ray: Any) -> tuple[type[BaseException], ...]:
    """Ray's exceptions that mean "the worker is gone", not "the code raised"."""
    names = (
        "RayActorError",
        "WorkerCrashedError",
        "OutOfMemoryError",
        "NodeDiedError",
        "ObjectLostError",
    )
    found = [getattr(ray.exceptions, n, None) for n in names]
    return tuple(e for e in found if isinstance(e, type) and issubclass(e, BaseException))


def _raise_load_error(spec: ArmSpec, error: ActorError) -> None:
    if error["kind"] == "missing_extra":
        raise MissingExtraError(
            f"arm '{spec.name}' ({spec.backend})", error.get("extra", ""), error.get("module", "")
        )
    if error["kind"] == "earmark":
        raise EarmarkError(
            error.get("message", ""),
            file=error.get("file"),
            line=error.get("line"),
            field=error.get("field"),
            hint=error.get("hint"),
        )
    raise EarmarkError(
        f"arm '{spec.name}': loading the model on a Ray actor failed: {error.get('message')}"
    )


def _drive(
    ray: Any,
    plan: RunPlan,
    spec: ArmSpec,
    utterances: list[Utterance],
    out_dir: Path,
    *,
    num_actors: int,
    max_retries: int,
    quiet: bool,
    retry_failed: bool,
    shard_size: int,
    actor_options: ActorOptions,
    on_row: RowSink | None,
    startup_timeout_s: float,
    address: str | None,
) -> dict[str, Any]:
    from earmark.execution.ray_arm_server import ArmServer

    lost_errors = _lost_errors(ray)
    shard_size = max(shard_size, plan.batch_size)  # an engine batch never spans two shards
    arm_dir = arm_folder(out_dir, spec.name)
    arm_dir.mkdir(parents=True, exist_ok=True)
    store = PredictionStore(out_dir / PREDICTIONS)
    existing = store.latest()
    wall_start = time.perf_counter()
    fleet = _Fleet(ray, ray.remote(ArmServer), plan, spec, actor_options)
    wanted = max(1, min(num_actors, math.ceil(len(utterances) / shard_size)))
    # Every ref the driver waits on: ("describe", actor) or ("shard", actor, shard).
    pending: dict[Any, tuple[Any, ...]] = {}
    for _ in range(wanted):
        index, ref = fleet.spawn()
        pending[ref] = ("describe", index)
    # The egress guard's own record types (execution/egress.py).
    egress_attempts: list[dict[str, Any]] = []
    trees: dict[int, dict[str, Any] | None] = {}
    tally = ArmTally()
    workers_lost = 0
    load_deaths = 0
    queue = ShardQueue([], max_retries)
    try:
        # The fingerprint (what a finished row must match) needs a loaded model: wait for
        # the first actor, then decide what is left to do.
        first = _first_ready(ray, pending, fleet, spec, startup_timeout_s, lost_errors)
        fingerprint = str(first["fingerprint"])
        workers_lost += sum(1 for r in fleet.records if r.lost)  # died while loading
        atomic_write_json(arm_dir / ARM_MODEL, first["model"])

        items, tally.skipped = work_items(
            existing,
            spec.name,
            utterances,
            repeats=plan.repeats,
            retry_failed=retry_failed,
            fingerprint=fingerprint,
        )
        queue = ShardQueue(make_shards(items, shard_size), max_retries)

        def append(row: Row) -> None:
            store.append(row)
            tally.add(row)
            if on_row is not None:
                on_row(row)

        with ClipProgress(spec.name, len(items), quiet) as advance:
            while len(queue) or any(v[0] == "shard" for v in pending.values()):
                while fleet.idle and len(queue):
                    index = fleet.idle.popleft()
                    shard = queue.pop()
                    ref = fleet.handles[index].transcribe_shard.remote(shard)
                    pending[ref] = ("shard", index, shard)
                if not pending:  # every actor is gone: start one for the work left
                    index, ref = fleet.spawn()
                    pending[ref] = ("describe", index)
                    continue
                (ref,), _ = ray.wait(list(pending), num_returns=1)
                kind, index, *rest = pending.pop(ref)
                record = fleet.records[index]
                try:
                    result = ray.get(ref)
                except lost_errors as exc:
                    workers_lost += 1
                    record.lost = _first_line(exc)
                    fleet.drop(index)
                    if kind == "describe":
                        load_deaths += 1
                        if load_deaths > wanted * (max_retries + 1):
                            raise EarmarkError(
                                f"arm '{spec.name}': Ray actors keep dying while loading "
                                f"the model ({load_deaths} so far): {record.lost}",
                                hint="check the actors' memory (num_cpus/num_gpus per actor) "
                                "and the Ray logs",
                            ) from None
                    else:
                        (shard,) = rest
                        for item in queue.worker_lost(shard):
                            for row in _lost_rows(spec, item, fingerprint, plan.repeats, record):
                                append(row)
                            advance()
                    if len(queue) or any(v[0] == "shard" for v in pending.values()):
                        new_index, new_ref = fleet.spawn()
                        pending[new_ref] = ("describe", new_index)
                    continue
                if result.get("error") is not None:
                    _raise_load_error(spec, result["error"])
                if result["fingerprint"] != fingerprint:
                    raise EarmarkError(
                        f"arm '{spec.name}': Ray actors loaded different models "
                        f"(actor {index} on {result.get('host')} has another fingerprint)",
                        hint="install the same earmark, runtime and model files on every node",
                    )
                if kind == "describe":
                    _note_describe(record, result)
                    fleet.idle.append(index)
                    continue
                (shard,) = rest
                record.shards += 1
                record.rows += len(result["rows"])
                record.cpu_seconds += float(result["cpu_seconds"])
                record.peak_rss_bytes = result["peak_rss_bytes"]
                tally.skipped += int(result["skipped"])
                egress_attempts.extend(result["egress_attempts"])
                trees[result["actor"]] = result.get("egress_tree")
                for row in result["rows"]:
                    append(row)
                for _ in shard.items:
                    advance()
                fleet.idle.append(index)
        tally.add_earlier(
            existing,
            utterances,
            arm=spec.name,
            repeats=plan.repeats,
            fingerprint=fingerprint,
            arm_dir=arm_dir,
        )
    finally:
        store.close()
        # Idle actors release their engine (temporary folders); busy ones are killed.
        fleet.close_all(set(fleet.idle))
    started = [r for r in fleet.records if r.load_seconds is not None]
    resources = tally.resources(
        load_seconds=max((r.load_seconds or 0.0 for r in started), default=None),
        rss_after_load_bytes=max(
            (r.rss_after_load_bytes for r in started if r.rss_after_load_bytes is not None),
            default=None,
        ),
        peak_rss_bytes=max(
            (r.peak_rss_bytes for r in started if r.peak_rss_bytes is not None), default=None
        ),
        cpu_seconds=sum(r.cpu_seconds for r in started),
        wall_seconds=time.perf_counter() - wall_start,
        model_size_bytes=_model_size(first),
        # The actors' spec: the plan's thread count is part of it, as in a local arm.
        spec=with_plan_threads(spec, plan.threads),
        plan=plan,
    )
    resources["environment"] = arm_environment(plan)
    resources["executor"] = _executor_record(
        fleet.records, address, shard_size, max_retries, actor_options, workers_lost, queue
    )
    atomic_write_json(arm_dir / ARM_RESOURCES, resources)
    egress = EgressGuard.for_hosts(http_hosts(spec), allow_all=plan.allow_network).record()
    egress.update(merge_tree_summaries(trees.values()))
    egress["attempts"] = [*egress_attempts]
    egress["refused"] = sum(1 for a in egress_attempts if not a["allowed"])
    atomic_write_json(arm_dir / ARM_EGRESS, egress)
    return {
        **tally.summary(),
        "workers_lost": workers_lost,
        "retried_clips": queue.retried_clips,
        "actors": len(fleet.records),
    }


def _first_ready(
    ray: Any,
    pending: dict[Any, tuple[Any, ...]],
    fleet: _Fleet,
    spec: ArmSpec,
    timeout: float,
    lost_errors: tuple[type[BaseException], ...],
) -> ActorDescription:
    """Wait for the first actor to load its model; the others join as they come up."""
    deadline = time.monotonic() + timeout
    while pending:
        left = deadline - time.monotonic()
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=max(0.0, left))
        if not ready:
            raise EarmarkError(
                f"arm '{spec.name}': no Ray actor loaded the model within {timeout:g} s",
                hint="the cluster may lack the CPUs/GPUs asked per actor: "
                f"{fleet.options['num_cpus']} CPU, {fleet.options['num_gpus']} GPU "
                f"(cluster has {ray.cluster_resources()})",
            )
        ref = ready[0]
        _, index = pending.pop(ref)
        try:
            info: ActorDescription = ray.get(ref)
        except lost_errors as exc:
            fleet.records[index].lost = _first_line(exc)
            fleet.drop(index)
            continue
        error = info.get("error")
        if error is not None:
            _raise_load_error(spec, error)
        _note_describe(fleet.records[index], info)
        fleet.idle.append(index)
        return info
    raise EarmarkError(
        f"arm '{spec.name}': every Ray actor died while loading the model",
        hint="see the Ray logs (memory, missing packages on the nodes)",
    )


def _note_describe(record: _ActorRecord, info: ActorDescription) -> None:
    record.pid = info["pid"]
    record.host = info["host"]
    record.load_seconds = info["load_seconds"]
    record.rss_after_load_bytes = info["rss_after_load_bytes"]
    record.peak_rss_bytes = info["rss_after_load_bytes"]


def _model_size(first: ActorDescription) -> int | None:
    """The model's size on disk as the first actor reported it, when it did."""
    size = (first["model"] or {}).get("size_bytes")
    return size if isinstance(size, int) else None


def _lost_rows(
    spec: ArmSpec, item: WorkItem, fingerprint: str, repeats: int, record: _ActorRecord
) -> list[Row]:
    """`worker_lost` rows for a clip given up (repeats already finished stay as they are).

    The driver never read the audio, so the manifest's hash stands in, as it does for a
    clip whose audio failed to load locally.
    """
    utt = item.utterance
    rows = []
    for r in range(repeats):
        key = cache_key(fingerprint, utt, utt.sha256, r)
        if item.finished_keys.get(r) == key:
            continue
        detail = f"the Ray worker serving this clip died on every attempt; last: {record.lost}"
        rows.append(
            prediction_row(
                spec, utt, r, key, fingerprint, utt.sha256, None, None, WORKER_LOST, detail
            )
        )
    return rows


def _executor_record(
    records: list[_ActorRecord],
    address: str | None,
    shard_size: int,
    max_retries: int,
    actor_options: ActorOptions,
    workers_lost: int,
    queue: ShardQueue,
) -> dict[str, JSONValue]:
    """Per-actor figures and their aggregates: several processes, so both max and sum."""
    peaks = [r.peak_rss_bytes for r in records if r.peak_rss_bytes is not None]
    loads = [r.load_seconds for r in records if r.load_seconds is not None]
    return {
        "kind": "ray",
        "address": address,
        "actors": list[JSONValue]([r.to_dict() for r in records]),
        "actors_started": len(records),
        "num_cpus_per_actor": actor_options["num_cpus"],
        "num_gpus_per_actor": actor_options["num_gpus"],
        "shard_size": shard_size,
        "max_retries": max_retries,
        "workers_lost": workers_lost,
        "retried_clips": queue.retried_clips,
        "load_seconds_per_actor": list[JSONValue](loads),
        "peak_rss_bytes_max": max(peaks) if peaks else None,
        "peak_rss_bytes_sum": sum(peaks) if peaks else None,
        "cpu_seconds_sum": sum(r.cpu_seconds for r in records),
        "definitions": {
            "load_seconds": "top level: the slowest actor's model load (all actors load)",
            "peak_rss_bytes": "top level: the largest actor process (Ray worker included)",
            "cpu_seconds": "summed over actors, while transcribing shards",
            "wall_seconds": "the driver's wall time, actor start-up included",
        },
    }


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]
