"""One arm's loop, shared by the local executor and the Ray actor.

Both executors load the arm's model once and turn clips into prediction rows the same
way: audio read by the prefetcher, the same skip rule for finished rows, the same
batches (one language per engine call, at most `plan.batch_size` clips), the same
per-clip seed, row builder, cache key and end-to-end timing. Only three things differ,
and they are the parameters: which clips a call gets (the whole arm, or one shard),
where rows go (the store, or a list returned to the Ray driver) and how progress is
told (per clip, or per shard by the driver). That is why a run interrupted on one
executor resumes on the other with no lost or duplicate row.

The network guard is the callers': a local arm holds it for its whole life, while a
Ray actor's process also serves Ray between calls and holds it per call.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from earmark.corpus.audio import LoadedAudio
from earmark.corpus.model import Utterance
from earmark.engines.base import Clip, Engine, Hypothesis, ModelInfo
from earmark.engines.spec import ArmSpec
from earmark.engines.streaming import stream_record
from earmark.execution.arm_environment import apply_arm_environment, clip_seed, with_plan_threads
from earmark.execution.egress import EgressGuard
from earmark.execution.plan import RunPlan
from earmark.execution.resources import ArmResources, RowTimings, cpu_seconds, rss_bytes
from earmark.language_tags import engine_language
from earmark.results.codec import JSONValue
from earmark.rundir.predictions import ArmRowKey, RunRow

#: A prediction row as written to `predictions.jsonl`.
Row = RunRow
#: Where the loop hands each row it builds.
RowSink = Callable[[Row], None]


def model_fingerprint(spec: ArmSpec, info: ModelInfo) -> str:
    """What a cached row must match: settings, weights actually loaded, runtime version."""
    text = json.dumps(
        {
            "arm": spec.canonical(),
            "files": dict(sorted(info.file_sha256.items())),
            "revision": info.revision,
            "runtime": info.runtime,
            "runtime_version": info.runtime_version,
            "compute_type": info.compute_type,
        },
        sort_keys=True,
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key(fingerprint: str, utt: Utterance, audio_sha256: str | None, repeat: int) -> str:
    text = f"{fingerprint}\x00{utt.id}\x00{audio_sha256 or ''}\x00{utt.language}\x00{repeat}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def model_info_dict(info: ModelInfo) -> dict[str, JSONValue]:
    """model.json's record of what loaded (`ModelInfo`'s fields, languages as a list)."""
    data: dict[str, JSONValue] = asdict(info)
    data["languages"] = list(info.languages) if info.languages is not None else None
    return data


def with_runtime_footprint(info: ModelInfo, spec: ArmSpec) -> ModelInfo:
    """The model record with the installed runtime's disk footprint beside the model's
    own size (`extra.runtime_footprint`, issue 15, each distribution with its declared
    licence) and the licences of the tokenizer and separate models it loads
    (`extra.component_licences`, issue 23, where there are any); once per process."""
    from earmark.engines.model_metadata import component_licences
    from earmark.engines.runtime_footprint import backend_footprint

    extra = {**info.extra, "runtime_footprint": backend_footprint(spec.backend)}
    parts = component_licences(spec.model, spec.settings_dict, info.file_sha256)
    if parts:
        extra["component_licences"] = parts
    return replace(info, extra=extra)


#: Backends that send clips to a remote service over HTTP(S).
REMOTE_BACKENDS = ("http", "azure-speech")


def http_hosts(spec: ArmSpec) -> list[str]:
    """An HTTP arm's endpoint URL: the guard allows exactly the addresses its host
    resolves to, on its port."""
    return [spec.model] if spec.backend in REMOTE_BACKENDS else []


def prediction_row(
    spec: ArmSpec,
    utt: Utterance,
    repeat: int,
    key: str,
    fingerprint: str,
    audio_sha: str | None,
    duration: float | None,
    hyp: Hypothesis | None,
    status: str,
    detail: str | None = None,
) -> Row:
    """The one place a prediction row is built, for every executor and every status
    (decoded, engine error, unreadable audio, lost worker), so rows never drift apart."""
    row: Row = {
        "arm": spec.name,
        "id": utt.id,
        "repeat": repeat,
        "cache_key": key,
        "model_fingerprint": fingerprint,
        "audio_sha256": audio_sha,
        "audio_seconds": duration,
        "reference": utt.text,
        "language": utt.language,
        "slices": list(utt.slices),
        "status": status,
        "hypothesis": None,
        "decode_seconds": None,
    }
    if detail:
        row["detail"] = detail
    if hyp is not None:
        row["hypothesis"] = hyp.text if hyp.error is None else None
        row["decode_seconds"] = hyp.decode_seconds
        row["language_requested"] = hyp.language_requested
        row["language_used"] = hyp.language_used
        row["language_mismatch"] = bool(
            hyp.extra.get("language_mismatch")
            or (
                hyp.language_requested
                and hyp.language_used
                and hyp.language_requested != hyp.language_used
            )
        )
        if hyp.segments:
            row["segments"] = [[s.start, s.end, s.text] for s in hyp.segments]
        if hyp.words:
            row["words"] = [[w.start, w.end, w.text] for w in hyp.words]
        stream = stream_record(hyp)
        if stream is not None:
            row["stream"] = stream
        extra = {k: v for k, v in hyp.extra.items() if k != "language_mismatch"}
        if extra:
            row["engine"] = extra
    return row


@dataclass(frozen=True)
class WorkItem:
    """One clip for the loop, with the cache keys (per repeat) that count as finished.

    Whoever reads the store knows which rows exist; only the loop knows the audio's hash
    (it reads the audio). A repeat is skipped when the key the loop computes equals
    `finished_keys[repeat]`, so the rule is the same in one process and on Ray.
    """

    utterance: Utterance
    finished_keys: Mapping[int, str] = field(default_factory=dict)


def work_items(
    existing: Mapping[ArmRowKey, Row],
    arm: str,
    utterances: Sequence[Utterance],
    *,
    repeats: int,
    retry_failed: bool,
    fingerprint: str,
) -> tuple[list[WorkItem], int]:
    """The clips with a repeat still to do, and how many rows are finished already.

    A stored row counts as finished when it decoded (or failed and `retry_failed` is
    off) and its cache key matches. A clip whose manifest hash proves every repeat
    finished is not even read; the others are decided once their audio is hashed.
    """
    items: list[WorkItem] = []
    skipped = 0
    for utt in utterances:
        keys: dict[int, str] = {}
        for r in range(repeats):
            prev = existing.get((arm, utt.id, r))
            if prev is not None and (prev.get("status") == "ok" or not retry_failed):
                keys[r] = str(prev.get("cache_key"))
        if utt.sha256 is not None and all(
            keys.get(r) == cache_key(fingerprint, utt, utt.sha256, r) for r in range(repeats)
        ):
            skipped += repeats
            continue
        items.append(WorkItem(utt, keys))
    return items, skipped


def clip_for(plan: RunPlan, utt: Utterance, audio: LoadedAudio) -> Clip:
    """The engine's view of a loaded clip. `path` is the original file only when the clip is
    that whole file (an engine asked for `audio_input=original` must not get a longer
    recording than the segment the reference describes)."""
    from earmark.corpus.audio import resolve_audio_path

    whole_file = utt.start is None and utt.end is None
    return Clip(
        id=utt.id,
        audio=audio.samples,
        sample_rate=audio.sample_rate,
        path=str(resolve_audio_path(plan.audio_root, utt.audio)) if whole_file else None,
        duration=audio.duration,
    )


def arm_threads(spec: ArmSpec, plan_threads: int | None) -> int | None:
    """The intra-op thread count the arm decoded with: its own setting when it names one,
    else the plan's (the OMP/MKL/OpenBLAS pools are pinned to it for every local arm, and
    a command/stdio program inherits that environment); None for a remote engine."""
    value = spec.settings_dict.get("cpu_threads") or spec.settings_dict.get("threads")
    if value is not None:
        try:
            return int(value)
        except ValueError:
            return None
    return None if spec.backend in REMOTE_BACKENDS else plan_threads


def threads_source(spec: ArmSpec) -> str:
    """Where `threads` in resources.json comes from."""
    for key in ("cpu_threads", "threads"):
        if key in spec.settings_dict:
            return f"arm setting {key}"
    if spec.backend in REMOTE_BACKENDS:
        return "remote engine: its threads are not known"
    return "plan threads (OMP_NUM_THREADS, MKL_NUM_THREADS, OPENBLAS_NUM_THREADS)"


@dataclass
class ArmTally:
    """What an arm's stored rows add up to (resources.json and the returned summary).

    Counted from the rows themselves, where each executor stores them, so a local arm and
    a Ray driver count alike. A resumed arm also counts the finished rows it skipped
    (`add_earlier`): its figures cover every decoded row, not this process's work alone."""

    transcribed: int = 0
    skipped: int = 0
    failed: int = 0
    #: The timings of the rows this process decoded.
    session: RowTimings = field(default_factory=lambda: RowTimings())
    #: (utterance id, repeat) of every row this process wrote.
    written: set[tuple[str, int]] = field(default_factory=set)
    #: The timings of the finished rows earlier runs wrote and this one kept.
    earlier: RowTimings = field(default_factory=lambda: RowTimings())
    #: The earlier runs' resources.json, merged into this one's process figures.
    earlier_record: Mapping[str, object] | None = None

    def add(self, row: Row) -> None:
        self.written.add((str(row.get("id")), int(row.get("repeat") or 0)))
        if row["status"] != "ok":
            self.failed += 1
            return
        self.transcribed += 1
        self.session.add(row)

    def add_earlier(
        self,
        existing: Mapping[ArmRowKey, Row],
        utterances: Sequence[Utterance],
        *,
        arm: str,
        repeats: int,
        fingerprint: str,
        arm_dir: Path,
    ) -> None:
        """After the pass: the finished rows of the selection that earlier runs decoded with
        this model and this process kept, and the earlier runs' resources.json."""
        from earmark.execution.resources import read_resources_record

        for utt in utterances:
            for r in range(repeats):
                row = existing.get((arm, utt.id, r))
                if (
                    row is None
                    or (utt.id, r) in self.written
                    or row.get("status") != "ok"
                    or row.get("model_fingerprint") != fingerprint
                ):
                    continue
                self.earlier.add(row)
        if self.earlier.rows:
            self.earlier_record = read_resources_record(arm_dir)

    def summary(self) -> dict[str, int]:
        return {"transcribed": self.transcribed, "skipped": self.skipped, "failed": self.failed}

    def resources(
        self,
        *,
        load_seconds: float | None,
        rss_after_load_bytes: int | None,
        peak_rss_bytes: int | None,
        cpu_seconds: float | None,
        wall_seconds: float,
        model_size_bytes: int | None,
        spec: ArmSpec,
        plan: RunPlan,
    ) -> dict[str, Any]:
        """resources.json's common part: the process figures the executor measured (merged
        with the earlier runs' on a resume, `ProcessFigures.after`), with the latency and
        audio figures of every decoded row (CPU time only when a clip decoded)."""
        from earmark.execution.resources import ProcessFigures

        decoded = bool(self.session.decode_seconds)
        process = ProcessFigures(
            load_seconds=load_seconds,
            rss_after_load_bytes=rss_after_load_bytes,
            peak_rss_bytes=peak_rss_bytes,
            cpu_seconds=cpu_seconds if decoded else None,
            wall_seconds=wall_seconds,
        )
        if self.earlier.rows:
            process = process.after(self.earlier_record, decoded=decoded)
        every = self.earlier.plus(self.session)
        resources: dict[str, Any] = ArmResources(
            load_seconds=process.load_seconds,
            rss_after_load_bytes=process.rss_after_load_bytes,
            peak_rss_bytes=process.peak_rss_bytes,
            cpu_seconds=process.cpu_seconds,
            wall_seconds=process.wall_seconds,
            audio_seconds=every.audio_seconds,
            decode_seconds=every.decode_seconds,
            model_size_bytes=model_size_bytes,
            threads=arm_threads(spec, plan.threads),
            clips_timed=len(every.decode_seconds),
            end_to_end_seconds=every.end_to_end_seconds,
            threads_source=threads_source(spec),
        ).to_dict()
        resources["session"] = {
            "transcribed": self.transcribed,
            "skipped_finished": self.skipped,
            "failed": self.failed,
        }
        return resources


@dataclass(frozen=True)
class LoopPass:
    """One `ArmLoop.transcribe` call: rows skipped as finished, CPU time it took."""

    skipped: int
    cpu_seconds: float


def _no_progress() -> None:
    pass


class ArmLoop:
    """One arm's engine in this process: the arm's environment applied, its network
    guard built, its model loaded once (`load`), then clips turned into rows
    (`transcribe`) for as many calls as the executor makes."""

    def __init__(self, plan: RunPlan, spec: ArmSpec) -> None:
        from earmark.engines.registry import build_engine

        # The same threads and code path in every process that runs an arm (a Ray
        # worker starts with OMP_NUM_THREADS=1 and its own environment otherwise).
        self.environment = apply_arm_environment(plan)
        self.plan = plan
        self.spec = with_plan_threads(spec, plan.threads)
        hosts = http_hosts(self.spec)
        if not plan.allow_network and not hosts:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        self.guard = EgressGuard.for_hosts(hosts, allow_all=plan.allow_network)
        self.engine: Engine | None = build_engine(self.spec)
        self.info: ModelInfo | None = None
        self.fingerprint: str | None = None
        self.rss_after_load: int | None = None

    def load(self) -> ModelInfo:
        """Load the model (inside `guard`: downloads are egress) and fix the fingerprint
        every finished row must match."""
        assert self.engine is not None, "the engine was closed"
        loaded = self.engine.load()
        self.rss_after_load = rss_bytes()
        self.info = with_runtime_footprint(loaded, self.spec)
        self.fingerprint = model_fingerprint(self.spec, self.info)
        return self.info

    def transcribe(
        self,
        items: Sequence[WorkItem],
        emit: RowSink,
        advance: Callable[[], None] = _no_progress,
    ) -> LoopPass:
        """Every clip × repeat of `items` not finished becomes one row handed to `emit`
        (unreadable audio too, under its reason code); `advance` is called once per clip.

        Batches never span two calls. Call inside `guard`, after `load`.
        """
        from earmark.corpus.audio import AudioFailure, AudioPrefetcher

        fingerprint = self.fingerprint
        assert fingerprint is not None, "load() first"
        plan, spec = self.plan, self.spec
        skipped = 0
        batch: list[_Pending] = []
        cpu_start = cpu_seconds()
        with AudioPrefetcher(plan.audio_root, [i.utterance for i in items], **plan.audio) as clips:
            for item, (utt, audio) in zip(items, clips, strict=True):
                language = engine_language(utt.language)
                if isinstance(audio, AudioFailure):
                    for r in range(plan.repeats):
                        key = cache_key(fingerprint, utt, utt.sha256, r)
                        if item.finished_keys.get(r) == key:
                            skipped += 1
                            continue
                        emit(
                            prediction_row(
                                spec,
                                utt,
                                r,
                                key,
                                fingerprint,
                                utt.sha256,
                                None,
                                None,
                                audio.reason,
                                audio.detail,
                            )
                        )
                    advance()
                    continue
                clip = clip_for(plan, utt, audio)
                for r in range(plan.repeats):
                    key = cache_key(fingerprint, utt, audio.sha256, r)
                    if item.finished_keys.get(r) == key:
                        skipped += 1
                        continue
                    if batch and (len(batch) >= plan.batch_size or batch[0].language != language):
                        self._flush(batch, emit)
                    batch.append(_pending(plan.seed, utt, r, key, audio, clip, language))
                if len(batch) >= plan.batch_size:
                    self._flush(batch, emit)
                advance()
            self._flush(batch, emit)
        return LoopPass(skipped=skipped, cpu_seconds=cpu_seconds() - cpu_start)

    def _flush(self, batch: list[_Pending], emit: RowSink) -> None:
        """Transcribe the pending clips in one engine call (one language per call) and
        empty `batch`. An engine exception becomes a per-clip reason code: an engine bug
        must not end the run."""
        if not batch:
            return
        assert self.engine is not None and self.fingerprint is not None
        called = time.perf_counter()
        try:
            hyps = self.engine.transcribe([p.clip for p in batch], batch[0].language)
            if len(hyps) != len(batch):
                raise RuntimeError(f"engine returned {len(hyps)} for {len(batch)} clips")
        except Exception as exc:
            hyps = [
                Hypothesis(
                    id=p.utt.id,
                    text="",
                    decode_seconds=0.0,
                    language_requested=p.language,
                    error=f"engine_exception:{type(exc).__name__}",
                    extra={"message": str(exc)[:500]},
                )
                for p in batch
            ]
        for p, hyp in zip(batch, hyps, strict=True):
            row = prediction_row(
                self.spec,
                p.utt,
                p.repeat,
                p.key,
                self.fingerprint,
                p.audio_sha256,
                p.duration,
                hyp,
                "ok" if hyp.error is None else hyp.error,
            )
            row.update(_end_to_end(p.load_seconds, time.perf_counter() - called))
            emit(row)
        batch.clear()

    def close(self) -> None:
        """Release the engine (temporary folders, model memory, child processes)."""
        if self.engine is not None:
            self.engine.close()
            self.engine = None


@dataclass(frozen=True)
class _Pending:
    """A clip × repeat waiting for its batch's engine call."""

    utt: Utterance
    repeat: int
    key: str
    audio_sha256: str
    duration: float
    clip: Clip
    language: str | None
    #: Seconds the prefetcher spent reading and resampling this clip (None: not timed).
    load_seconds: float | None = None


def _pending(
    seed: int,
    utt: Utterance,
    repeat: int,
    key: str,
    audio: LoadedAudio,
    clip: Clip,
    language: str | None,
) -> _Pending:
    """One repeat of a loaded clip, queued for its batch: its own seed (so a repeat
    decodes the same whether it runs locally or on a Ray actor) and the audio's hash,
    duration and load time that its row will record."""
    seeded = replace(clip, seed=clip_seed(seed, utt.id, repeat))
    return _Pending(
        utt,
        repeat,
        key,
        audio.sha256,
        audio.duration,
        seeded,
        language,
        _load_seconds(audio),
    )


# --- End-to-end latency (issue 15): audio read + resample + decode + row ----------------


def _load_seconds(audio: LoadedAudio) -> float | None:
    """The prefetcher's timing of this clip's read + resample, when it recorded one."""
    value = getattr(audio, "load_seconds", None)
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def _end_to_end(load_seconds: float | None, since_call: float) -> RunRow:
    """A row's end-to-end latency: its audio's read + resample, then the engine call that
    decoded it (the whole batch: a clip's text is ready when its batch returns) up to its
    row being written. Queueing in the prefetcher is not counted: it overlaps decoding."""
    total = None if load_seconds is None else load_seconds + since_call
    return {"audio_load_seconds": load_seconds, "end_to_end_seconds": total}
