"""Offline ONNX models through sherpa-onnx: transducer, Paraformer, CTC, Whisper, SenseVoice.

A sherpa-onnx model is a folder of `*.onnx` files and a `tokens.txt`; its layout says
what kind of model it is (`model_type=auto`): a joiner means transducer (a NeMo one,
Parakeet TDT or RNN-T, when the encoder's metadata describes NeMo's prediction network;
`earmark.engines.sherpa_nemo`), an encoder and decoder without one mean Whisper, a single
`model.onnx` means Paraformer unless `model_type=` says `nemo_ctc`, `wenet_ctc` or
`sense_voice`. The weight type is the file
variant: `compute_type=int8` loads the `*.int8.onnx` files, `float32` the plain ones, so a
weight-type sweep compares the two exports of one model. Only the files loaded are hashed.

Streaming exports look like offline ones on disk, so they are named, never detected:
`model_type=online_transducer`, `online_paraformer`, `online_nemo_ctc` or
`online_zipformer2_ctc` loads sherpa-onnx's online recogniser
(`earmark.engines.sherpa_onnx_online`), which can record partial results
(`streaming=true`, docs/streaming.md).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from earmark.engines.base import Clip, Hypothesis, Segment
from earmark.engines.clip_audio import SAMPLE_RATE, mono_16k
from earmark.engines.local_engine import LocalModelEngine
from earmark.engines.model_source import ModelSource, failed_hypothesis, primary_language
from earmark.engines.sherpa_onnx_model import ONLINE_MODEL_TYPES, SherpaOnnxModel, SherpaOptions
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError


class SherpaOnnxEngine(SherpaOnnxModel):
    """One sherpa-onnx offline recogniser; clips decoded one stream at a time. The backend's
    entry point: an online model type is handed to the online recogniser's engine."""

    @classmethod
    def from_spec(cls, arm: ArmSpec) -> LocalModelEngine[SherpaOptions, ModelSource]:
        """An online model type gets the online recogniser's engine."""
        options, source = cls.check_spec(arm)
        cls.require_runtime()
        if options.model_type in ONLINE_MODEL_TYPES:
            from earmark.engines.sherpa_onnx_online import SherpaOnnxOnlineEngine

            return SherpaOnnxOnlineEngine(arm, options, source)
        return cls(arm, options, source)

    def _recognizer(self, language: str | None) -> Any:
        """Whisper and SenseVoice bind the language at construction: one per language."""
        layout = self._layout
        assert layout is not None
        key = (language or "") if layout.model_type in ("whisper", "sense_voice") else ""
        if key in self._recognizers:
            return self._recognizers[key]
        make = self._sherpa.OfflineRecognizer
        common: dict[str, Any] = {
            "tokens": str(layout.tokens),
            "num_threads": self.options.threads,
            "decoding_method": self.options.decoding_method,
        }
        paths = {role: str(p) for role, p in layout.files.items()}
        try:
            if layout.model_type == "transducer":
                recognizer = make.from_transducer(**paths, **common)
            elif layout.model_type == "nemo_transducer":
                recognizer = make.from_transducer(**paths, model_type="nemo_transducer", **common)
            elif layout.model_type == "whisper":
                recognizer = make.from_whisper(
                    paths["encoder"], paths["decoder"], language=key, **common
                )
            elif layout.model_type == "paraformer":
                recognizer = make.from_paraformer(paraformer=paths["model"], **common)
            elif layout.model_type == "sense_voice":
                recognizer = make.from_sense_voice(model=paths["model"], language=key, **common)
            elif layout.model_type == "nemo_ctc":
                recognizer = make.from_nemo_ctc(model=paths["model"], **common)
            else:
                recognizer = make.from_wenet_ctc(model=paths["model"], **common)
        except (RuntimeError, ValueError) as exc:
            raise EarmarkError(
                f"arm '{self.name}': sherpa-onnx could not load the {layout.model_type} model: "
                f"{exc}",
                field="model",
                hint="check model_type= and that the .onnx files are complete exports",
            ) from exc
        self._recognizers[key] = recognizer
        return recognizer

    def transcribe(self, clips: Sequence[Clip], language: str | None) -> list[Hypothesis]:
        if self._info is None or self._layout is None:
            raise RuntimeError(f"arm '{self.name}': call load() before transcribe()")
        takes_language = self._layout.model_type in ("whisper", "sense_voice")
        code = primary_language(language)
        forced = code if takes_language and self.options.language_policy == "forced" else None
        return [self._one(clip, language, forced) for clip in clips]

    def _one(self, clip: Clip, language: str | None, forced: str | None) -> Hypothesis:
        started = time.perf_counter()
        try:
            recognizer = self._recognizer(forced)
            stream = recognizer.create_stream()
            stream.accept_waveform(SAMPLE_RATE, mono_16k(clip))
            recognizer.decode_stream(stream)
            result = stream.result
        except Exception as exc:  # one bad clip must not end the run; recorded per clip
            return failed_hypothesis(clip.id, language, started, exc)
        seconds = time.perf_counter() - started
        used = getattr(result, "lang", "") or forced
        return Hypothesis(
            id=clip.id,
            text=str(result.text).strip(),
            decode_seconds=seconds,
            language_requested=language,
            language_used=str(used).strip("<|>") if used else None,
            segments=token_segments(
                list(getattr(result, "tokens", []) or []),
                list(getattr(result, "timestamps", []) or []),
                len(mono_16k(clip)) / SAMPLE_RATE,
            ),
        )


def token_segments(
    tokens: Sequence[str], starts: Sequence[float], duration: float
) -> tuple[Segment, ...]:
    """Token start times to segments: each token ends where the next one starts."""
    if not tokens or len(tokens) != len(starts):
        return ()
    ends = [*starts[1:], max(duration, starts[-1])]
    return tuple(
        Segment(float(s), float(e), str(t)) for t, s, e in zip(tokens, starts, ends, strict=True)
    )
