"""What a sherpa-onnx model is to earmark: the arm's settings, the folder's layout, and loading.

The offline recogniser (`earmark.engines.sherpa_onnx`) and the online one
(`earmark.engines.sherpa_onnx_online`) read the same settings, find their files the same way
and record the same provenance; they differ only in the recogniser they build and how they
feed it, so those are all that each of them holds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earmark.engines.base import ModelInfo
from earmark.engines.extras import require
from earmark.engines.local_engine import LocalModelEngine
from earmark.engines.model_source import (
    ModelSource,
    fingerprint,
    package_version,
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


class SherpaOnnxModel(LocalModelEngine[SherpaOptions, ModelSource]):
    """A loaded sherpa-onnx model folder; each subclass builds and feeds its recogniser."""

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
        """The sherpa-onnx recogniser for `language`, built once and kept."""
        raise NotImplementedError

    def close(self) -> None:
        self._recognizers.clear()


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
