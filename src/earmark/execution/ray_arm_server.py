"""The body of one Ray actor: an arm's `ArmLoop`, loaded once, transcribing shards of clips.

This is a plain class (no Ray import) that `ray_executor` wraps with `ray.remote`, so it
can be read and tested like any other code. It runs the local executor's loop
(`arm_loop.ArmLoop`) on each shard but returns rows instead of writing them: only the
driver appends to the store, so the store stays single-writer and crash-safe.

Loading errors are returned as data (`describe()["error"]`) rather than raised from the
constructor, because Ray turns a constructor exception into a generic "actor died"
error, and the user deserves the real message (a missing extra, a bad setting).
"""

from __future__ import annotations

import os
import socket
import time
from typing import TypedDict

from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError, MissingExtraError
from earmark.execution.arm_loop import ArmLoop, Row, model_info_dict
from earmark.execution.plan import RunPlan
from earmark.execution.resources import peak_rss_bytes, rss_bytes
from earmark.execution.sharding import Shard
from earmark.results.codec import JSONObject


class ActorError(TypedDict, total=False):
    """Why an actor could not load its arm, as the driver re-raises it."""

    kind: str  # missing_extra | earmark | exception
    message: str
    extra: str
    module: str
    file: str | None
    line: int | None
    field: str | None
    hint: str | None


class ActorDescription(TypedDict):
    """Who an actor is and what it loaded (`ArmServer.describe`)."""

    actor: int
    pid: int
    host: str
    error: ActorError | None
    fingerprint: str | None
    model: JSONObject | None
    load_seconds: float | None
    rss_after_load_bytes: int | None


class ShardResult(TypedDict, total=False):
    """One shard's rows and the actor's figures (`ArmServer.transcribe_shard`)."""

    actor: int
    pid: int
    host: str
    error: ActorError | None
    fingerprint: str | None
    rows: list[Row]
    skipped: int
    cpu_seconds: float
    peak_rss_bytes: int | None
    egress_attempts: list[JSONObject]
    egress_tree: JSONObject | None


class ArmServer:
    """One arm's model in one process; `transcribe_shard` is called once per shard."""

    def __init__(self, plan: RunPlan, spec: ArmSpec, actor_index: int) -> None:
        self.actor_index = actor_index
        self.error: ActorError | None = None
        self.loop: ArmLoop | None = None
        self._egress_sent = 0
        started = time.perf_counter()
        try:
            self.loop = ArmLoop(plan, spec)
            # Per call, not for the actor's life: between calls this process serves Ray.
            with self.loop.guard:
                self.loop.load()
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

    def describe(self) -> ActorDescription:
        """Who this actor is and what it loaded (or why it could not)."""
        info = self.loop.info if self.loop is not None else None
        return {
            "actor": self.actor_index,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "error": self.error,
            "fingerprint": self.loop.fingerprint if self.loop is not None else None,
            "model": model_info_dict(info) if info is not None else None,
            "load_seconds": info.load_seconds if info is not None else None,
            "rss_after_load_bytes": self.rss_after_load,
        }

    def transcribe_shard(self, shard: Shard) -> ShardResult:
        """Transcribe every clip × repeat of the shard not already finished; return rows."""
        loop = self.loop
        if self.error is not None or loop is None or loop.fingerprint is None:
            return {"actor": self.actor_index, "error": self.error, "rows": []}
        rows: list[Row] = []
        with loop.guard:
            done = loop.transcribe(shard.items, rows.append)
        attempts = loop.guard.attempts[self._egress_sent :]
        self._egress_sent = len(loop.guard.attempts)
        return {
            "actor": self.actor_index,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "error": None,
            "fingerprint": loop.fingerprint,
            "rows": rows,
            "skipped": done.skipped,
            "cpu_seconds": done.cpu_seconds,
            "peak_rss_bytes": peak_rss_bytes(),
            "egress_attempts": [{**a, "actor": self.actor_index} for a in attempts],
            "egress_tree": loop.guard.tree.summary() if loop.guard.tree else None,
        }

    def close(self) -> bool:
        """Release the engine (temporary folders, model memory) before the actor is killed."""
        if self.loop is not None:
            self.loop.close()
        return True


def _missing_module(message: str) -> str:
    """The module name quoted in a `MissingExtraError` message."""
    head, sep, rest = message.partition("optional package '")
    return rest.split("'", 1)[0] if sep else "unknown"
