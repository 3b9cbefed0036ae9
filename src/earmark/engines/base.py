"""The engine contract every ASR backend implements.

An engine is built from an arm's settings, loads its model exactly once (`load`), then
transcribes every clip of the run in the same process. Heavy runtimes are imported inside
`load`, never at module import, so `import earmark` stays light.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from earmark.results.codec import JSONValue

if TYPE_CHECKING:
    from earmark.metrics.streaming import StreamTrace


@dataclass(frozen=True)
class ModelInfo:
    """What was actually loaded, recorded in provenance. Licence fields are assertions."""

    backend: str
    artifact_id: str
    revision: str | None
    #: SHA-256 of every weight/tokenizer/config file actually loaded, keyed by relative path.
    file_sha256: dict[str, str]
    licence: str | None
    licence_source: str | None
    runtime: str
    runtime_version: str | None
    compute_type: str | None
    load_seconds: float
    size_bytes: int | None = None
    languages: tuple[str, ...] | None = None
    #: Whether the model can only produce English (e.g. Whisper *.en checkpoints).
    english_only: bool = False
    extra: dict[str, JSONValue] = field(default_factory=dict)
    #: Whether the same clip, seed and thread settings always give the same text. `None`
    #: means the engine does not say, which readers treat as not deterministic.
    deterministic: bool | None = None
    #: Why (how sampling is seeded, or what earmark cannot control).
    determinism_note: str | None = None


@dataclass(frozen=True)
class Clip:
    """One utterance's audio handed to an engine: 16 kHz mono float32."""

    id: str
    audio: np.ndarray
    sample_rate: int
    path: str | None = None
    duration: float | None = None
    #: Seed for any sampling the engine does on this clip (derived by the runner from the
    #: plan seed, the clip id and the repeat, so a clip decodes the same in any order,
    #: process or resumed run). `None`: the caller asked for no seeding.
    seed: int | None = None


@dataclass(frozen=True)
class Segment:
    start: float
    end: float
    text: str


@dataclass(frozen=True)
class Hypothesis:
    """One clip's output. `language_used` is what the engine actually decoded with."""

    id: str
    text: str
    decode_seconds: float
    language_requested: str | None = None
    language_used: str | None = None
    segments: tuple[Segment, ...] = ()
    #: Word timings (`text` is the word) when the engine gives them, e.g. faster-whisper
    #: with word_timestamps=true; scored against a manifest's `custom.words`.
    words: tuple[Segment, ...] = ()
    #: Set when the engine failed on this clip; text is then "" and the row is counted as
    #: all deletions under this reason code.
    error: str | None = None
    extra: dict[str, JSONValue] = field(default_factory=dict)
    #: The partial results and their timings when the arm streamed this clip
    #: (`streaming=true`); None for an engine or arm that does not stream.
    stream: StreamTrace | None = None


@runtime_checkable
class Engine(Protocol):
    name: str

    def load(self) -> ModelInfo: ...

    def transcribe(self, clips: Sequence[Clip], language: str | None) -> list[Hypothesis]: ...

    def close(self) -> None: ...
