"""Backend name → builder, plus what each backend can do (for `earmark engines` and docs).

Builders live in their own modules and import their runtime only when an engine is
built, so listing backends or validating a plan never imports a heavy runtime.

Installed distributions add backends through the entry-point group `earmark.engines`
(name = backend, value = `module:Class`), without forking earmark. Plug-ins are looked up
only when a name is not built in, or when `earmark engines` lists them; one that fails to
import or lacks the contract is listed with its error and never stops anything else.
"""

from __future__ import annotations

import dataclasses
import importlib
import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from earmark.engines.base import Clip, Engine, Hypothesis, ModelInfo
from earmark.engines.extras import is_installed
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue

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
    #: For a plug-in backend, the distribution that installed it ("name version").
    plugin: str | None = None

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
        summary="sherpa-onnx offline transducer / CTC / Paraformer / Whisper ONNX folders; "
        "streaming exports with model_type=online_*",
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
            name="azure-speech",
            summary="Microsoft Azure speech-to-text REST API for short audio (stdlib http)",
            extra=None,
            runtime_module=None,
            formats="the region's endpoint, e.g. https://westeurope.stt.speech.microsoft.com "
            "(key in AZURE_SPEECH_KEY or api_key_env=)",
            weight_types=(),
            languages="a locale: locale= (e.g. ga-IE), else the row's tag when it has a region",
            timestamps="one segment from the result's Offset and Duration",
            provenance="endpoint without credentials, locale, text form (display, lexical "
            "or itn), profanity setting, name of the key's env variable; model unverifiable",
            builder="earmark.engines.azure_speech:AzureSpeechEngine",
        ),
        BackendInfo(
            name="command",
            summary=(
                "any external program: template with {audio}, {language} and {seed}, text on stdout"
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
            name="stdio",
            summary="any external program started once per arm: one JSON line per clip over "
            "stdin/stdout (docs/stdio_protocol.md)",
            extra=None,
            runtime_module=None,
            formats="command line of a program that speaks the protocol (hello, requests, "
            "shutdown); audio as a 16 kHz WAV path or inline PCM (audio_input=pcm)",
            weight_types=(),
            languages="sent in each request; language_used is what the program answers",
            timestamps="segments when the program answers them",
            provenance="command line; SHA-256 of the executable, of every existing file the "
            "command line names and of the model= file or folder (unverifiable without "
            "model=); the program's hello (name, version, claimed model digest)",
            builder="earmark.engines.stdio:StdioEngine",
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


#: The entry-point group third-party backends register in.
PLUGIN_GROUP = "earmark.engines"
#: A plug-in's backend name: it is the `BACKEND:` of an arm spec, so no ':' or '?'.
_PLUGIN_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
#: Keys a plug-in's `backend_info` mapping may give (each a BackendInfo field).
PLUGIN_INFO_KEYS = (
    "summary",
    "runtime_module",
    "formats",
    "weight_types",
    "languages",
    "timestamps",
    "provenance",
)


@dataclass(frozen=True)
class BrokenPlugin:
    """An entry point in `earmark.engines` that cannot serve as a backend, and why."""

    name: str
    entry_point: str
    plugin: str
    error: str

    def to_dict(self) -> dict[str, JSONValue]:
        return {**asdict(self), "installed": False}


def discover_plugins() -> tuple[dict[str, BackendInfo], list[BrokenPlugin]]:
    """Every installed plug-in backend, and the entry points that failed (never raises
    for a plug-in's fault: importing it, a missing method or bad metadata is its error)."""
    from importlib.metadata import entry_points

    found: dict[str, BackendInfo] = {}
    broken: list[BrokenPlugin] = []
    for entry in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: (e.name, e.value)):
        dist = getattr(entry, "dist", None)
        source = f"{dist.name} {dist.version}" if dist is not None else "unknown distribution"
        try:
            if entry.name in found:
                raise ValueError(f"backend name already registered by {found[entry.name].plugin}")
            found[entry.name] = plugin_backend_info(entry.name, entry.value, entry.load(), source)
        except Exception as exc:  # a plug-in's bug is listed, not raised
            message = f"{type(exc).__name__}: {exc}".replace("\n", " ")[:500]
            broken.append(BrokenPlugin(entry.name, entry.value, source, message))
    return found, broken


def plugin_backend_info(name: str, value: str, engine_class: Any, source: str) -> BackendInfo:
    """A plug-in's listing row, from its entry point and its class's optional
    `backend_info` mapping; raises when the class cannot be a backend."""
    if not _PLUGIN_NAME.match(name):
        raise ValueError(f"backend name {name!r} is not lower-case letters, digits, '-' or '_'")
    if name in BACKENDS:
        raise ValueError(f"{name!r} is a built-in backend; a plug-in cannot replace it")
    missing = [
        m for m in ("from_spec", "check_spec") if not callable(getattr(engine_class, m, None))
    ]
    if missing:
        raise TypeError(f"{value} has no {' or '.join(missing)} (see docs/engines.md, plug-ins)")
    declared = getattr(engine_class, "backend_info", None) or {}
    if not isinstance(declared, Mapping):
        raise TypeError(f"{value}.backend_info is not a mapping")
    unknown = sorted(set(declared) - set(PLUGIN_INFO_KEYS))
    if unknown:
        raise ValueError(f"{value}.backend_info has unknown key(s) {', '.join(unknown)}")
    doc = (getattr(engine_class, "__doc__", None) or "").strip().splitlines()
    unstated = "not stated by the plug-in"
    weights = declared.get("weight_types") or ()
    if isinstance(weights, str) or not all(isinstance(w, str) for w in weights):
        raise TypeError(f"{value}.backend_info['weight_types'] is not a list of strings")
    return BackendInfo(
        name=name,
        summary=str(declared.get("summary") or (doc[0] if doc else f"plug-in backend {value}")),
        extra=None,
        runtime_module=declared.get("runtime_module"),
        formats=str(declared.get("formats") or unstated),
        weight_types=tuple(weights),
        languages=str(declared.get("languages") or unstated),
        timestamps=str(declared.get("timestamps") or unstated),
        provenance=str(declared.get("provenance") or unstated),
        builder=value,
        plugin=source,
    )


def backend_info(backend: str) -> BackendInfo:
    if backend in BACKENDS:
        return BACKENDS[backend]
    plugins, broken = discover_plugins()
    if backend in plugins:
        return plugins[backend]
    for failed in broken:
        if failed.name == backend:
            raise EarmarkError(
                f"plug-in backend {backend!r} ({failed.plugin}) is broken: {failed.error}",
                field="backend",
                hint="fix or reinstall the plug-in; `earmark engines` lists every plug-in",
            )
    raise EarmarkError(
        f"unknown backend {backend!r}",
        field="backend",
        hint="known backends: " + ", ".join([*sorted(BACKENDS), *sorted(plugins)]),
    )


def supported_weight_types(backend: str) -> tuple[str, ...]:
    """Weight (compute) types an arm of this backend may request; () if not applicable."""
    return backend_info(backend).weight_types


def declares_weight_types_per_arm(backend: str) -> bool:
    """Whether this backend's arms declare their own weight types (an external program's,
    which earmark cannot know: the engine class has `declared_weight_types(arm)`)."""
    if backend_info(backend).weight_types:
        return False
    return callable(getattr(_engine_class(backend), "declared_weight_types", None))


def arm_weight_types(spec: ArmSpec) -> tuple[str, ...]:
    """Weight types this arm may be swept over: its backend's, or the arm's own
    declaration where the backend's arms declare theirs (stdio: `weight_types=`)."""
    if declares_weight_types_per_arm(spec.backend):
        declared: tuple[str, ...] = _engine_class(spec.backend).declared_weight_types(spec)
        return declared
    return supported_weight_types(spec.backend)


def validate_arm(spec: ArmSpec) -> None:
    """Check backend, model reference and settings without importing any runtime."""
    _engine_class(spec.backend).check_spec(spec)


def build_engine(spec: ArmSpec) -> Engine:
    """An engine for this arm, settings validated; its model is loaded by `load()`.

    Raises `EarmarkError` for a bad setting (naming the arm and key) and
    `MissingExtraError` when the backend's runtime is not installed.
    """
    info = backend_info(spec.backend)
    engine: Engine = _engine_class(spec.backend).from_spec(spec)
    if info.plugin is not None:
        return PluginEngine(engine, info)
    return engine


class PluginEngine:
    """A plug-in's engine, unchanged except that its model record names the plug-in's
    distribution and version: the plug-in's code decides the text, so it is provenance."""

    def __init__(self, engine: Engine, info: BackendInfo) -> None:
        self.engine = engine
        self.name = engine.name
        self.info = info

    def load(self) -> ModelInfo:
        loaded = self.engine.load()
        plugin: dict[str, JSONValue] = {
            "backend": self.info.name,
            "distribution": self.info.plugin,
        }
        plugin["entry_point"] = self.info.builder
        return dataclasses.replace(loaded, extra={**loaded.extra, "plugin": plugin})

    def transcribe(self, clips: Sequence[Clip], language: str | None) -> list[Hypothesis]:
        return self.engine.transcribe(clips, language)

    def close(self) -> None:
        self.engine.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


def _engine_class(backend: str) -> Any:
    module_name, _, attribute = backend_info(backend).builder.partition(":")
    return operator.attrgetter(attribute)(importlib.import_module(module_name))
