"""Research adapter: Qwen3-ASR through the `qwen-asr` package.

Seed 000 names Qwen3-ASR-0.6B a Chinese/dialect research contender to probe in
isolation: it lives behind the `qwen3-asr` extra, is imported only when an arm is built,
and is never a base dependency. Qwen3-ASR takes language *names* ("Chinese"); manifest
codes are mapped to them, a code it does not know gets a reason code under
`language_policy=forced`, and the language it reports is mapped back and recorded as
used. Word timestamps need the separate forced aligner (`aligner=` folder, hashed too).

qwen-asr pins transformers 4.57 and accelerate 1.12, so it runs in its own virtual
environment (docs/engines_more.md). Run for real (qwen-asr 0.0.6), a folder of another
model type loads its weights and then fails in the processor with a page-long message
about unrelated packages, so `load` reads `config.json`'s `model_type` first.

qwen-asr's transformers backend calls `generate` with the model's own generation config,
which decides whether it samples. Clips go to it one at a time with torch seeded from the
clip's seed first, so either way a clip's text does not depend on the clips around it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earmark.engines.base import Clip, Hypothesis, ModelInfo, Segment
from earmark.engines.clip_audio import SAMPLE_RATE, mono_16k
from earmark.engines.extras import require
from earmark.engines.local_engine import LocalModelEngine
from earmark.engines.model_metadata import torch_parameters
from earmark.engines.model_source import (
    ModelSource,
    failed_hypothesis,
    fingerprint,
    materialise,
    package_version,
    primary_language,
    read_weight_type,
    resolve_source,
)
from earmark.engines.registry import TORCH_WEIGHT_TYPES
from earmark.engines.settings import SettingsReader
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError

BACKEND = "qwen3-asr"
EXTRA = "qwen3-asr"
FEATURE = "the qwen3-asr research adapter"
MODEL_TYPE = "qwen3_asr"

#: Primary language subtag -> the language name Qwen3-ASR takes and reports.
QWEN_LANGUAGES = {
    "zh": "Chinese", "en": "English", "yue": "Cantonese", "ar": "Arabic", "de": "German",
    "fr": "French", "es": "Spanish", "pt": "Portuguese", "id": "Indonesian", "it": "Italian",
    "ko": "Korean", "ru": "Russian", "th": "Thai", "vi": "Vietnamese", "ja": "Japanese",
    "tr": "Turkish", "hi": "Hindi", "ms": "Malay", "nl": "Dutch", "sv": "Swedish",
    "da": "Danish", "fi": "Finnish", "pl": "Polish", "cs": "Czech", "fil": "Filipino",
    "fa": "Persian", "el": "Greek", "hu": "Hungarian", "mk": "Macedonian", "ro": "Romanian",
}  # fmt: skip
_CODES = {name.lower(): code for code, name in QWEN_LANGUAGES.items()}


@dataclass(frozen=True)
class QwenOptions:
    compute_type: str
    device: str
    batch_size: int
    max_new_tokens: int
    language_policy: str
    aligner: Path | None


def read_options(arm: ArmSpec) -> tuple[QwenOptions, ModelSource]:
    reader = SettingsReader(arm)
    aligner = reader.text("aligner")
    aligner_path = Path(aligner).expanduser().resolve() if aligner else None
    if aligner_path is not None and not aligner_path.is_dir():
        raise reader.error("aligner", f"no forced-aligner folder at {aligner}")
    options = QwenOptions(
        compute_type=read_weight_type(reader, TORCH_WEIGHT_TYPES, "float32") or "float32",
        device=reader.choice("device", ("cpu", "cuda"), "cpu"),
        batch_size=reader.integer("batch_size", 1, minimum=1),
        max_new_tokens=reader.integer("max_new_tokens", 256, minimum=1),
        language_policy=reader.choice("language_policy", ("forced", "detect"), "forced"),
        aligner=aligner_path,
    )
    source = resolve_source(arm, reader, what="Qwen3-ASR model folder")
    reader.finish()
    return options, source


def qwen_language(language: str | None) -> str | None:
    """`zh-CN` → `Chinese`; None when Qwen3-ASR does not know the language."""
    code = primary_language(language)
    return QWEN_LANGUAGES.get(code) if code else None


def language_code(name: str | None) -> str | None:
    """A reported language name back to its code (`Chinese` → `zh`); unknown names kept.

    A clip long enough to be cut into chunks reports each chunk's language joined by
    commas (`Chinese,English`); each part is mapped (`zh,en`).
    """
    if not name or not str(name).strip():
        return None
    parts = [part.strip() for part in str(name).split(",") if part.strip()]
    return ",".join(_CODES.get(part.lower(), part) for part in parts)


def _check_model_type(folder: Path, arm_name: str) -> None:
    """Refuse a folder whose `config.json` names another model type, in one line."""
    config = folder / "config.json"
    if not config.is_file():
        return  # the package's own loader says what is missing
    try:
        model_type = json.loads(config.read_text(encoding="utf-8")).get("model_type")
    except (ValueError, AttributeError):
        return
    if model_type is not None and model_type != MODEL_TYPE:
        raise EarmarkError(
            f"arm '{arm_name}': {folder} holds a '{model_type}' model, not Qwen3-ASR "
            f"(config.json model_type must be '{MODEL_TYPE}')",
            field="model",
            hint="give a Qwen3-ASR folder (Qwen/Qwen3-ASR-0.6B or -1.7B)",
        )


def qwen_determinism(generation_config: Any) -> tuple[bool, str]:
    """What the model's generation config means for repeatability (clips are decoded one
    at a time, torch seeded per clip, in either case)."""
    if generation_config is None:
        return True, (
            "generation config not readable; clips are decoded one at a time with torch "
            "seeded from the plan seed, clip id and repeat, so any sampling repeats"
        )
    if getattr(generation_config, "do_sample", False):
        temperature = getattr(generation_config, "temperature", None)
        return True, (
            f"the model's generation config samples (temperature {temperature}); clips are "
            "decoded one at a time with torch seeded from the plan seed, clip id and repeat"
        )
    beams = int(getattr(generation_config, "num_beams", 1) or 1)
    search = "greedy search" if beams == 1 else f"beam search ({beams} beams)"
    return True, f"{search} (the model's generation config): no sampling, one clip at a time"


class Qwen3AsrEngine(LocalModelEngine[QwenOptions, ModelSource]):
    """One Qwen3-ASR model loaded once; clips transcribed in batches."""

    def __init__(self, arm: ArmSpec, options: QwenOptions, source: ModelSource) -> None:
        super().__init__(arm, options, source)
        self._model: Any = None
        self._torch: Any = None

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> tuple[QwenOptions, ModelSource]:
        return read_options(arm)

    @classmethod
    def require_runtime(cls) -> None:
        require("qwen_asr", FEATURE, EXTRA)

    def load(self) -> ModelInfo:
        self._start_load()
        qwen_asr = require("qwen_asr", FEATURE, EXTRA)
        torch = require("torch", FEATURE, EXTRA)
        folder = materialise(self.source, feature=FEATURE, extra=EXTRA)
        _check_model_type(folder, self.name)
        files = fingerprint(folder)
        hashes = dict(files.file_sha256)
        kwargs: dict[str, object] = {
            "dtype": getattr(torch, self.options.compute_type),
            "device_map": self.options.device,
            "max_inference_batch_size": self.options.batch_size,
            "max_new_tokens": self.options.max_new_tokens,
        }
        if self.options.aligner is not None:
            kwargs["forced_aligner"] = str(self.options.aligner)
            kwargs["forced_aligner_kwargs"] = {
                "dtype": kwargs["dtype"],
                "device_map": self.options.device,
            }
            aligner_files = fingerprint(self.options.aligner)
            hashes.update({f"aligner/{k}": v for k, v in aligner_files.file_sha256.items()})
        started = time.perf_counter()
        try:
            self._model = qwen_asr.Qwen3ASRModel.from_pretrained(str(folder), **kwargs)
        except Exception as exc:  # the package raises assorted types for a bad folder
            lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
            raise EarmarkError(
                f"arm '{self.name}': Qwen3-ASR could not load {folder}: "
                f"{lines[0] if lines else type(exc).__name__}",
                field="model",
                hint="give a local Qwen3-ASR folder (or download=true&revision=<commit>)",
            ) from exc
        load_seconds = time.perf_counter() - started
        inner = getattr(self._model, "model", None)
        dtype = getattr(inner, "dtype", None)
        self._torch = torch
        deterministic, note = qwen_determinism(getattr(inner, "generation_config", None))
        self._info = ModelInfo(
            backend=BACKEND,
            artifact_id=self.source.artifact_id,
            revision=files.revision,
            file_sha256=hashes,
            licence=self.source.licence,
            licence_source=self.source.licence_source,
            runtime="qwen-asr",
            runtime_version=package_version("qwen-asr"),
            compute_type=str(dtype).removeprefix("torch.") if dtype else None,
            load_seconds=load_seconds,
            size_bytes=files.size_bytes,
            languages=tuple(QWEN_LANGUAGES),
            deterministic=deterministic,
            determinism_note=note,
            extra={
                "research_adapter": True,
                "architecture": getattr(getattr(inner, "config", None), "model_type", None),
                **torch_parameters(inner),
                "compute_type_requested": self.options.compute_type,
                "device": self.options.device,
                "language_policy": self.options.language_policy,
                "aligner": str(self.options.aligner) if self.options.aligner else None,
                "torch_version": getattr(torch, "__version__", None),
                "transformers_version": package_version("transformers"),
                "content_revision": files.content_revision,
                "hash_seconds": files.hash_seconds,
            },
        )
        return self._info

    def transcribe(self, clips: Sequence[Clip], language: str | None) -> list[Hypothesis]:
        if self._model is None or self._info is None:
            raise RuntimeError(f"arm '{self.name}': call load() before transcribe()")
        forced = None
        code = primary_language(language)
        if self.options.language_policy == "forced" and code is not None:
            forced = qwen_language(language)
            if forced is None:
                return [
                    Hypothesis(
                        clip.id,
                        "",
                        0.0,
                        language_requested=language,
                        error=f"unsupported_language:{code}",
                    )
                    for clip in clips
                ]
        return [self._one(clip, language, forced) for clip in clips]

    def _one(self, clip: Clip, language: str | None, forced: str | None) -> Hypothesis:
        started = time.perf_counter()
        try:
            if clip.seed is not None:
                self._torch.manual_seed(clip.seed)
            results = self._model.transcribe(
                audio=[(mono_16k(clip), SAMPLE_RATE)],
                language=[forced],
                return_time_stamps=self.options.aligner is not None,
            )
            result = results[0]
        except Exception as exc:  # one bad clip must not end the run; recorded per clip
            return failed_hypothesis(clip.id, language, started, exc)
        seconds = time.perf_counter() - started
        stamps = getattr(result, "time_stamps", None) or []
        return Hypothesis(
            id=clip.id,
            text=str(getattr(result, "text", "")).strip(),
            decode_seconds=seconds,
            language_requested=language,
            language_used=language_code(getattr(result, "language", None)),
            segments=tuple(
                Segment(float(s.start_time), float(s.end_time), str(s.text))
                for s in stamps
                if hasattr(s, "start_time") and hasattr(s, "end_time")
            ),
            extra={"language_forced": forced},
        )

    def close(self) -> None:
        self._model = None
