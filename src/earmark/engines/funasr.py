"""Research adapter: Paraformer-zh (and other FunASR models) through `funasr.AutoModel`.

Seed 000 names Paraformer-zh an isolated research contender: it lives behind the
`funasr` extra, is imported only when an arm is built, and is never a base dependency.
Only local model folders are loaded (`disable_update=True`, no hub names), so the files
hashed are the files run. FunASR's timestamps (milliseconds, per sentence or per token)
become segments in seconds. The licence is the operator's assertion, as everywhere.

What running it for real showed (funasr 1.4.16), and what this adapter does about it:
- `AutoModel` runs random weights, with only a printed line, when a `configuration.json`
  folder lacks its weights file; `load` checks the weights file it used exists.
- It falls back to the CPU silently when CUDA is missing; the device used is recorded.
- Feature extraction needs torchaudio or kaldi-native-fbank, which funasr does not
  require; without either every clip would fail, so `load` says which package to add.
- Import and load print banners on stdout; they are sent to stderr instead.
- With timestamps, Paraformer spaces out Chinese characters ("你 好"); without them it
  does not ("你好"). The spaces between two CJK characters are removed so one model
  gives one text form; the raw text is kept in `extra` when it differs.
"""

from __future__ import annotations

import contextlib
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earmark.engines.base import Clip, Hypothesis, ModelInfo, Segment
from earmark.engines.clip_audio import mono_16k
from earmark.engines.extras import is_installed, require
from earmark.engines.local_engine import ClipByClipEngine
from earmark.engines.model_source import (
    ModelSource,
    failed_hypothesis,
    fingerprint,
    package_version,
    read_weight_type,
    resolve_source,
)
from earmark.engines.settings import SettingsReader
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError, MissingExtraError

BACKEND = "funasr"
EXTRA = "funasr"
FEATURE = "the funasr research adapter"
#: Feature-extraction backends FunASR's WavFrontend can use; it declares neither.
FBANK_MODULES = ("torchaudio", "kaldi_native_fbank")
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_SPACE_BETWEEN_CJK = re.compile(f"(?<=[{_CJK}])\\s+(?=[{_CJK}])")
#: Model families whose FunASR decoding is an argmax (Paraformer's non-autoregressive
#: decoder, SenseVoice's CTC head): nothing is sampled.
ARGMAX_FAMILIES = ("Paraformer", "SenseVoice")


@dataclass(frozen=True)
class FunAsrOptions:
    compute_type: str
    device: str
    threads: int
    model_language: str
    vad_model: Path | None
    punc_model: Path | None


def read_options(arm: ArmSpec) -> tuple[FunAsrOptions, ModelSource]:
    reader = SettingsReader(arm)
    options = FunAsrOptions(
        compute_type=read_weight_type(reader, ("float32",), "float32") or "float32",
        device=reader.choice("device", ("cpu", "cuda"), "cpu"),
        threads=reader.integer("threads", 1, minimum=1),
        model_language=reader.text("model_language", "zh") or "zh",
        vad_model=_optional_folder(reader, "vad_model"),
        punc_model=_optional_folder(reader, "punc_model"),
    )
    source = resolve_source(arm, reader, what="FunASR model folder")
    reader.finish()
    return options, source


def _optional_folder(reader: SettingsReader, key: str) -> Path | None:
    value = reader.text(key)
    if value is None:
        return None
    path = Path(value).expanduser()
    if not path.is_dir():
        raise reader.error(key, f"no model folder at {value}", hint="give a local folder")
    return path.resolve()


class FunAsrEngine(ClipByClipEngine[FunAsrOptions, ModelSource]):
    """One FunASR AutoModel loaded once; clips decoded one at a time."""

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> tuple[FunAsrOptions, ModelSource]:
        return read_options(arm)

    @classmethod
    def require_runtime(cls) -> None:
        require("funasr", FEATURE, EXTRA)

    def load(self) -> ModelInfo:
        self._start_load()
        with _stdout_to_stderr():
            funasr = require("funasr", FEATURE, EXTRA)
        if not any(is_installed(m) for m in FBANK_MODULES):
            raise MissingExtraError(FEATURE, EXTRA, "kaldi_native_fbank")
        assert self.source.path is not None
        folder = self.source.path
        files = fingerprint(folder)
        hashes = dict(files.file_sha256)
        kwargs: dict[str, object] = {
            "model": str(folder),
            "device": self.options.device,
            "ncpu": self.options.threads,
            "disable_update": True,
        }
        for key, extra_folder in (
            ("vad_model", self.options.vad_model),
            ("punc_model", self.options.punc_model),
        ):
            if extra_folder is not None:
                kwargs[key] = str(extra_folder)
                extra_files = fingerprint(extra_folder)
                hashes.update({f"{key}/{k}": v for k, v in extra_files.file_sha256.items()})
        started = time.perf_counter()
        try:
            with _stdout_to_stderr():
                self._model = funasr.AutoModel(**kwargs)
        except Exception as exc:  # FunASR raises assorted types for a bad folder
            # Its unregistered-model error runs to dozens of lines; the first says it.
            first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise EarmarkError(
                f"arm '{self.name}': FunASR could not load {folder}: {first_line}",
                field="model",
                hint="give a local FunASR model folder (model.pt, config.yaml, tokens)",
            ) from exc
        load_seconds = time.perf_counter() - started
        loaded = getattr(self._model, "kwargs", {}) or {}
        weights = loaded.get("init_param")
        if not weights or not Path(str(weights)).is_file():
            self._model = None
            raise EarmarkError(
                f"arm '{self.name}': FunASR found no weights file in {folder} "
                f"(init_param={weights!r}); it would have run random weights",
                field="model",
                hint="the folder needs the model.pt its configuration names",
            )
        deterministic, note = funasr_determinism(type(getattr(self._model, "model", None)).__name__)
        self._info = ModelInfo(
            backend=BACKEND,
            artifact_id=self.source.artifact_id,
            revision=files.revision,
            file_sha256=hashes,
            licence=self.source.licence,
            licence_source=self.source.licence_source,
            runtime="funasr",
            runtime_version=package_version("funasr"),
            compute_type=self.options.compute_type,
            load_seconds=load_seconds,
            size_bytes=files.size_bytes,
            languages=(self.options.model_language,),
            deterministic=deterministic,
            determinism_note=note,
            extra={
                "research_adapter": True,
                "device": str(loaded.get("device", self.options.device)),
                "device_requested": self.options.device,
                "weights_file": Path(str(weights)).name,
                "threads": self.options.threads,
                "vad_model": str(self.options.vad_model) if self.options.vad_model else None,
                "punc_model": str(self.options.punc_model) if self.options.punc_model else None,
                "torch_version": package_version("torch"),
                "content_revision": files.content_revision,
                "hash_seconds": files.hash_seconds,
            },
        )
        return self._info

    def _one(self, clip: Clip, language: str | None) -> Hypothesis:
        started = time.perf_counter()
        try:
            if clip.seed is not None:
                # Covers any torch sampling a model family outside ARGMAX_FAMILIES does.
                import torch

                torch.manual_seed(clip.seed)
            with _stdout_to_stderr():
                results = self._model.generate(input=mono_16k(clip), disable_pbar=True)
        except Exception as exc:  # one bad clip must not end the run; recorded per clip
            return failed_hypothesis(clip.id, language, started, exc)
        seconds = time.perf_counter() - started
        result = results[0] if results else {}
        raw = str(result.get("text", "")).strip()
        text = funasr_text(raw)
        return Hypothesis(
            id=clip.id,
            text=text,
            decode_seconds=seconds,
            language_requested=language,
            language_used=self.options.model_language,
            # The raw text's spaced tokens are what the per-token timestamps pair with.
            segments=funasr_segments(result, raw),
            extra={"funasr_text": raw} if raw != text else {},
        )


def funasr_determinism(model_class: str) -> tuple[bool, str]:
    """Whether a FunASR model class decodes without sampling, and why.

    FunASR loads many families through one `AutoModel`; earmark knows the argmax ones. For
    any other (LLM-based or autoregressive models) torch is seeded per clip, but earmark
    cannot tell whether the model draws from another generator, so it does not claim it.
    """
    if any(family in model_class for family in ARGMAX_FAMILIES):
        return True, f"{model_class}: argmax decoding (non-autoregressive or CTC), no sampling"
    return False, (
        f"{model_class}: earmark does not know whether FunASR samples for this model; torch "
        "is seeded per clip from the plan seed, clip id and repeat, which covers torch "
        "sampling only"
    )


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """FunASR prints banners with `print`; stdout may carry earmark's own output."""
    with contextlib.redirect_stdout(sys.stderr):
        yield


def funasr_text(raw: str) -> str:
    """Remove the spaces FunASR puts between two CJK characters when it predicts timestamps.

    `"你 好 hello world 世 界"` → `"你好 hello world 世界"`: words in other scripts keep
    their spaces, so only the timestamped form's extra separators go.
    """
    return _SPACE_BETWEEN_CJK.sub("", raw)


def funasr_segments(result: dict[str, Any], text: str) -> tuple[Segment, ...]:
    """Sentence timestamps when FunASR gives them, else one segment per token (ms → s).

    Per-token timestamps are paired with the text's tokens (characters for Chinese,
    space-separated words otherwise) only when the counts agree; otherwise one segment
    spans them all, so a mismatch never invents an alignment.
    """
    sentences = result.get("sentence_info") or []
    if sentences:
        return tuple(
            Segment(float(s["start"]) / 1000, float(s["end"]) / 1000, str(s.get("text", "")))
            for s in sentences
            if "start" in s and "end" in s
        )
    stamps = [s for s in result.get("timestamp") or [] if len(s) == 2]
    if not stamps:
        return ()
    tokens = text.split() if " " in text else [c for c in text if not c.isspace()]
    if len(tokens) == len(stamps):
        return tuple(
            Segment(float(a) / 1000, float(b) / 1000, t)
            for t, (a, b) in zip(tokens, stamps, strict=True)
        )
    return (Segment(float(stamps[0][0]) / 1000, float(stamps[-1][1]) / 1000, text),)
