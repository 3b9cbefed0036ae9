"""CTC models through transformers (wav2vec2, XLS-R, MMS, any `AutoModelForCTC`).

BlasBench's strongest open Irish systems are wav2vec2/XLS-R CTC fine-tunes and MMS-1B-all
(seed 003). They are decoded greedily (argmax, repeats merged, blanks dropped) as the
transformers ASR pipeline does, so scores are comparable with published runs. MMS
language adapters are chosen with `target_lang=` (e.g. `gle`). A CTC model has no
language token: the language recorded as used is the adapter's (or the operator's
`model_language=` declaration), never the one requested for the clip.
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
)
from earmark.errors import EarmarkError

BACKEND = "transformers-ctc"
FEATURE = "the transformers-ctc backend"


@dataclass(frozen=True)
class CtcOptions:
    torch: TorchOptions
    target_lang: str | None
    model_language: str | None
    batch_size: int


def read_options(arm: ArmSpec) -> tuple[CtcOptions, ModelSource]:
    reader = SettingsReader(arm)
    options = CtcOptions(
        torch=read_torch_options(reader),
        target_lang=reader.text("target_lang"),
        model_language=reader.text("model_language"),
        batch_size=reader.integer("batch_size", 1, minimum=1),
    )
    source = resolve_source(arm, reader, what="transformers model folder")
    reader.finish()
    return options, source


class TransformersCtcEngine(TransformersEngine[CtcOptions]):
    """One CTC model loaded once; clips decoded in batches of `batch_size`."""

    def __init__(self, arm: ArmSpec, options: CtcOptions, source: ModelSource) -> None:
        super().__init__(arm, options, source)
        self._batches = False

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> tuple[CtcOptions, ModelSource]:
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
            "AutoModelForCTC",
            dtype,
            arm_name=self.name,
            what="CTC model",
            hint="the folder needs config.json, the weights and the processor files "
            "(preprocessor/processor config, vocab.json, tokenizer config)",
        )
        if self.options.target_lang:
            self._load_adapter(model, processor, self.options.target_lang)
        model.eval().to(self.options.torch.device)
        load_seconds = time.perf_counter() - started
        self._torch, self._dtype = torch, dtype
        self._model, self._processor = model, processor
        # Without an attention mask, zero padding enters the (group-normed) feature
        # encoder and changes every clip's output: such models decode one clip at a time.
        extractor = getattr(processor, "feature_extractor", processor)
        self._batches = bool(getattr(extractor, "return_attention_mask", False))
        effective = parameter_dtype(model)
        declared = self.options.target_lang or self.options.model_language
        batch = self.options.batch_size if self._batches else 1
        deterministic, note = batch_determinism(
            "greedy CTC (argmax, repeats merged, blank dropped): no sampling", batch
        )
        self._info = ModelInfo(
            backend=BACKEND,
            artifact_id=self.source.artifact_id,
            revision=files.revision,
            file_sha256=files.file_sha256,
            licence=self.source.licence,
            licence_source=self.source.licence_source,
            runtime="transformers",
            runtime_version=getattr(transformers, "__version__", None),
            compute_type=effective,
            load_seconds=load_seconds,
            size_bytes=files.size_bytes,
            languages=(declared,) if declared else None,
            deterministic=deterministic,
            determinism_note=note,
            extra={
                **runtime_extra(torch, self.options.torch, model),
                "model_class": type(model).__name__,
                "architecture": getattr(model.config, "model_type", None),
                **torch_parameters(model),
                "vocab_size": getattr(model.config, "vocab_size", None),
                "target_lang": self.options.target_lang,
                "batch_size": batch,
                "batch_size_requested": self.options.batch_size,
                "decoding": "greedy CTC (argmax, repeats merged, blank dropped)",
                "model_source": self.source.kind,
                "model_reference": self.source.reference,
                "content_revision": files.content_revision,
                "hash_seconds": files.hash_seconds,
            },
        )
        return self._info

    def _load_adapter(self, model: Any, processor: Any, target_lang: str) -> None:
        """Switch an MMS-style model and its tokenizer to one language's adapter."""
        tokenizer = getattr(processor, "tokenizer", processor)
        if not hasattr(model, "load_adapter") or not getattr(
            model.config, "adapter_attn_dim", None
        ):
            raise EarmarkError(
                f"arm '{self.name}': target_lang={target_lang} needs a model with language "
                "adapters (MMS); this one has none",
                field="target_lang",
                hint="drop target_lang for a model fine-tuned on one language",
            )
        try:
            tokenizer.set_target_lang(target_lang)
            model.load_adapter(target_lang)
        except (OSError, ValueError, KeyError) as exc:
            raise EarmarkError(
                f"arm '{self.name}': no adapter for target_lang={target_lang}: {exc}",
                field="target_lang",
                hint="the folder needs adapter.<lang>.safetensors and the language in vocab.json",
            ) from exc

    def transcribe(self, clips: Sequence[Clip], language: str | None) -> list[Hypothesis]:
        if self._model is None or self._info is None:
            raise RuntimeError(f"arm '{self.name}': call load() before transcribe()")
        size = self.options.batch_size if self._batches else 1
        hypotheses: list[Hypothesis] = []
        for start in range(0, len(clips), size):
            hypotheses.extend(self._batch(list(clips[start : start + size]), language))
        return hypotheses

    def _batch(self, clips: list[Clip], language: str | None) -> list[Hypothesis]:
        started = time.perf_counter()
        try:
            texts = self._decode([mono_16k(clip) for clip in clips])
        except Exception as exc:  # one bad clip must not end the run; recorded per clip
            if len(clips) > 1:
                # Find the clip that failed; the others still get their text.
                return [h for clip in clips for h in self._batch([clip], language)]
            return [failed_hypothesis(clips[0].id, language, started, exc)]
        seconds = (time.perf_counter() - started) / len(clips)
        used = self.options.target_lang or self.options.model_language
        return [
            Hypothesis(
                id=clip.id,
                text=text,
                decode_seconds=seconds,
                language_requested=language,
                language_used=used,
                extra={
                    "batch_size": len(clips),
                    "language_note": "CTC model: no language token; language_used is the "
                    "adapter or declared model language",
                },
            )
            for clip, text in zip(clips, texts, strict=True)
        ]

    def _decode(self, audios: list[Any]) -> list[str]:
        torch = self._torch
        inputs = self._processor(
            audios, sampling_rate=SAMPLE_RATE, padding=True, return_tensors="pt"
        )
        values = inputs["input_values"].to(self.options.torch.device, self._dtype)
        kwargs: dict[str, object] = {}
        if "attention_mask" in inputs:
            kwargs["attention_mask"] = inputs["attention_mask"].to(self.options.torch.device)
        with torch.inference_mode():
            logits = self._model(values, **kwargs).logits
        ids = logits.argmax(dim=-1).cpu()
        lengths = self._output_lengths([len(a) for a in audios], ids.shape[1])
        trimmed = [ids[i, : lengths[i]].tolist() for i in range(len(audios))]
        return [str(t).strip() for t in self._processor.batch_decode(trimmed)]

    def _output_lengths(self, samples: list[int], frames: int) -> list[int]:
        """Logit frames belonging to each clip, so padding never decodes into text."""
        lengths_of = getattr(self._model, "_get_feat_extract_output_lengths", None)
        if lengths_of is None:
            if len(set(samples)) > 1:
                raise RuntimeError("cannot trim padded frames: use batch_size=1")
            return [frames] * len(samples)
        lengths = lengths_of(self._torch.tensor(samples))
        return [min(int(n), frames) for n in lengths]
