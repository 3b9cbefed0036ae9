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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earmark.engines.base import Clip, Hypothesis, ModelInfo, Segment
from earmark.engines.clip_audio import SAMPLE_RATE, mono_16k
from earmark.engines.extras import require
from earmark.engines.local_engine import LocalModelEngine
from earmark.engines.model_source import (
    ModelSource,
    failed_hypothesis,
    fingerprint,
    package_version,
    primary_language,
    read_weight_type,
    resolve_source,
)
from earmark.engines.onnx_protobuf import onnx_metadata
from earmark.engines.registry import ONNX_WEIGHT_TYPES
from earmark.engines.settings import SettingsReader
from earmark.engines.sherpa_nemo import is_nemo_encoder, is_tdt
from earmark.engines.sherpa_nemo import problems as nemo_problems
from earmark.engines.spec import ArmSpec
from earmark.engines.streaming import StreamingOptions, read_streaming, refuse_streaming
from earmark.errors import EarmarkError

BACKEND = "sherpa-onnx"
EXTRA = "sherpa-onnx"
FEATURE = "the sherpa-onnx backend"
MODEL_TYPES = (
    "auto",
    "transducer",
    "nemo_transducer",
    "paraformer",
    "whisper",
    "nemo_ctc",
    "wenet_ctc",
    "sense_voice",
    "online_transducer",
    "online_paraformer",
    "online_nemo_ctc",
    "online_zipformer2_ctc",
)
#: Streaming exports, decoded by sherpa-onnx's OnlineRecognizer.
ONLINE_MODEL_TYPES = tuple(t for t in MODEL_TYPES if t.startswith("online_"))
#: Zeros fed after the audio before `input_finished`, as sherpa-onnx's own streaming
#: examples do, so a model with right context decodes the last words.
DEFAULT_TAIL_PADDING_MS = 660
#: Which files each model type needs, by role.
_ROLES = {
    "transducer": ("encoder", "decoder", "joiner"),
    "nemo_transducer": ("encoder", "decoder", "joiner"),
    "whisper": ("encoder", "decoder"),
    "paraformer": ("model",),
    "nemo_ctc": ("model",),
    "wenet_ctc": ("model",),
    "sense_voice": ("model",),
    "online_transducer": ("encoder", "decoder", "joiner"),
    "online_paraformer": ("encoder", "decoder"),
    "online_nemo_ctc": ("model",),
    "online_zipformer2_ctc": ("model",),
}


@dataclass(frozen=True)
class SherpaOptions:
    model_type: str
    compute_type: str | None
    threads: int
    decoding_method: str
    language_policy: str
    #: Online models only (`model_type=online_*`): partials, chunking and tail padding.
    streaming: StreamingOptions = StreamingOptions()
    tail_padding_seconds: float = 0.0


def read_options(arm: ArmSpec) -> tuple[SherpaOptions, ModelSource]:
    reader = SettingsReader(arm)
    model_type = reader.choice("model_type", MODEL_TYPES, "auto")
    streaming = StreamingOptions()
    tail_padding = 0.0
    if model_type in ONLINE_MODEL_TYPES:
        streaming = read_streaming(reader)
        tail_padding = reader.number("tail_padding_ms", DEFAULT_TAIL_PADDING_MS, 0.0) / 1000
    else:
        refuse_streaming(reader, "an offline model; a streaming export needs model_type=online_*")
    options = SherpaOptions(
        model_type=model_type,
        compute_type=read_weight_type(reader, ONNX_WEIGHT_TYPES, None),
        threads=reader.integer("threads", 1, minimum=1),
        decoding_method=reader.choice(
            "decoding_method", ("greedy_search", "modified_beam_search"), "greedy_search"
        ),
        language_policy=reader.choice("language_policy", ("forced", "detect"), "forced"),
        streaming=streaming,
        tail_padding_seconds=tail_padding,
    )
    source = resolve_source(arm, reader, what="sherpa-onnx model folder")
    reader.finish()
    return options, source


@dataclass(frozen=True)
class SherpaLayout:
    """The files one model type needs, chosen for one weight type."""

    model_type: str
    weight_type: str
    files: dict[str, Path]
    tokens: Path

    def loaded(self) -> list[Path]:
        return [*self.files.values(), self.tokens]


def find_layout(folder: Path, model_type: str, weight_type: str | None) -> SherpaLayout:
    """Pick the model type and its files; `ValueError` says what is missing."""
    onnx = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix == ".onnx")
    tokens = sorted(p for p in folder.iterdir() if p.is_file() and p.name.endswith("tokens.txt"))
    if not tokens:
        raise ValueError("no tokens.txt")
    if not onnx:
        raise ValueError("no .onnx files")
    kind = model_type
    if kind == "auto":
        names = " ".join(p.name for p in onnx)
        if "joiner" in names:
            kind = "transducer"
        elif "encoder" in names and "decoder" in names:
            kind = "whisper"
        else:
            kind = "paraformer"
    chosen_type = weight_type
    if chosen_type is None:
        has_float = any(not p.name.endswith(".int8.onnx") for p in onnx)
        chosen_type = "float32" if has_float else "int8"
    variants = [p for p in onnx if p.name.endswith(".int8.onnx") == (chosen_type == "int8")]
    files: dict[str, Path] = {}
    for role in _ROLES[kind]:
        if role == "model":
            matches = [p for p in variants if not any(r in p.name for r in _ROLES["transducer"])]
        else:
            matches = [p for p in variants if role in p.name]
        if len(matches) != 1:
            found = ", ".join(p.name for p in matches) or "none"
            raise ValueError(
                f"{kind} needs exactly one {chosen_type} {role} .onnx file (found: {found})"
            )
        files[role] = matches[0]
    if kind == "transducer" and model_type == "auto" and is_nemo_encoder(files["encoder"]):
        kind = "nemo_transducer"  # Parakeet TDT and NeMo RNN-T exports
    return SherpaLayout(kind, chosen_type, files, tokens[0])


class SherpaOnnxEngine(LocalModelEngine[SherpaOptions, ModelSource]):
    """One sherpa-onnx offline recogniser; clips decoded one stream at a time."""

    def __init__(self, arm: ArmSpec, options: SherpaOptions, source: ModelSource) -> None:
        super().__init__(arm, options, source)
        self._sherpa: Any = None
        self._recognizers: dict[str, Any] = {}
        self._layout: SherpaLayout | None = None

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> tuple[SherpaOptions, ModelSource]:
        return read_options(arm)

    @classmethod
    def require_runtime(cls) -> None:
        require("sherpa_onnx", FEATURE, EXTRA)

    @classmethod
    def from_spec(cls, arm: ArmSpec) -> LocalModelEngine[SherpaOptions, ModelSource]:
        """An online model type gets the online recogniser's engine."""
        options, source = cls.check_spec(arm)
        cls.require_runtime()
        if options.model_type in ONLINE_MODEL_TYPES:
            from earmark.engines.sherpa_onnx_online import SherpaOnnxOnlineEngine

            return SherpaOnnxOnlineEngine(arm, options, source)
        return cls(arm, options, source)

    def load(self) -> ModelInfo:
        self._start_load()
        self._sherpa = require("sherpa_onnx", FEATURE, EXTRA)
        assert self.source.path is not None
        folder = self.source.path
        try:
            layout = find_layout(folder, self.options.model_type, self.options.compute_type)
        except ValueError as exc:
            raise EarmarkError(
                f"arm '{self.name}': {folder} is not a sherpa-onnx model folder: {exc}",
                field="model",
                hint="a folder with tokens.txt and the model's .onnx files; set model_type= "
                "for CTC or SenseVoice models",
            ) from exc
        if layout.model_type == "nemo_transducer":
            found = nemo_problems(layout.files["encoder"], layout.files["joiner"], layout.tokens)
            if found:
                raise EarmarkError(
                    f"arm '{self.name}': {folder} is not a sherpa-onnx NeMo transducer: "
                    + "; ".join(found),
                    field="model",
                    hint="export it with sherpa-onnx's NeMo scripts (Parakeet TDT: "
                    "sherpa-onnx-nemo-parakeet-tdt-*); sherpa-onnx would end the process on "
                    "these files",
                )
        missing = missing_metadata(layout)
        if missing:
            raise EarmarkError(
                f"arm '{self.name}': {layout.files['model'].name} is not a sherpa-onnx "
                f"{layout.model_type} model: its metadata lacks {', '.join(missing)}",
                field="model_type",
                hint="set model_type= to what the model is (nemo_ctc, wenet_ctc, sense_voice, "
                "paraformer); sherpa-onnx would end the process on this file",
            )
        files = fingerprint(folder, layout.loaded())
        self._layout = layout
        started = time.perf_counter()
        self._recognizer(None)  # load now, so a bad model fails here, not on the first clip
        load_seconds = time.perf_counter() - started
        self._info = ModelInfo(
            backend=BACKEND,
            artifact_id=self.source.artifact_id,
            revision=files.revision,
            file_sha256=files.file_sha256,
            licence=self.source.licence,
            licence_source=self.source.licence_source,
            runtime="sherpa-onnx",
            runtime_version=package_version("sherpa-onnx"),
            compute_type=layout.weight_type,
            load_seconds=load_seconds,
            size_bytes=files.size_bytes,
            deterministic=True,
            determinism_note=f"{self.options.decoding_method} (argmax or fixed-width beam): "
            "no sampling; each clip is decoded in its own stream",
            extra={
                "model_type": layout.model_type,
                "files": {role: p.name for role, p in layout.files.items()},
                "compute_type_requested": self.options.compute_type,
                "threads": self.options.threads,
                "decoding_method": self.options.decoding_method,
                **(
                    {"nemo_decoding": "tdt" if is_tdt(layout.files["encoder"]) else "rnnt"}
                    if layout.model_type == "nemo_transducer"
                    else {}
                ),
                "onnxruntime_version": package_version("onnxruntime"),
                "content_revision": files.content_revision,
                "hash_seconds": files.hash_seconds,
            },
        )
        return self._info

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

    def close(self) -> None:
        self._recognizers.clear()


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


#: Metadata keys sherpa-onnx reads without a default for a single-file model type; it
#: ends the whole process (exit, not an exception) when one is missing.
REQUIRED_METADATA = {
    "paraformer": ("vocab_size", "lfr_window_size", "lfr_window_shift", "neg_mean", "inv_stddev"),
    "nemo_ctc": ("vocab_size", "subsampling_factor"),
    "online_nemo_ctc": (
        "window_size",
        "chunk_shift",
        "subsampling_factor",
        "vocab_size",
        *(f"cache_last_{name}_dim{i}" for name in ("channel", "time") for i in (1, 2, 3)),
    ),
}


def missing_metadata(layout: SherpaLayout) -> list[str]:
    """Required metadata keys absent from the model file; empty when unknown or all there.

    A file that is not readable protobuf is left to sherpa-onnx, which raises on it.
    """
    required = REQUIRED_METADATA.get(layout.model_type)
    if not required:
        return []
    metadata = onnx_metadata(layout.files["model"])
    if metadata is None:
        return []
    return [key for key in required if key not in metadata]
