"""The body of one Ray actor: an arm's engine, loaded once, transcribing shards of clips.

This is a plain class (no Ray import) that `ray_executor` wraps with `ray.remote`, so it
can be read and tested like any other code. It mirrors `earmark.run.arm_worker.run_arm`
clip for clip — same audio loading (from the shared audio root), same skip rule, same
row builder and cache key — but returns rows instead of writing them: only the driver
appends to the store, so the store stays single-writer and crash-safe.

Loading errors are returned as data (`describe()["error"]`) rather than raised from the
constructor, because Ray turns a constructor exception into a generic "actor died"
error, and the user deserves the real message (a missing extra, a bad setting).
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from earmark.engines.base import Hypothesis
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError, MissingExtraError
from earmark.run.arm_worker import (
    _end_to_end,
    _http_hosts,
    _Pending,
    _pending,
    _row,
    base_language,
    cache_key,
    clip_for,
    model_fingerprint,
    model_info_dict,
)
from earmark.run.egress import EgressGuard
from earmark.run.plan import RunPlan
from earmark.run.resources import cpu_seconds, peak_rss_bytes, rss_bytes

from .sharding import Shard


class ArmServer:
    """One arm's model in one process; `transcribe_shard` is called once per shard."""

    def __init__(self, plan: RunPlan, spec: ArmSpec, actor_index: int) -> None:
        from earmark.engines.registry import build_engine
        from earmark.run.arm_environment import apply_arm_environment, with_plan_threads

        # The same threads and code path as a local arm process (Ray's workers start with
        # OMP_NUM_THREADS=1 and their own environment otherwise).
        self.environment = apply_arm_environment(plan)
        spec = with_plan_threads(spec, plan.threads)
        self.plan = plan
        self.spec = spec
        self.actor_index = actor_index
        self.error: dict[str, Any] | None = None
        self.engine: Any = None
        self.info: Any = None
        self.fingerprint: str | None = None
        if not plan.allow_network and not _http_hosts(spec):
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        self.guard = EgressGuard.for_hosts(_http_hosts(spec), allow_all=plan.allow_network)
        self._egress_sent = 0
        started = time.perf_counter()
        try:
            self.engine = build_engine(spec)
            with self.guard:
                self.info = self.engine.load()
            self.fingerprint = model_fingerprint(spec, self.info)
        except MissingExtraError as exc:
            self.error = {
                "kind": "missing_extra",
                "message": exc.message,
                "extra": exc.extra,
                "module": _missing_module(exc.message),
            }
        except EarmarkError as exc:
            self.error = {
                "kind": "earmark",
                "message": exc.message,
                "file": exc.file,
                "line": exc.line,
                "field": exc.field,
                "hint": exc.hint,
            }
        except Exception as exc:  # reported to the driver, which raises it there
            self.error = {"kind": "exception", "message": f"{type(exc).__name__}: {exc}"}
        self.constructor_seconds = time.perf_counter() - started
        self.rss_after_load = rss_bytes()

    def describe(self) -> dict[str, Any]:
        """Who this actor is and what it loaded (or why it could not)."""
        return {
            "actor": self.actor_index,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "error": self.error,
            "fingerprint": self.fingerprint,
            "model": model_info_dict(self.info) if self.info is not None else None,
            "load_seconds": self.info.load_seconds if self.info is not None else None,
            "rss_after_load_bytes": self.rss_after_load,
        }

    def transcribe_shard(self, shard: Shard) -> dict[str, Any]:
        """Transcribe every clip × repeat of the shard not already finished; return rows."""
        from earmark.corpus.audio import AudioFailure, AudioPrefetcher

        if self.error is not None or self.fingerprint is None:
            return {"actor": self.actor_index, "error": self.error, "rows": []}
        fingerprint = self.fingerprint
        repeats = self.plan.repeats
        rows: list[dict[str, Any]] = []
        batch: list[_Pending] = []
        skipped = 0
        cpu_start = cpu_seconds()
        by_id = {item.utterance.id: item for item in shard.items}
        with (
            self.guard,
            AudioPrefetcher(
                self.plan.audio_root, [i.utterance for i in shard.items], **self.plan.audio
            ) as clips,
        ):
            for utt, audio in clips:
                finished_keys = by_id[utt.id].finished_keys
                language = base_language(utt.language)
                if isinstance(audio, AudioFailure):
                    for r in range(repeats):
                        key = cache_key(fingerprint, utt, utt.sha256, r)
                        if finished_keys.get(r) == key:
                            skipped += 1
                            continue
                        rows.append(
                            _row(
                                self.spec,
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
                    continue
                clip = clip_for(self.plan, utt, audio)
                for r in range(repeats):
                    key = cache_key(fingerprint, utt, audio.sha256, r)
                    if finished_keys.get(r) == key:
                        skipped += 1
                        continue
                    if batch and (
                        len(batch) >= self.plan.batch_size or batch[0].language != language
                    ):
                        rows.extend(self._flush(batch))
                    batch.append(_pending(self.plan.seed, utt, r, key, audio, clip, language))
                if len(batch) >= self.plan.batch_size:
                    rows.extend(self._flush(batch))
            rows.extend(self._flush(batch))
        attempts = self.guard.attempts[self._egress_sent :]
        self._egress_sent = len(self.guard.attempts)
        return {
            "actor": self.actor_index,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "error": None,
            "fingerprint": fingerprint,
            "rows": rows,
            "skipped": skipped,
            "cpu_seconds": cpu_seconds() - cpu_start,
            "peak_rss_bytes": peak_rss_bytes(),
            "egress_attempts": [{**a, "actor": self.actor_index} for a in attempts],
            "egress_tree": self.guard.tree.summary() if self.guard.tree else None,
        }

    def _flush(self, batch: list[_Pending]) -> list[dict[str, Any]]:
        """One engine call for the pending clips (as `run_arm` batches: one language per
        call, at most `plan.batch_size` clips, never across shards); empties `batch`."""
        if not batch:
            return []
        called = time.perf_counter()
        try:
            hyps = self.engine.transcribe([p.clip for p in batch], batch[0].language)
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
        rows = []
        for p, hyp in zip(batch, hyps, strict=True):
            row = _row(
                self.spec,
                p.utt,
                p.repeat,
                p.key,
                self.fingerprint or "",
                p.audio_sha256,
                p.duration,
                hyp,
                "ok" if hyp.error is None else hyp.error,
            )
            # The same end-to-end timing as a local arm (the driver appends the row later).
            row.update(_end_to_end(p.load_seconds, time.perf_counter() - called))
            rows.append(row)
        batch.clear()
        return rows

    def close(self) -> bool:
        """Release the engine (temporary folders, model memory) before the actor is killed."""
        if self.engine is not None:
            self.engine.close()
            self.engine = None
        return True


def _missing_module(message: str) -> str:
    """The module name quoted in a `MissingExtraError` message."""
    head, sep, rest = message.partition("optional package '")
    return rest.split("'", 1)[0] if sep else "unknown"
