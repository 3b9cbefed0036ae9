"""Run one arm over the selected clips: load the model once, transcribe, append rows.

This is what happens inside one arm's process (seed 002: one process per weight type, so
memory and CPU figures belong to that arm alone). Rows go to the crash-safe store as they
are produced; finished rows whose cache key still matches are skipped, so a killed run
resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from earmark.corpus.audio import LoadedAudio
from earmark.corpus.model import Utterance
from earmark.engines.base import Clip, Hypothesis, ModelInfo
from earmark.engines.spec import ArmSpec
from earmark.outputs import atomic_write_json
from earmark.run.arm_environment import apply_arm_environment, clip_seed, with_plan_threads
from earmark.run.egress import EgressGuard
from earmark.run.plan import RunPlan
from earmark.run.resources import ArmResources, cpu_seconds, peak_rss_bytes, rss_bytes
from earmark.run.store import PredictionStore, RowKey


def base_language(language: str | None) -> str | None:
    if not language or language in ("und", "mul", "zxx"):
        return None
    return language.replace("_", "-").split("-")[0].lower()


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


def model_info_dict(info: ModelInfo) -> dict[str, Any]:
    from dataclasses import asdict

    data = asdict(info)
    data["languages"] = list(info.languages) if info.languages is not None else None
    return data


def _http_hosts(spec: ArmSpec) -> list[str]:
    """An HTTP arm's endpoint URL: the guard allows exactly the addresses its host
    resolves to, on its port."""
    return [spec.model] if spec.backend == "http" else []


def _row(
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
) -> dict[str, Any]:
    row: dict[str, Any] = {
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
        extra = {k: v for k, v in hyp.extra.items() if k != "language_mismatch"}
        if extra:
            row["engine"] = extra
    return row


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

    Writes `arms/<name>/model.json`, `resources.json` and `egress.json`; returns a summary.
    """
    from earmark.corpus.audio import AudioFailure, AudioPrefetcher
    from earmark.engines.registry import build_engine

    environment = apply_arm_environment(plan)
    spec = with_plan_threads(spec, plan.threads)
    arm_dir = out_dir / "arms" / spec.name
    arm_dir.mkdir(parents=True, exist_ok=True)
    store = PredictionStore(out_dir / "predictions.jsonl")
    existing: dict[RowKey, dict[str, Any]] = store.latest()
    if not plan.allow_network and not _http_hosts(spec):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    guard = EgressGuard.for_hosts(_http_hosts(spec), allow_all=plan.allow_network)
    wall_start = time.perf_counter()
    decode_times: list[float] = []
    end_to_end_times: list[float] = []
    audio_seconds = 0.0
    done = skipped = failed = 0
    engine = build_engine(spec)
    with guard:
        try:
            info = engine.load()
            rss_loaded = rss_bytes()
            fingerprint = model_fingerprint(spec, info)
            atomic_write_json(arm_dir / "model.json", model_info_dict(info))

            def finished(utt: Utterance, repeat: int, audio_sha: str | None) -> bool:
                prev = existing.get((spec.name, utt.id, repeat))
                if prev is None:
                    return False
                if prev.get("cache_key") != cache_key(fingerprint, utt, audio_sha, repeat):
                    return False
                return prev.get("status") == "ok" or not retry_failed

            todo = [
                u
                for u in utterances
                if not (
                    u.sha256 is not None
                    and all(finished(u, r, u.sha256) for r in range(plan.repeats))
                )
            ]
            skipped += (len(utterances) - len(todo)) * plan.repeats
            cpu_start = cpu_seconds()
            batch: list[_Pending] = []

            def flush() -> None:
                """Transcribe the pending clips in one engine call (one language per call)."""
                nonlocal done, failed, audio_seconds
                if not batch:
                    return
                called = time.perf_counter()
                try:
                    hyps = engine.transcribe([p.clip for p in batch], batch[0].language)
                    if len(hyps) != len(batch):
                        raise RuntimeError(f"engine returned {len(hyps)} for {len(batch)} clips")
                except Exception as exc:  # an engine bug must not end the run: per-clip codes
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
                    status = "ok" if hyp.error is None else hyp.error
                    row = _row(
                        spec,
                        p.utt,
                        p.repeat,
                        p.key,
                        fingerprint,
                        p.audio_sha256,
                        p.duration,
                        hyp,
                        status,
                    )
                    row.update(_end_to_end(p.load_seconds, time.perf_counter() - called))
                    store.append(row)
                    if hyp.error is None and row["end_to_end_seconds"] is not None:
                        end_to_end_times.append(row["end_to_end_seconds"])
                    if hyp.error is None:
                        if math.isfinite(hyp.decode_seconds):
                            decode_times.append(hyp.decode_seconds)
                        audio_seconds += p.duration
                        done += 1
                    else:
                        failed += 1
                batch.clear()

            with (
                _progress(spec.name, len(todo), quiet) as advance,
                AudioPrefetcher(plan.audio_root, todo, **plan.audio) as clips,
            ):
                for utt, audio in clips:
                    language = base_language(utt.language)
                    if isinstance(audio, AudioFailure):
                        for r in range(plan.repeats):
                            if finished(utt, r, utt.sha256):
                                skipped += 1
                                continue
                            key = cache_key(fingerprint, utt, utt.sha256, r)
                            store.append(
                                _row(
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
                            failed += 1
                        advance()
                        continue
                    clip = clip_for(plan, utt, audio)
                    for r in range(plan.repeats):
                        if finished(utt, r, audio.sha256):
                            skipped += 1
                            continue
                        if batch and (
                            len(batch) >= plan.batch_size or batch[0].language != language
                        ):
                            flush()
                        key = cache_key(fingerprint, utt, audio.sha256, r)
                        batch.append(_pending(plan.seed, utt, r, key, audio, clip, language))
                    if len(batch) >= plan.batch_size:
                        flush()
                    advance()
                flush()
            cpu_used = cpu_seconds() - cpu_start
        finally:
            engine.close()
            store.close()
    resources = ArmResources(
        load_seconds=info.load_seconds,
        rss_after_load_bytes=rss_loaded,
        peak_rss_bytes=peak_rss_bytes(),
        cpu_seconds=cpu_used if decode_times else None,
        wall_seconds=time.perf_counter() - wall_start,
        audio_seconds=audio_seconds,
        decode_seconds=decode_times,
        model_size_bytes=info.size_bytes,
        threads=_threads(spec, plan.threads),
        clips_timed=len(decode_times),
        end_to_end_seconds=end_to_end_times,
        threads_source=_threads_source(spec),
    ).to_dict()
    resources["session"] = {"transcribed": done, "skipped_finished": skipped, "failed": failed}
    resources["environment"] = environment
    atomic_write_json(arm_dir / "resources.json", resources)
    atomic_write_json(arm_dir / "egress.json", guard.record())
    return {"transcribed": done, "skipped": skipped, "failed": failed}


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


def _threads(spec: ArmSpec, plan_threads: int | None = None) -> int | None:
    """The intra-op thread count the arm decoded with: its own setting when it names one,
    else the plan's (the OMP/MKL/OpenBLAS pools are pinned to it for every local arm, and
    a command/stdio program inherits that environment); None for a remote engine."""
    value = spec.settings_dict.get("cpu_threads") or spec.settings_dict.get("threads")
    if value is not None:
        try:
            return int(value)
        except ValueError:
            return None
    return None if spec.backend == "http" else plan_threads


def _threads_source(spec: ArmSpec) -> str:
    """Where `threads` in resources.json comes from."""
    for key in ("cpu_threads", "threads"):
        if key in spec.settings_dict:
            return f"arm setting {key}"
    if spec.backend == "http":
        return "remote engine: its threads are not known"
    return "plan threads (OMP_NUM_THREADS, MKL_NUM_THREADS, OPENBLAS_NUM_THREADS)"


# --- End-to-end latency (issue 15): audio read + resample + decode + row ----------------


def _load_seconds(audio: LoadedAudio) -> float | None:
    """The prefetcher's timing of this clip's read + resample, when it recorded one."""
    value = getattr(audio, "load_seconds", None)
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def _end_to_end(load_seconds: float | None, since_call: float) -> dict[str, float | None]:
    """A row's end-to-end latency: its audio's read + resample, then the engine call that
    decoded it (the whole batch: a clip's text is ready when its batch returns) up to its
    row being written. Queueing in the prefetcher is not counted: it overlaps decoding."""
    total = None if load_seconds is None else load_seconds + since_call
    return {"audio_load_seconds": load_seconds, "end_to_end_seconds": total}


class _progress:
    """A rich progress bar with clips/s and ETA on a terminal; nothing in quiet mode.

    Where output is not a terminal (a CI log, `| tee`) a live bar shows nothing until the
    arm ends, so plain lines are printed instead: `arm: 40/200 clips (20%), 1.52 clips/s,
    ETA 0:01:45`, every `interval_s` seconds or every tenth of the clips, whichever comes
    first, and when the arm is done. The Ray executor uses the same class.
    """

    def __init__(
        self,
        name: str,
        total: int,
        quiet: bool,
        *,
        stream: Any = None,
        interval_s: float = 10.0,
        clock: Any = time.monotonic,
    ) -> None:
        self.name, self.total, self.quiet = name, total, quiet
        self.stream, self.interval_s, self.clock = stream, interval_s, clock
        self._progress: Any = None
        self._task: Any = None
        self._done = 0
        self._start = self._last = 0.0
        self._next_count = 0
        self._plain = False
        self._reported = 0

    def __enter__(self) -> Any:
        if self.quiet or self.total == 0:
            return lambda: None
        import sys

        from rich.console import Console

        stream = self.stream if self.stream is not None else sys.stdout
        console = Console(file=stream)
        if not console.is_terminal:
            self.stream, self._plain = stream, True
            self._start = self._last = self.clock()
            self._next_count = self._tenth()
            self._line(f"{self.name}: decoding {self.total} clips")
            return self._advance_plain
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        class _Rate(TextColumn):
            def render(self, task: Any) -> Any:
                from rich.text import Text

                speed = task.finished_speed or task.speed
                return Text(f"{speed:.2f} clips/s" if speed else "… clips/s")

        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            _Rate(""),
            TimeRemainingColumn(),
            transient=False,
            console=console,
        )
        self._progress.__enter__()
        self._task = self._progress.add_task(self.name, total=self.total)
        return lambda: self._progress.advance(self._task)

    def _tenth(self) -> int:
        """The next clip count at a multiple of a tenth of the total."""
        step = max(1, -(-self.total // 10))
        return min(self.total, (self._done // step + 1) * step)

    def _line(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def _advance_plain(self) -> None:
        self._done += 1
        now = self.clock()
        if (
            self._done >= self.total
            or self._done >= self._next_count
            or now - self._last >= self.interval_s
        ):
            self._report(now)

    def _report(self, now: float) -> None:
        self._last, self._reported = now, self._done
        self._next_count = self._tenth()
        elapsed = now - self._start
        rate = self._done / elapsed if elapsed > 0 else None
        text = (
            f"{self.name}: {self._done}/{self.total} clips "
            f"({100 * self._done / self.total:.0f}%), "
            + (f"{rate:.2f} clips/s" if rate else "… clips/s")
        )
        if self._done >= self.total:
            text += f", done in {_clock(elapsed)}"
        elif rate:
            text += f", ETA {_clock((self.total - self._done) / rate)}"
        self._line(text)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)
        elif self._plain and self._reported != self._done:
            self._report(self.clock())  # stopped early (an error): where it stopped


def _clock(seconds: float) -> str:
    """`0:01:45`: hours, minutes, seconds, as rich's live bar shows its ETA."""
    whole = int(round(seconds))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
