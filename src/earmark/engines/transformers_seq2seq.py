"""Encoder-decoder ASR through transformers (Whisper, any `AutoModelForSpeechSeq2Seq`).

The transformers Whisper is the reference implementation the other Whisper runtimes are
compared against. On a multilingual Whisper the requested language is forced as the
language token (`language_policy=forced`, the default) or detected (`detect`); the
language recorded as used is the language token the decoder actually emitted. An
English-only checkpoint asked for another language decodes English, and the hypothesis
says so; a language Whisper does not know (Irish `ga`) gets a reason code per clip.

Decoding is greedy or beam search unless `temperature` > 0 (or a non-Whisper model's own
generation config sets `do_sample`). A sampling arm decodes one clip at a time with torch
seeded from the clip's seed, so a clip's text does not depend on which clips came before
it or were batched with it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from earmark.engines.base import Clip, Hypothesis, ModelInfo
from earmark.engines.clip_audio import SAMPLE_RATE, mono_16k
from earmark.engines.model_metadata import torch_parameters
from earmark.engines.model_source import (
    ModelSource,
    failed_hypothesis,
    fingerprint,
    materialise,
    primary_language,
    resolve_source,
)
from earmark.engines.settings import SettingsReader
from earmark.engines.spec import ArmSpec
from earmark.engines.transformers_runtime import (
    TorchOptions,
    TransformersEngine,
    batch_determinism,
    import_runtime,
    load_pretrained,
    parameter_dtype,
    prepare_torch,
    read_torch_options,
    runtime_extra,
    seed_torch,
)
from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue

BACKEND = "transformers-seq2seq"
FEATURE = "the transformers-seq2seq backend"
LANGUAGE_POLICIES = ("forced", "detect", "refuse")


@dataclass(frozen=True)
class Seq2SeqOptions:
    torch: TorchOptions
    num_beams: int
    max_new_tokens: int
    batch_size: int
    language_policy: str
    #: > 0 samples at this temperature; 0 leaves it to greedy/beam search (Whisper) or
    #: to the model's generation config.
    temperature: float = 0.0

    def generate_kwargs(self) -> dict[str, JSONValue]:
        kwargs: dict[str, JSONValue] = {
            "num_beams": self.num_beams,
            "max_new_tokens": self.max_new_tokens,
        }
        if self.temperature > 0:
            # Whisper's generate derives do_sample from the temperature; others need both.
            kwargs.update(do_sample=True, temperature=self.temperature)
        return kwargs


def read_options(arm: ArmSpec) -> tuple[Seq2SeqOptions, ModelSource]:
    reader = SettingsReader(arm)
    options = Seq2SeqOptions(
        torch=read_torch_options(reader),
        num_beams=reader.integer("num_beams", 1, minimum=1),
        max_new_tokens=reader.integer("max_new_tokens", 128, minimum=1),
        batch_size=reader.integer("batch_size", 1, minimum=1),
        language_policy=reader.choice("language_policy", LANGUAGE_POLICIES, "forced"),
        temperature=reader.number("temperature", 0.0, minimum=0.0),
    )
    source = resolve_source(arm, reader, what="transformers model folder")
    reader.finish()
    return options, source


@dataclass(frozen=True)
class _LanguagePlan:
    language: str | None
    refused_code: str | None


class TransformersSeq2SeqEngine(TransformersEngine[Seq2SeqOptions]):
    """One speech seq2seq model loaded once; clips generated in batches."""

    def __init__(self, arm: ArmSpec, options: Seq2SeqOptions, source: ModelSource) -> None:
        super().__init__(arm, options, source)
        self._whisper = False
        self._multilingual = False
        #: Whether generate draws random numbers (then clips go one at a time, seeded).
        self._samples = False
        #: Language token id -> language code, for reading back what was decoded.
        self._language_ids: dict[int, str] = {}

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> tuple[Seq2SeqOptions, ModelSource]:
        return read_options(arm)

    @classmethod
    def require_runtime(cls) -> None:
        import_runtime(FEATURE)

    def load(self) -> ModelInfo:
        self._start_load()
        torch, transformers = import_runtime(FEATURE)
        folder = materialise(self.source, feature=FEATURE, extra="transformers")
        files = fingerprint(folder)
        dtype = prepare_torch(torch, self.options.torch)
        started = time.perf_counter()
        processor, model = load_pretrained(
            transformers,
            folder,
            "AutoModelForSpeechSeq2Seq",
            dtype,
            arm_name=self.name,
            what="speech seq2seq model",
            hint="the folder needs config.json, generation_config.json, the weights, "
            "the tokenizer and the feature extractor",
        )
        model.eval().to(self.options.torch.device)
        load_seconds = time.perf_counter() - started
        self._torch, self._dtype = torch, dtype
        self._model, self._processor = model, processor
        generation = model.generation_config
        self._whisper = getattr(model.config, "model_type", None) == "whisper"
        lang_to_id = dict(getattr(generation, "lang_to_id", None) or {})
        self._multilingual = self._whisper and bool(
            getattr(generation, "is_multilingual", False) and lang_to_id
        )
        self._language_ids = {int(i): t.strip("<|>") for t, i in lang_to_id.items()}
        languages: tuple[str, ...] | None
        if self._multilingual:
            languages = tuple(self._language_ids[i] for i in sorted(self._language_ids))
        elif self._whisper:
            languages = ("en",)
        else:
            languages = None
        # Whisper's generate samples only when given a temperature, whatever its config says.
        self._samples = self.options.temperature > 0 or (
            not self._whisper and bool(getattr(generation, "do_sample", False))
        )
        deterministic, note = self._determinism()
        self._info = ModelInfo(
            backend=BACKEND,
            artifact_id=self.source.artifact_id,
            revision=files.revision,
            file_sha256=files.file_sha256,
            licence=self.source.licence,
            licence_source=self.source.licence_source,
            runtime="transformers",
            runtime_version=getattr(transformers, "__version__", None),
            compute_type=parameter_dtype(model),
            load_seconds=load_seconds,
            size_bytes=files.size_bytes,
            languages=languages,
            english_only=self._whisper and not self._multilingual,
            deterministic=deterministic,
            determinism_note=note,
            extra={
                **runtime_extra(torch, self.options.torch, model),
                "model_class": type(model).__name__,
                "architecture": getattr(model.config, "model_type", None),
                **torch_parameters(model),
                "language_policy": self.options.language_policy,
                "generate_options": self.options.generate_kwargs(),
                "batch_size": self._batch_size(),
                "batch_size_requested": self.options.batch_size,
                "model_source": self.source.kind,
                "model_reference": self.source.reference,
                "content_revision": files.content_revision,
                "hash_seconds": files.hash_seconds,
            },
        )
        return self._info

    def _batch_size(self) -> int:
        """A sampling arm decodes one clip at a time, so each clip has its own seed."""
        return 1 if self._samples else self.options.batch_size

    def _determinism(self) -> tuple[bool, str]:
        if self._samples:
            at = (
                f"temperature {self.options.temperature}"
                if self.options.temperature > 0
                else "the model's generation config (do_sample)"
            )
            return True, (
                f"samples at {at}; clips are decoded one at a time with torch seeded from "
                "the plan seed, clip id and repeat"
            )
        search = (
            "greedy search"
            if self.options.num_beams == 1
            else f"beam search ({self.options.num_beams} beams)"
        )
        return batch_determinism(f"{search}: no sampling", self.options.batch_size)

    def transcribe(self, clips: Sequence[Clip], language: str | None) -> list[Hypothesis]:
        if self._model is None or self._info is None:
            raise RuntimeError(f"arm '{self.name}': call load() before transcribe()")
        plan = self._language_plan(language)
        if plan.refused_code is not None:
            return [
                Hypothesis(
                    id=clip.id,
                    text="",
                    decode_seconds=0.0,
                    language_requested=language,
                    error=plan.refused_code,
                    extra={"language_policy": self.options.language_policy},
                )
                for clip in clips
            ]
        size = self._batch_size()
        hypotheses: list[Hypothesis] = []
        for start in range(0, len(clips), size):
            hypotheses.extend(self._batch(list(clips[start : start + size]), language, plan))
        return hypotheses

    def _language_plan(self, language: str | None) -> _LanguagePlan:
        """What to force, decided once per call rather than failing per clip."""
        code = primary_language(language)
        policy = self.options.language_policy
        if not self._whisper or policy == "detect" or code is None:
            return _LanguagePlan(None, None)
        languages = self._info.languages if self._info else None
        if code in (languages or ()):
            return _LanguagePlan(code if self._multilingual else None, None)
        if policy == "refuse":
            raise EarmarkError(
                f"arm '{self.name}': model does not support language {language!r} "
                "(language_policy=refuse)",
                field="language_policy",
                hint="use language_policy=forced or detect to decode anyway",
            )
        if not self._multilingual:
            # An English-only Whisper has no language token: it decodes English, and
            # the hypothesis records the mismatch.
            return _LanguagePlan(None, None)
        return _LanguagePlan(None, f"unsupported_language:{code}")

    def _batch(
        self, clips: list[Clip], language: str | None, plan: _LanguagePlan
    ) -> list[Hypothesis]:
        started = time.perf_counter()
        try:
            if self._samples:
                seed_torch(self._torch, clips[0].seed)  # one clip per call when sampling
            decoded = self._generate([mono_16k(clip) for clip in clips], plan)
        except Exception as exc:  # one bad clip must not end the run; recorded per clip
            if len(clips) > 1:
                return [h for clip in clips for h in self._batch([clip], language, plan)]
            return [failed_hypothesis(clips[0].id, language, started, exc)]
        seconds = (time.perf_counter() - started) / len(clips)
        requested = primary_language(language)
        hypotheses = []
        for clip, (text, used) in zip(clips, decoded, strict=True):
            extra: dict[str, JSONValue] = {
                "language_policy": self.options.language_policy,
                "batch_size": len(clips),
            }
            if self._whisper and requested is not None and used is not None and used != requested:
                extra["language_mismatch"] = True
            if self._samples and clip.seed is not None:
                extra["seed"] = clip.seed
            hypotheses.append(
                Hypothesis(
                    id=clip.id,
                    text=text,
                    decode_seconds=seconds,
                    language_requested=language,
                    language_used=used,
                    extra=extra,
                )
            )
        return hypotheses

    def _generate(self, audios: list[Any], plan: _LanguagePlan) -> list[tuple[str, str | None]]:
        torch = self._torch
        extractor = getattr(self._processor, "feature_extractor", self._processor)
        padding: dict[str, object] = {} if self._whisper else {"padding": True}
        inputs = extractor(audios, sampling_rate=SAMPLE_RATE, return_tensors="pt", **padding)
        device = self.options.torch.device
        tensors = {
            key: value.to(device, self._dtype) if value.is_floating_point() else value.to(device)
            for key, value in inputs.items()
        }
        # The dict output keeps the decoder prompt, whose second token is the language
        # the decoder forced or detected; the plain tensor output drops it.
        kwargs = {**self.options.generate_kwargs(), "return_dict_in_generate": True}
        if self._multilingual:
            kwargs.update(language=plan.language, task="transcribe")
        with torch.inference_mode():
            sequences = self._model.generate(**tensors, **kwargs)
        if not isinstance(sequences, torch.Tensor):
            sequences = sequences.sequences
        texts = self._processor.batch_decode(sequences, skip_special_tokens=True)
        return [
            (str(text).strip(), self._language_used(row.tolist(), plan))
            for text, row in zip(texts, sequences, strict=True)
        ]

    def _language_used(self, tokens: list[int], plan: _LanguagePlan) -> str | None:
        """The language token the decoder emitted (Whisper), else what was forced."""
        if not self._whisper:
            return None
        if not self._multilingual:
            return "en"
        for token in tokens[:4]:
            if token in self._language_ids:
                return self._language_ids[token]
        return plan.language
