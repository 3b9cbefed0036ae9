"""What an engine that streams adds to the engine contract, and the arm settings for it.

An arm asks for streaming with `streaming=true` (and `chunk_ms=`, `realtime=`,
`max_partials=`). The engine then feeds each clip in chunks, records every partial
result with the audio time fed and the wall time it arrived (`StreamRecorder`), and
returns the clip's `Hypothesis` with its `stream` set, through the same `transcribe` call
every engine has, so the run loop needs no second path. An engine that cannot stream
refuses `streaming=true` when its settings are read, before any model loads.

The row of predictions.jsonl carries the record (`stream_record`); the figures are
`earmark.metrics.streaming`'s; the results section is `earmark.scoring.streaming_section`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

from earmark.engines.base import Clip, Engine, Hypothesis
from earmark.metrics.streaming import MAX_RECORDED, PartialResult, StreamTrace
from earmark.results.codec import JSONObject, JSONValue

if TYPE_CHECKING:
    import numpy as np

    from earmark.engines.settings import SettingsReader

#: The arm settings `read_streaming` consumes.
SETTINGS = ("streaming", "chunk_ms", "realtime", "max_partials")
DEFAULT_CHUNK_MS = 160


@dataclass(frozen=True)
class StreamingOptions:
    """How an arm streams. `realtime` paces the chunks at the audio's own rate (a live
    microphone), so wall-clock figures include waiting for audio; without it chunks are
    fed as fast as the engine takes them and wall times measure compute alone."""

    enabled: bool = False
    chunk_seconds: float = DEFAULT_CHUNK_MS / 1000
    realtime: bool = False
    max_partials: int = MAX_RECORDED

    def to_json(self) -> dict[str, JSONValue]:
        return {
            "streaming": self.enabled,
            "chunk_seconds": self.chunk_seconds,
            "realtime": self.realtime,
            "max_partials": self.max_partials,
        }


def read_streaming(reader: SettingsReader) -> StreamingOptions:
    """The streaming settings of an engine that can stream."""
    enabled = reader.boolean("streaming", False)
    chunk_ms = reader.number("chunk_ms", float(DEFAULT_CHUNK_MS), minimum=1.0)
    realtime = reader.boolean("realtime", False)
    max_partials = reader.integer("max_partials", MAX_RECORDED, minimum=2)
    if not enabled:
        given = [k for k in SETTINGS[1:] if k in reader.arm.settings_dict]
        if given:
            raise reader.error(given[0], "only means something with streaming=true")
    return StreamingOptions(enabled, chunk_ms / 1000, realtime, max_partials)


def refuse_streaming(reader: SettingsReader, why: str) -> None:
    """For an engine that cannot stream: `streaming=true` is an error naming why."""
    if reader.boolean("streaming", False):
        raise reader.error(
            "streaming",
            f"this backend does not stream ({why})",
            hint="stream with a sherpa-onnx online model (model_type=online_*) or a stdio "
            "program that sends partial lines (docs/streaming.md)",
        )


@runtime_checkable
class StreamingEngine(Engine, Protocol):
    """An engine that can decode one clip as a stream of chunks."""

    streaming: StreamingOptions

    def transcribe_stream(self, clip: Clip, language: str | None) -> Hypothesis: ...


def streams(engine: object) -> bool:
    """Whether this engine will record partial results for its clips."""
    options = getattr(engine, "streaming", None)
    return (
        isinstance(engine, StreamingEngine)
        and isinstance(options, StreamingOptions)
        and options.enabled
    )


def chunks(samples: np.ndarray, sample_rate: int, chunk_seconds: float) -> Iterator[np.ndarray]:
    """Consecutive chunks of `chunk_seconds` (the last one shorter)."""
    size = max(1, round(chunk_seconds * sample_rate))
    for start in range(0, len(samples), size):
        yield samples[start : start + size]


class StreamRecorder:
    """The clock of one clip's stream: partials, end of input and the final, in seconds
    from `start()` on the monotonic clock."""

    def __init__(self, options: StreamingOptions, audio_seconds: float) -> None:
        self.options = options
        self.audio_seconds = audio_seconds
        self._started = time.perf_counter()
        self._partials: list[PartialResult] = []
        self._last_chunk: float | None = None

    def now(self) -> float:
        return time.perf_counter() - self._started

    def pace(self, audio_fed: float) -> None:
        """With `realtime`, wait until `audio_fed` seconds of audio would have been spoken."""
        if self.options.realtime:
            wait = audio_fed - self.now()
            if wait > 0:
                time.sleep(wait)

    def partial(self, audio_fed: float, text: str) -> float:
        """Record a partial (one whose text is the previous one's is not an update);
        returns the time it arrived."""
        at = self.now()
        text = text.strip()
        if not self._partials or self._partials[-1].text != text:
            self._partials.append(PartialResult(audio_fed, at, text))
        return at

    def input_finished(self, at: float | None = None) -> None:
        """The last chunk of audio has been sent (end of speech), now or `at`."""
        self._last_chunk = self.now() if at is None else at

    def final(self, text: str) -> StreamTrace:
        return StreamTrace(
            partials=tuple(self._partials),
            final_text=text.strip(),
            final_wall_seconds=self.now(),
            last_chunk_wall_seconds=self._last_chunk,
            audio_seconds=self.audio_seconds,
            chunk_seconds=self.options.chunk_seconds,
            max_recorded=self.options.max_partials,
        )


def stream_record(hypothesis: Hypothesis) -> JSONObject | None:
    """The `stream` field of a predictions.jsonl row: None when the clip was not streamed.

    Updates are bounded to the arm's `max_partials` (the first and the last half); the
    figures in the record come from every update."""
    if hypothesis.stream is None:
        return None
    # metrics/ sits below the results layer, so it spells its JSON as `object`.
    return cast("JSONObject", hypothesis.stream.to_json())
