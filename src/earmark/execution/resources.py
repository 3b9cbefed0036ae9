"""What users feel: latency, real-time factor, memory, CPU time — measured, never guessed.

Memory comes from the kernel (`/proc/self/status` VmRSS/VmHWM on Linux, `getrusage`
elsewhere); CPU time from `getrusage` (user + system, all threads of the process).
"""

from __future__ import annotations

import math
import resource
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

if TYPE_CHECKING:
    from earmark.results.arm import ScopeResources
    from earmark.results.codec import JSONValue


_N = TypeVar("_N", int, float)


def _proc_status_kib(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def rss_bytes() -> int | None:
    """Current resident set size."""
    kib = _proc_status_kib("VmRSS")
    return kib * 1024 if kib is not None else None


def peak_rss_bytes() -> int:
    """Peak resident set size of this process so far."""
    kib = _proc_status_kib("VmHWM")
    if kib is not None:
        return kib * 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return float(usage.ru_utime + usage.ru_stime)


def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolation percentile (numpy's default); None for no values."""
    if not values:
        return None
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))


@dataclass
class ArmResources:
    """Per-arm resource figures for results.json. Latency is per clip decode time."""

    load_seconds: float | None
    rss_after_load_bytes: int | None
    peak_rss_bytes: int | None
    cpu_seconds: float | None
    wall_seconds: float | None
    audio_seconds: float
    decode_seconds: list[float]
    model_size_bytes: int | None
    threads: int | None
    clips_timed: int
    #: Per clip: audio read + resample + decode + row (see `run.arm_worker`).
    end_to_end_seconds: list[float] = field(default_factory=list)
    #: Where `threads` comes from (the arm's setting, the plan, or unknown).
    threads_source: str | None = None

    def to_dict(self) -> dict[str, object]:
        total_decode = float(sum(self.decode_seconds))
        rtf = total_decode / self.audio_seconds if self.audio_seconds > 0 else None
        return {
            "load_seconds": self.load_seconds,
            "rss_after_load_bytes": self.rss_after_load_bytes,
            "peak_rss_bytes": self.peak_rss_bytes,
            "cpu_seconds": self.cpu_seconds,
            "cpu_seconds_per_audio_second": (
                self.cpu_seconds / self.audio_seconds
                if self.cpu_seconds is not None and self.audio_seconds > 0
                else None
            ),
            "wall_seconds": self.wall_seconds,
            "audio_seconds": self.audio_seconds,
            "decode_seconds_total": total_decode,
            "latency_p50_seconds": percentile(self.decode_seconds, 50),
            "latency_p95_seconds": percentile(self.decode_seconds, 95),
            "latency_max_seconds": max(self.decode_seconds) if self.decode_seconds else None,
            "real_time_factor": rtf,
            "rtfx": (1.0 / rtf) if rtf else None,
            **end_to_end_figures(self.end_to_end_seconds),
            "model_size_bytes": self.model_size_bytes,
            "threads": self.threads,
            "threads_source": self.threads_source,
            "clips_timed": self.clips_timed,
            "definitions": {
                "latency": "per-clip decode wall time inside the engine (model already loaded)",
                "end_to_end": END_TO_END_DEFINITION,
                "real_time_factor": "decode seconds / audio seconds (lower is faster)",
                "rtfx": "1 / real_time_factor (audio seconds processed per second)",
                "cpu_seconds": "user + system CPU time of the arm's process while transcribing",
                "resumed": RESUMED_DEFINITION,
            },
        }


@dataclass
class RowTimings:
    """The audio, decode and end-to-end seconds of an arm's decoded (`ok`) rows."""

    rows: int = 0
    audio_seconds: float = 0.0
    decode_seconds: list[float] = field(default_factory=list)
    end_to_end_seconds: list[float] = field(default_factory=list)

    def add(self, row: Mapping[str, Any]) -> None:
        self.rows += 1
        audio, decode = row.get("audio_seconds"), row.get("decode_seconds")
        if isinstance(audio, (int, float)):  # an ok row has both: its audio loaded, decoded
            self.audio_seconds += audio
        if isinstance(decode, (int, float)) and math.isfinite(decode):
            self.decode_seconds.append(float(decode))
        end_to_end = row.get("end_to_end_seconds")
        if isinstance(end_to_end, (int, float)):
            self.end_to_end_seconds.append(float(end_to_end))

    def plus(self, other: RowTimings) -> RowTimings:
        """These rows' timings followed by `other`'s."""
        return RowTimings(
            rows=self.rows + other.rows,
            audio_seconds=self.audio_seconds + other.audio_seconds,
            decode_seconds=[*self.decode_seconds, *other.decode_seconds],
            end_to_end_seconds=[*self.end_to_end_seconds, *other.end_to_end_seconds],
        )


#: How a resumed arm's process figures combine with its earlier runs' (resources.json
#: `definitions.resumed`).
RESUMED_DEFINITION = (
    "a resumed arm's latency, audio seconds and real-time factor cover every decoded row "
    "(earlier runs' and this one's); CPU and wall seconds are summed over the processes "
    "that decoded rows, load seconds and RSS are the largest of them; a process that "
    "decoded nothing adds nothing; CPU seconds are null when an earlier run left no record"
)


@dataclass(frozen=True)
class ProcessFigures:
    """What the arm's process(es) measured about themselves, beside the rows' timings."""

    load_seconds: float | None
    rss_after_load_bytes: int | None
    peak_rss_bytes: int | None
    cpu_seconds: float | None
    wall_seconds: float | None

    def after(self, earlier: Mapping[str, object] | None, *, decoded: bool) -> ProcessFigures:
        """These figures merged with the earlier runs' record (`RESUMED_DEFINITION`): a
        rerun that decodes nothing must not report the arm as having cost nothing."""
        if earlier is None:
            return replace(self, cpu_seconds=None)
        before = ProcessFigures(
            load_seconds=_number(earlier.get("load_seconds")),
            rss_after_load_bytes=_integer(earlier.get("rss_after_load_bytes")),
            peak_rss_bytes=_integer(earlier.get("peak_rss_bytes")),
            cpu_seconds=_number(earlier.get("cpu_seconds")),
            wall_seconds=_number(earlier.get("wall_seconds")),
        )
        if not decoded:
            return before
        return ProcessFigures(
            load_seconds=_largest(before.load_seconds, self.load_seconds),
            rss_after_load_bytes=_largest(before.rss_after_load_bytes, self.rss_after_load_bytes),
            peak_rss_bytes=_largest(before.peak_rss_bytes, self.peak_rss_bytes),
            cpu_seconds=_total(before.cpu_seconds, self.cpu_seconds),
            wall_seconds=_total(before.wall_seconds, self.wall_seconds),
        )


def _number(value: object) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None  # type: ignore[arg-type]


def _integer(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _largest(a: _N | None, b: _N | None) -> _N | None:
    return a if b is None else b if a is None else max(a, b)


def _total(a: float | None, b: float | None) -> float | None:
    """Unknown when either part is: half a sum is not the arm's cost."""
    return None if a is None or b is None else a + b


def read_resources_record(arm_dir: Path) -> dict[str, object] | None:
    """`arms/<arm>/resources.json` as an earlier run left it, or None (missing, unreadable)."""
    import json

    from earmark.rundir.layout import ARM_RESOURCES

    try:
        data = json.loads((arm_dir / ARM_RESOURCES).read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


END_TO_END_DEFINITION = (
    "per clip: audio read + resample (in the prefetcher) + the engine call that decoded "
    "it (its whole batch) up to its row being written; prefetch queueing is not counted"
)


def end_to_end_figures(seconds: list[float]) -> dict[str, JSONValue]:
    """p50/p95/max of end-to-end latencies; None without timed clips."""
    return {
        "end_to_end_p50_seconds": percentile(seconds, 50),
        "end_to_end_p95_seconds": percentile(seconds, 95),
        "end_to_end_max_seconds": max(seconds) if seconds else None,
        "clips_timed_end_to_end": len(seconds),
    }


#: A scope's latency keys in the order results.json has them: every one is written, null
#: where there is no figure (`by_slice` only where the scope's clips carry slices).
_SCOPE_KEYS = (
    "clips",
    "latency_p50_seconds",
    "latency_p95_seconds",
    "real_time_factor",
    "end_to_end_p50_seconds",
    "end_to_end_p95_seconds",
    "end_to_end_max_seconds",
    "clips_timed_end_to_end",
)


def _latency_scope(
    rows: list[Mapping[str, Any]], by_slice: Mapping[str, ScopeResources] | None = None
) -> ScopeResources:
    from earmark.results.arm import ScopeResources

    decode = [float(r["decode_seconds"] or 0.0) for r in rows]
    audio = sum(float(r.get("audio_seconds") or 0.0) for r in rows)
    end_to_end = [
        float(seconds)
        for seconds in (r.get("end_to_end_seconds") for r in rows)
        if isinstance(seconds, (int, float))
    ]
    return ScopeResources(
        clips=len(decode),
        latency_p50_seconds=percentile(decode, 50),
        latency_p95_seconds=percentile(decode, 95),
        real_time_factor=sum(decode) / audio if audio > 0 else None,
        end_to_end_p50_seconds=percentile(end_to_end, 50),
        end_to_end_p95_seconds=percentile(end_to_end, 95),
        end_to_end_max_seconds=max(end_to_end) if end_to_end else None,
        clips_timed_end_to_end=len(end_to_end),
        by_slice=by_slice,
        key_order=(*_SCOPE_KEYS, "by_slice") if by_slice else _SCOPE_KEYS,
    )


def latency_scopes(rows: Iterable[Mapping[str, Any]]) -> dict[str, ScopeResources]:
    """Decode and end-to-end latency and real-time factor per language and, inside each,
    per slice, from the rows' own timings (rows without a decode time are left out)."""
    by_language: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        if row.get("status") != "ok" or row.get("decode_seconds") is None:
            continue
        by_language.setdefault(str(row.get("language") or "und"), []).append(row)
    out: dict[str, ScopeResources] = {}
    for lang, group in sorted(by_language.items()):
        slices: dict[str, list[Mapping[str, Any]]] = {}
        for row in group:
            for name in row.get("slices") or ():
                slices.setdefault(str(name), []).append(row)
        by_slice = {k: _latency_scope(v) for k, v in sorted(slices.items())}
        out[lang] = _latency_scope(group, by_slice or None)
    return out


def latency_by_language(rows: Iterable[Mapping[str, Any]]) -> dict[str, JSONValue]:
    """`latency_scopes` as results.json writes it (`resources_by_language`)."""
    return {lang: scope.to_dict() for lang, scope in latency_scopes(rows).items()}
