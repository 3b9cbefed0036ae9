"""Backend name → builder, plus what each backend can do (for `earmark engines` and docs).

Builders live in their own modules and import their runtime only when an engine is
built, so listing backends or validating a plan never imports a heavy runtime.
"""

from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass
from typing import Any

from earmark.engines.base import Engine
from earmark.engines.extras import is_installed
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError

#: CTranslate2 compute types faster-whisper accepts (the weight type of an arm).
CTRANSLATE2_WEIGHT_TYPES = (
    "default",
    "int8",
    "int8_float32",
    "int8_float16",
    "int8_bfloat16",
    "int16",
    "float16",
    "bfloat16",
    "float32",
)
#: Torch dtypes the transformers backends load weights in.
TORCH_WEIGHT_TYPES = ("float32", "bfloat16", "float16")
#: GGML file types (the `ftype` in a whisper.cpp model header).
GGML_WEIGHT_TYPES = (
    "f32", "f16", "q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k",
)  # fmt: skip
#: sherpa-onnx model files: plain `*.onnx` (float32) or `*.int8.onnx`.
ONNX_WEIGHT_TYPES = ("float32", "int8")


@dataclass(frozen=True)
class BackendInfo:
    """What a backend needs and records; shown by `earmark engines`."""

    name: str
    summary: str
    #: pip extra that installs the runtime (`pip install 'earmark[<extra>]'`); None if built in.
    extra: str | None
    #: Module whose presence means the runtime is installed; None if nothing is needed.
    runtime_module: str | None
    formats: str
    weight_types: tuple[str, ...]
    languages: str
    timestamps: str
    provenance: str
    #: "module:Class" of the engine; the class has `from_spec(ArmSpec)`.
    builder: str

    def installed(self) -> bool:
        return self.runtime_module is None or is_installed(self.runtime_module)

    def to_dict(self) -> dict[str, Any]:
        row = asdict(self)
        row.pop("builder")
        row["weight_types"] = list(self.weight_types)
        row["installed"] = self.installed()
        return row


_PROVENANCE = "SHA-256 of every file loaded, revision (HF cache snapshot commit or sha256: of "
_MORE_BACKENDS = (
    BackendInfo(
        name="transformers-ctc",
        summary="CTC models via transformers: wav2vec2, XLS-R, MMS (target_lang adapters)",
        extra="transformers",
        runtime_module="transformers",
        formats="save_pretrained folder (AutoModelForCTC + processor); hub id with "
        "download=true&revision=<commit>",
        weight_types=TORCH_WEIGHT_TYPES,
        languages="no language token: language_used = target_lang or model_language, else None",
        timestamps="none",
        provenance=_PROVENANCE + "the listing), dtype read back from the parameters, "
        "torch/transformers versions",
        builder="earmark.engines.transformers_ctc:TransformersCtcEngine",
    ),
    BackendInfo(
        name="transformers-seq2seq",
        summary="Whisper / AutoModelForSpeechSeq2Seq via transformers",
        extra="transformers",
        runtime_module="transformers",
        formats="save_pretrained folder; hub id with download=true&revision=<commit>",
        weight_types=TORCH_WEIGHT_TYPES,
        languages="Whisper: language_policy forced (language token) | detect | refuse; "
        "language_used read from the emitted language token",
        timestamps="none",
        provenance=_PROVENANCE + "the listing), dtype read back, english_only, languages",
        builder="earmark.engines.transformers_seq2seq:TransformersSeq2SeqEngine",
    ),
    BackendInfo(
        name="whisper-cpp",
        summary="whisper.cpp GGML models via pywhispercpp",
        extra="whisper-cpp",
        runtime_module="pywhispercpp",
        formats="ggml .bin file; {compute_type} in the path picks one file per weight type",
        weight_types=GGML_WEIGHT_TYPES,
        languages="language_policy forced | detect | refuse; multilingual read from the model",
        timestamps="segments",
        provenance="SHA-256 of the file, ftype and hyper-parameters read from its header",
        builder="earmark.engines.whisper_cpp:WhisperCppEngine",
    ),
    BackendInfo(
        name="sherpa-onnx",
        summary="sherpa-onnx offline transducer / CTC / Paraformer / Whisper ONNX folders",
        extra="sherpa-onnx",
        runtime_module="sherpa_onnx",
        formats="folder with tokens.txt and *.onnx (model_type=auto detects the layout)",
        weight_types=ONNX_WEIGHT_TYPES,
        languages="Whisper models take the language; others: the model's own (None)",
        timestamps="segments from token timestamps when the model gives them",
        provenance=_PROVENANCE + "the listing) of the files loaded, model type, int8 or not",
        builder="earmark.engines.sherpa_onnx:SherpaOnnxEngine",
    ),
    BackendInfo(
        name="vosk",
        summary="Kaldi models via Vosk",
        extra="vosk",
        runtime_module="vosk",
        formats="Vosk model folder (am/, conf/, graph/)",
        weight_types=(),
        languages="fixed by the model: model_language= declares it, else None",
        timestamps="segments per word",
        provenance=_PROVENANCE + "the listing), vosk version",
        builder="earmark.engines.vosk:VoskEngine",
    ),
    BackendInfo(
        name="funasr",
        summary="research adapter: FunASR AutoModel (Paraformer-zh); never a base dependency",
        extra="funasr",
        runtime_module="funasr",
        formats="local FunASR model folder (model.pt, config.yaml, tokens)",
        weight_types=("float32",),
        languages="fixed by the model (Paraformer-zh: zh)",
        timestamps="segments from sentence_info or per-token timestamps",
        provenance=_PROVENANCE + "the listing), funasr version",
        builder="earmark.engines.funasr:FunAsrEngine",
    ),
    BackendInfo(
        name="qwen3-asr",
        summary="research adapter: Qwen3-ASR via the qwen-asr package; never a base dependency",
        extra="qwen3-asr",
        runtime_module="qwen_asr",
        formats="local Qwen3-ASR folder; hub id with download=true&revision=<commit>",
        weight_types=TORCH_WEIGHT_TYPES,
        languages="language_policy forced (language name) | detect; language_used as reported",
        timestamps="segments with a forced aligner (aligner= folder)",
        provenance=_PROVENANCE + "the listing), dtype, qwen-asr version",
        builder="earmark.engines.qwen3_asr:Qwen3AsrEngine",
    ),
)

BACKENDS: dict[str, BackendInfo] = {
    info.name: info
    for info in (
        BackendInfo(
            name="faster-whisper",
            summary="Whisper through faster-whisper / CTranslate2 (CPU or CUDA)",
            extra="faster-whisper",
            runtime_module="faster_whisper",
            formats="CTranslate2 Whisper folder (path), bundled:tiny.en, "
            "hub id with download=true&revision=<commit>",
            weight_types=CTRANSLATE2_WEIGHT_TYPES,
            languages="language_policy forced (default) | detect | refuse; English-only "
            "models answer in English, recorded as a mismatch",
            timestamps="segments; words with word_timestamps=true",
            provenance="SHA-256 of every file loaded, content revision (or hub commit), "
            "compute type read back, runtime versions, english_only, load seconds",
            builder="earmark.engines.faster_whisper:FasterWhisperEngine",
        ),
        BackendInfo(
            name="http",
            summary="OpenAI-compatible /audio/transcriptions endpoint (stdlib urllib)",
            extra=None,
            runtime_module=None,
            formats="base URL of the API (model= names the hosted model)",
            weight_types=(),
            languages="language_policy forced (sends language, default) | detect",
            timestamps="segments when the server answers verbose_json",
            provenance="endpoint without credentials, model name, name of the key's env "
            "variable; revision unverifiable (None)",
            builder="earmark.engines.http_api:HttpEngine",
        ),
        BackendInfo(
            name="command",
            summary=(
                "any external program: template with {audio}, {language} and {seed}, "
                "text on stdout"
            ),
            extra=None,
            runtime_module=None,
            formats="command template",
            weight_types=(),
            languages="passed as {language}; what the program used is unknown (None)",
            timestamps="none",
            provenance="command template; SHA-256 of the executable, of every existing file "
            "the template names and of the model= file or folder (unverifiable without model=)",
            builder="earmark.engines.command:CommandEngine",
        ),
        BackendInfo(
            name="precomputed",
            summary="hypotheses saved by any system, JSONL or TSV keyed by utterance id",
            extra=None,
            runtime_module=None,
            formats="JSONL (.jsonl) or TSV with a header (.tsv)",
            weight_types=(),
            languages="as recorded in the file (optional language field)",
            timestamps="none",
            provenance="SHA-256 of the hypothesis file",
            builder="earmark.engines.precomputed:PrecomputedEngine",
        ),
        *_MORE_BACKENDS,
    )
}


def backend_info(backend: str) -> BackendInfo:
    try:
        return BACKENDS[backend]
    except KeyError:
        raise EarmarkError(
            f"unknown backend {backend!r}",
            field="backend",
            hint="known backends: " + ", ".join(sorted(BACKENDS)),
        ) from None


def supported_weight_types(backend: str) -> tuple[str, ...]:
    """Weight (compute) types an arm of this backend may request; () if not applicable."""
    return backend_info(backend).weight_types


def validate_arm(spec: ArmSpec) -> None:
    """Check backend, model reference and settings without importing any runtime."""
    _engine_class(spec.backend).check_spec(spec)


def build_engine(spec: ArmSpec) -> Engine:
    """An engine for this arm, settings validated; its model is loaded by `load()`.

    Raises `EarmarkError` for a bad setting (naming the arm and key) and
    `MissingExtraError` when the backend's runtime is not installed.
    """
    engine: Engine = _engine_class(spec.backend).from_spec(spec)
    return engine


def _engine_class(backend: str) -> Any:
    module_name, _, class_name = backend_info(backend).builder.partition(":")
    return getattr(importlib.import_module(module_name), class_name)
