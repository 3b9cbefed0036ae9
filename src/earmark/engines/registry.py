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
            summary="any external program: template with {audio} and {language}, text on stdout",
            extra=None,
            runtime_module=None,
            formats="command template",
            weight_types=(),
            languages="passed as {language}; what the program used is unknown (None)",
            timestamps="none",
            provenance="command template, SHA-256 of the executable",
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
