"""Streaming ONNX models through sherpa-onnx's online recogniser.

`model_type=online_transducer | online_paraformer | online_nemo_ctc |
online_zipformer2_ctc` on a `sherpa-onnx` arm. Each clip gets its own stream: the audio is
fed in `chunk_ms` chunks (`accept_waveform`), decoded as soon as the model has a full
chunk (`is_ready` / `decode_stream`), and with `streaming=true` the text after every chunk
is recorded as a partial (`get_result`). After the last chunk come `tail_padding_ms` of
zeros (sherpa-onnx's examples use 0.66 s: a model with right context needs them to
decode the last words) and `input_finished`; what is left is decoded and read as the
final. End of speech, for the final latency, is the moment the last chunk of the clip's
own audio was sent, so the padding's decoding counts in it. Endpoint detection is off:
one clip is one utterance.

Without `streaming=true` the same recogniser decodes the whole clip as one chunk and no
partials are recorded (the text is the same: decoding a stream does not depend on how
the audio was cut into chunks, which the tests check).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from earmark.engines.base import Clip, Hypothesis, ModelInfo
from earmark.engines.clip_audio import SAMPLE_RATE, mono_16k
from earmark.engines.model_source import ModelSource, failed_hypothesis
from earmark.engines.sherpa_onnx_model import SherpaOnnxModel, SherpaOptions
from earmark.engines.spec import ArmSpec
from earmark.engines.streaming import StreamingOptions, StreamRecorder, chunks
from earmark.errors import EarmarkError


class SherpaOnnxOnlineEngine(SherpaOnnxModel):
    """One sherpa-onnx online recogniser; each clip decoded in its own stream."""

    def __init__(self, arm: ArmSpec, options: SherpaOptions, source: ModelSource) -> None:
        super().__init__(arm, options, source)
        self.streaming: StreamingOptions = options.streaming

    def load(self) -> ModelInfo:
        info = super().load()
        extra = {
            **info.extra,
            "online": True,
            "streaming": self.streaming.to_json(),
            "tail_padding_seconds": self.options.tail_padding_seconds,
            "endpoint_detection": False,
        }
        self._info = dataclasses.replace(
            info,
            extra=extra,
            determinism_note=f"{self.options.decoding_method} over one stream per clip: no "
            "sampling; partial timings are wall-clock and vary, the text does not",
        )
        return self._info

    def _recognizer(self, language: str | None) -> Any:
        """One online recogniser for every clip (online models take no language)."""
        if "" in self._recognizers:
            return self._recognizers[""]
        layout = self._layout
        assert layout is not None
        make = self._sherpa.OnlineRecognizer
        common: dict[str, Any] = {
            "tokens": str(layout.tokens),
            "num_threads": self.options.threads,
            "decoding_method": self.options.decoding_method,
            "enable_endpoint_detection": False,
        }
        paths = {role: str(p) for role, p in layout.files.items()}
        try:
            if layout.model_type == "online_transducer":
                recognizer = make.from_transducer(**paths, **common)
            elif layout.model_type == "online_paraformer":
                recognizer = make.from_paraformer(**paths, **common)
            elif layout.model_type == "online_nemo_ctc":
                recognizer = make.from_nemo_ctc(model=paths["model"], **common)
            else:
                recognizer = make.from_zipformer2_ctc(model=paths["model"], **common)
        except (RuntimeError, ValueError, TypeError) as exc:
            raise EarmarkError(
                f"arm '{self.name}': sherpa-onnx could not load the {layout.model_type} "
                f"model: {exc}",
                field="model",
                hint="check model_type= and that the .onnx files are a streaming export",
            ) from exc
        self._recognizers[""] = recognizer
        return recognizer

    def transcribe(self, clips: Sequence[Clip], language: str | None) -> list[Hypothesis]:
        if self._info is None or self._layout is None:
            raise RuntimeError(f"arm '{self.name}': call load() before transcribe()")
        return [self.transcribe_stream(clip, language) for clip in clips]

    def transcribe_stream(self, clip: Clip, language: str | None) -> Hypothesis:
        """Decode one clip chunk by chunk; with `streaming=true`, record its partials."""
        started = time.perf_counter()
        samples = mono_16k(clip)
        duration = len(samples) / SAMPLE_RATE
        options = self.streaming
        recorder = StreamRecorder(options, duration) if options.enabled else None
        try:
            recognizer = self._recognizer(None)
            stream = recognizer.create_stream()
            step = options.chunk_seconds if options.enabled else max(duration, 1e-3)
            fed = 0
            for chunk in chunks(samples, SAMPLE_RATE, step):
                fed += len(chunk)
                if recorder is not None:
                    recorder.pace(fed / SAMPLE_RATE)
                stream.accept_waveform(SAMPLE_RATE, chunk)
                while recognizer.is_ready(stream):
                    recognizer.decode_stream(stream)
                if recorder is not None:
                    recorder.partial(fed / SAMPLE_RATE, str(recognizer.get_result(stream)))
            if recorder is not None:
                recorder.input_finished()
            padding = round(self.options.tail_padding_seconds * SAMPLE_RATE)
            if padding:
                stream.accept_waveform(SAMPLE_RATE, np.zeros(padding, dtype=np.float32))
            stream.input_finished()
            while recognizer.is_ready(stream):
                recognizer.decode_stream(stream)
            text = str(recognizer.get_result(stream)).strip()
        except Exception as exc:  # one bad clip must not end the run; recorded per clip
            return failed_hypothesis(clip.id, language, started, exc)
        return Hypothesis(
            id=clip.id,
            text=text,
            decode_seconds=time.perf_counter() - started,
            language_requested=language,
            language_used=None,
            stream=None if recorder is None else recorder.final(text),
        )
