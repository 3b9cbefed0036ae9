"""Kaldi models through Vosk: a folder with `am/`, `conf/` and `graph/`.

Only a local folder is accepted: `vosk.Model(model_name=...)` would download one, which
an offline, reproducible run must never do. A Vosk model has one language and no
language switch, so the language recorded as used is the operator's `model_language=`
declaration or None; the requested language is kept beside it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from earmark.engines.base import Clip, Hypothesis, ModelInfo, Segment
from earmark.engines.clip_audio import SAMPLE_RATE, mono_16k
from earmark.engines.extras import require
from earmark.engines.local_engine import ClipByClipEngine
from earmark.engines.model_source import (
    ModelSource,
    failed_hypothesis,
    fingerprint,
    package_version,
    resolve_source,
)
from earmark.engines.settings import SettingsReader
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError

BACKEND = "vosk"
EXTRA = "vosk"
FEATURE = "the vosk backend"


@dataclass(frozen=True)
class VoskOptions:
    model_language: str | None
    words: bool


def read_options(arm: ArmSpec) -> tuple[VoskOptions, ModelSource]:
    reader = SettingsReader(arm)
    options = VoskOptions(
        model_language=reader.text("model_language"),
        words=reader.boolean("words", True),
    )
    source = resolve_source(arm, reader, what="Vosk model folder")
    reader.finish()
    return options, source


class VoskEngine(ClipByClipEngine[VoskOptions, ModelSource]):
    """One Vosk model loaded once; a fresh recogniser per clip."""

    def __init__(self, arm: ArmSpec, options: VoskOptions, source: ModelSource) -> None:
        super().__init__(arm, options, source)
        self._vosk: Any = None

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> tuple[VoskOptions, ModelSource]:
        return read_options(arm)

    @classmethod
    def require_runtime(cls) -> None:
        require("vosk", FEATURE, EXTRA)

    def load(self) -> ModelInfo:
        self._start_load()
        self._vosk = require("vosk", FEATURE, EXTRA)
        assert self.source.path is not None
        folder = self.source.path
        files = fingerprint(folder)
        self._vosk.SetLogLevel(-1)
        started = time.perf_counter()
        try:
            self._model = self._vosk.Model(model_path=str(folder))
        except Exception as exc:  # vosk raises a bare Exception("Failed to create a model")
            raise EarmarkError(
                f"arm '{self.name}': Vosk could not load a model from {folder}: {exc}",
                field="model",
                hint="give an unpacked Vosk model folder (am/final.mdl, conf/, graph/)",
            ) from exc
        load_seconds = time.perf_counter() - started
        declared = self.options.model_language
        self._info = ModelInfo(
            backend=BACKEND,
            artifact_id=self.source.artifact_id,
            revision=files.revision,
            file_sha256=files.file_sha256,
            licence=self.source.licence,
            licence_source=self.source.licence_source,
            runtime="vosk",
            runtime_version=package_version("vosk"),
            compute_type=None,
            load_seconds=load_seconds,
            size_bytes=files.size_bytes,
            languages=(declared,) if declared else None,
            deterministic=True,
            determinism_note="Kaldi lattice search (best path): no sampling; each clip gets "
            "a fresh recogniser",
            extra={
                "words": self.options.words,
                "content_revision": files.content_revision,
                "hash_seconds": files.hash_seconds,
            },
        )
        return self._info

    def _one(self, clip: Clip, language: str | None) -> Hypothesis:
        started = time.perf_counter()
        try:
            recognizer = self._vosk.KaldiRecognizer(self._model, float(SAMPLE_RATE))
            recognizer.SetWords(self.options.words)
            pcm = (np.clip(mono_16k(clip), -1.0, 1.0) * 32767).astype("<i2").tobytes()
            recognizer.AcceptWaveform(pcm)
            result = json.loads(recognizer.FinalResult())
        except Exception as exc:  # one bad clip must not end the run; recorded per clip
            return failed_hypothesis(clip.id, language, started, exc)
        return Hypothesis(
            id=clip.id,
            text=str(result.get("text", "")).strip(),
            decode_seconds=time.perf_counter() - started,
            language_requested=language,
            language_used=self.options.model_language,
            segments=word_segments(result.get("result") or []),
            extra={"language_note": "Vosk models have one fixed language"},
        )


def word_segments(words: Sequence[dict[str, Any]]) -> tuple[Segment, ...]:
    """Vosk's per-word results (`start`, `end` in seconds, `word`) as segments."""
    return tuple(
        Segment(float(w["start"]), float(w["end"]), str(w["word"]))
        for w in words
        if {"start", "end", "word"} <= set(w)
    )
