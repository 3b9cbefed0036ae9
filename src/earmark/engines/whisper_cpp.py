"""Whisper through whisper.cpp (pywhispercpp): GGML files of any quantisation.

Seed 002 measures what a weight type (f16, q8_0, ...) costs in transcripts. A whisper.cpp
model's weight type is fixed by its file, so it is read from the file header (`ftype`)
and recorded; an arm's `compute_type` is the type the operator expects, checked against
the header, and `{compute_type}` in the model path picks one file per type, so
`--weight-types f16,q8_0` sweeps `ggml-base-{compute_type}.bin`.

whisper.cpp does not fail on a bad file: it logs "failed to load model" and hands back a
null context that crashes the process on first use. The header is therefore checked
before loading and the runtime's log is read after it, so a bad file is a clear error.

whisper.cpp's temperature fallback samples from a generator it seeds itself (no seed can
be passed) and keeps in the context from one clip to the next, so with fallback on a
clip's text used to depend on the clips decoded before it. After a clip that fell back,
the context is rebuilt: every clip starts from the same generator state, in any order,
process or resumed run. Whether a clip fell back is read from whisper.cpp's own counter.
"""

from __future__ import annotations

import contextlib
import os
import re
import struct
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from earmark.engines.base import Clip, Hypothesis, ModelInfo, Segment
from earmark.engines.clip_audio import mono_16k
from earmark.engines.extras import require
from earmark.engines.local_engine import LocalModelEngine
from earmark.engines.model_source import (
    ModelSource,
    failed_hypothesis,
    fingerprint,
    package_version,
    primary_language,
    resolve_source,
)
from earmark.engines.registry import GGML_WEIGHT_TYPES
from earmark.engines.settings import SettingsReader
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue

BACKEND = "whisper-cpp"
EXTRA = "whisper-cpp"
FEATURE = "the whisper-cpp backend"
LANGUAGE_POLICIES = ("forced", "detect", "refuse")

GGML_MAGIC = 0x67676D6C  # "ggml" as a little-endian uint32: the file starts b"lmgg"
GGUF_MAGIC = b"GGUF"
#: ggml_ftype values (ggml.h) -> weight type names; the header stores ftype + 1000 * qntvr.
GGML_FTYPES = {
    0: "f32",
    1: "f16",
    2: "q4_0",
    3: "q4_1",
    4: "q4_1_some_f16",
    7: "q8_0",
    8: "q5_0",
    9: "q5_1",
    10: "q2_k",
    11: "q3_k",
    12: "q4_k",
    13: "q5_k",
    14: "q6_k",
}
_QNT_VERSION_FACTOR = 1000
#: Whisper hyper-parameters, in header order after the magic (all int32).
WHISPER_HPARAMS = (
    "n_vocab",
    "n_audio_ctx",
    "n_audio_state",
    "n_audio_head",
    "n_audio_layer",
    "n_text_ctx",
    "n_text_state",
    "n_text_head",
    "n_text_layer",
    "n_mels",
    "ftype",
)
#: whisper.cpp calls a model multilingual when its vocabulary has at least this many tokens.
MULTILINGUAL_VOCAB = 51865
#: The line of `whisper_print_timings` that counts fallbacks (logprob and entropy failures).
_FALLBACKS = re.compile(r"fallbacks\s*=\s*(\d+)\s*p\s*/\s*(\d+)\s*h")


@dataclass(frozen=True)
class GgmlHeader:
    """What a model file says about itself before anything loads it."""

    container: str  # "ggml" | "gguf"
    weight_type: str | None
    ftype: int | None
    quantization_version: int | None
    hparams: dict[str, int] = field(default_factory=dict)

    @property
    def multilingual(self) -> bool | None:
        vocab = self.hparams.get("n_vocab")
        return None if vocab is None else vocab >= MULTILINGUAL_VOCAB


def read_ggml_header(path: str | Path) -> GgmlHeader:
    """Parse a whisper.cpp GGML header (or a GGUF one) without loading tensors.

    Raises `ValueError` when the file is neither, or is cut short inside the header.
    """
    with open(path, "rb") as handle:
        head = handle.read(4)
        if head == GGUF_MAGIC:
            return _read_gguf(handle)
        if len(head) < 4 or struct.unpack("<I", head)[0] != GGML_MAGIC:
            raise ValueError("not a GGML model (bad magic)")
        raw = handle.read(4 * len(WHISPER_HPARAMS))
    if len(raw) < 4 * len(WHISPER_HPARAMS):
        raise ValueError("GGML header is truncated")
    values = struct.unpack(f"<{len(WHISPER_HPARAMS)}i", raw)
    hparams = dict(zip(WHISPER_HPARAMS, values, strict=True))
    stored = hparams["ftype"]
    ftype = stored % _QNT_VERSION_FACTOR
    if any(v <= 0 for k, v in hparams.items() if k != "ftype") or stored < 0:
        raise ValueError(f"GGML header has implausible values {hparams}")
    return GgmlHeader(
        container="ggml",
        weight_type=GGML_FTYPES.get(ftype, f"ftype_{ftype}"),
        ftype=ftype,
        quantization_version=stored // _QNT_VERSION_FACTOR,
        hparams=hparams,
    )


#: GGUF `general.file_type` values (llama_ftype) whose names agree with ggml's.
_GGUF_FILE_TYPES = {0: "f32", 1: "f16", 2: "q4_0", 3: "q4_1", 7: "q8_0", 8: "q5_0", 9: "q5_1"}
_GGUF_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?"}
_GGUF_SCALARS.update({10: "<Q", 11: "<q", 12: "<d"})


def _read_gguf(handle: BinaryIO) -> GgmlHeader:
    """Read GGUF key/values up to `general.file_type` (v2/v3 layout)."""

    def take(fmt: str) -> Any:
        size = struct.calcsize(fmt)
        data = handle.read(size)
        if len(data) < size:
            raise ValueError("GGUF header is truncated")
        return struct.unpack(fmt, data)[0]

    def text() -> str:
        return handle.read(take("<Q")).decode("utf-8", "replace")

    def value(kind: int) -> Any:
        if kind in _GGUF_SCALARS:
            return take(_GGUF_SCALARS[kind])
        if kind == 8:
            return text()
        if kind == 9:
            inner, count = take("<I"), take("<Q")
            return [value(inner) for _ in range(count)]
        raise ValueError(f"GGUF value type {kind} is unknown")

    version = take("<I")
    take("<Q")  # tensor count
    count = take("<Q")
    hparams: dict[str, int] = {"gguf_version": version}
    file_type: int | None = None
    for _ in range(count):
        key = text()
        item = value(take("<I"))
        if key == "general.file_type":
            file_type = int(item)
        elif isinstance(item, int) and not isinstance(item, bool):
            hparams[key] = item
    return GgmlHeader(
        container="gguf",
        weight_type=None
        if file_type is None
        else _GGUF_FILE_TYPES.get(file_type, f"ftype_{file_type}"),
        ftype=file_type,
        quantization_version=hparams.get("general.quantization_version"),
        hparams=hparams,
    )


@dataclass(frozen=True)
class WhisperCppOptions:
    compute_type: str | None
    threads: int
    beam_size: int
    language_policy: str
    #: whisper.cpp's sampling temperature and fallback increment; `temperature_inc=0` turns
    #: the fallback off (then, at temperature 0, nothing is ever sampled).
    temperature: float = 0.0
    temperature_inc: float = 0.2

    @property
    def samples(self) -> bool:
        """Whether any clip can be decoded by sampling (a temperature above 0 is reachable)."""
        return self.temperature > 0 or self.temperature_inc > 0


def read_options(arm: ArmSpec) -> tuple[WhisperCppOptions, ModelSource]:
    reader = SettingsReader(arm)
    compute_type = reader.text("compute_type")
    if compute_type is not None and compute_type not in GGML_WEIGHT_TYPES:
        raise reader.error(
            "compute_type", f"{compute_type!r} is not one of {', '.join(GGML_WEIGHT_TYPES)}"
        )
    options = WhisperCppOptions(
        compute_type=compute_type,
        threads=reader.integer("threads", 0, minimum=0),
        beam_size=reader.integer("beam_size", 1, minimum=1),
        language_policy=reader.choice("language_policy", LANGUAGE_POLICIES, "forced"),
        temperature=reader.number("temperature", 0.0, minimum=0.0),
        temperature_inc=reader.number("temperature_inc", 0.2, minimum=0.0),
    )
    model = arm.model
    if "{compute_type}" in model:
        if compute_type is None:
            raise reader.error(
                "compute_type",
                "the model path has {compute_type} but no compute_type is set",
                hint="set compute_type=q8_0 or sweep with --weight-types",
            )
        model = model.replace("{compute_type}", compute_type)
    source = resolve_source(arm, reader, model=model, want="file", what="GGML model file")
    reader.finish()
    return options, source


class WhisperCppEngine(LocalModelEngine[WhisperCppOptions, ModelSource]):
    """One whisper.cpp context loaded once; clips decoded one after another."""

    def __init__(self, arm: ArmSpec, options: WhisperCppOptions, source: ModelSource) -> None:
        super().__init__(arm, options, source)
        self._model: Any = None
        self._pw: Any = None
        self._header: GgmlHeader | None = None
        #: False once a clip may have drawn from the context's random generator.
        self._fresh = True
        self._fallbacks_seen = 0

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> tuple[WhisperCppOptions, ModelSource]:
        return read_options(arm)

    @classmethod
    def require_runtime(cls) -> None:
        require("pywhispercpp", FEATURE, EXTRA)

    def load(self) -> ModelInfo:
        self._start_load()
        model_module = require("pywhispercpp.model", FEATURE, EXTRA)
        self._pw = require("_pywhispercpp", FEATURE, EXTRA)
        assert self.source.path is not None
        path = self.source.path
        header = self._checked_header(path)
        files = fingerprint(path)
        started = time.perf_counter()
        params: dict[str, object] = {
            "print_progress": False,
            "print_realtime": False,
            "temperature": self.options.temperature,
            "temperature_inc": self.options.temperature_inc,
        }
        if self.options.threads:
            params["n_threads"] = self.options.threads
        if self.options.beam_size > 1:
            params["beam_search"] = {"beam_size": self.options.beam_size, "patience": -1.0}
        model = self._checked_context(
            lambda: model_module.Model(
                str(path),
                params_sampling_strategy=0 if self.options.beam_size == 1 else 1,
                **params,
            )
        )
        load_seconds = time.perf_counter() - started
        self._model, self._header = model, header
        loaded_type = GGML_FTYPES.get(int(self._pw.whisper_model_ftype(model._ctx)))
        multilingual = bool(self._pw.whisper_is_multilingual(model._ctx))
        languages = _model_languages(self._pw, model._ctx) if multilingual else ("en",)
        self._fresh, self._fallbacks_seen = True, 0
        self._info = ModelInfo(
            backend=BACKEND,
            artifact_id=self.source.artifact_id,
            revision=files.revision,
            file_sha256=files.file_sha256,
            licence=self.source.licence,
            licence_source=self.source.licence_source,
            runtime="whisper.cpp (pywhispercpp)",
            runtime_version=package_version("pywhispercpp"),
            compute_type=loaded_type or header.weight_type,
            load_seconds=load_seconds,
            size_bytes=files.size_bytes,
            languages=languages,
            english_only=not multilingual,
            deterministic=True,
            determinism_note=self._determinism_note(),
            extra={
                "weight_type_header": header.weight_type,
                "ftype": header.ftype,
                "quantization_version": header.quantization_version,
                "hparams": dict[str, JSONValue](header.hparams),
                "compute_type_requested": self.options.compute_type,
                "threads": self.options.threads,
                "beam_size": self.options.beam_size,
                "temperature": self.options.temperature,
                "temperature_inc": self.options.temperature_inc,
                "language_policy": self.options.language_policy,
                "content_revision": files.content_revision,
                "hash_seconds": files.hash_seconds,
            },
        )
        return self._info

    def _checked_context(self, make: Any) -> Any:
        """Run `make` (which creates a whisper.cpp context) with its log captured; a null
        context is one clear error instead of a crash on first use."""
        path = self.source.path
        with tempfile.TemporaryDirectory(prefix="earmark-whispercpp-") as folder:
            log = Path(folder) / "load.log"
            with _stderr_fd_to(log):
                model = make()
            log_text = log.read_text(encoding="utf-8", errors="replace")
        if "failed to load model" in log_text or getattr(model, "_ctx", None) is None:
            reason = _last_error_line(log_text)
            model._ctx = None  # a failed context is null: never hand it to whisper.cpp
            raise EarmarkError(
                f"arm '{self.name}': whisper.cpp could not load {path}: {reason}",
                field="model",
                hint="give a complete whisper.cpp GGML model (ggml-*.bin)",
            )
        return model

    def _determinism_note(self) -> str:
        if not self.options.samples:
            return "temperature 0 with fallback off (temperature_inc=0): no sampling"
        return (
            "temperature fallback samples from whisper.cpp's own fixed-seed generator (it "
            "takes no seed, so the plan seed does not reach it); the context is rebuilt "
            "after any clip that sampled, so every clip starts from the same generator state"
        )

    def _start_fresh(self) -> bool:
        """Give the next clip a context whose random generator no clip has drawn from;
        True when the context had to be rebuilt for that."""
        if self._fresh or not self.options.samples:
            return False
        model = self._model

        def rebuild() -> Any:
            ctx, model._ctx = model._ctx, None
            if ctx is not None:  # None after a failed rebuild: nothing to free
                self._pw.whisper_free(ctx)
            model._init_model()
            return model

        self._checked_context(rebuild)
        self._fresh, self._fallbacks_seen = True, 0
        return True

    def _fallbacks(self) -> int | None:
        """whisper.cpp's running count of fallbacks in this context (read from the line
        `whisper_print_timings` logs), or None when it cannot be read."""
        lines: list[str] = []
        self._pw.whisper_log_set(lambda _level, text: lines.append(str(text)))
        try:
            self._pw.whisper_print_timings(self._model._ctx)
        finally:
            self._pw.whisper_log_set(None)
        for line in lines:
            found = _FALLBACKS.search(line)
            if found:
                return int(found.group(1)) + int(found.group(2))
        return None

    def _checked_header(self, path: Path) -> GgmlHeader:
        try:
            header = read_ggml_header(path)
        except (OSError, ValueError) as exc:
            raise EarmarkError(
                f"arm '{self.name}': {path} is not a whisper.cpp model: {exc}",
                field="model",
                hint="give a ggml-*.bin file made by whisper.cpp's conversion scripts",
            ) from exc
        if header.container == "gguf":
            raise EarmarkError(
                f"arm '{self.name}': {path} is GGUF ({header.weight_type}); whisper.cpp "
                "loads GGML Whisper files",
                field="model",
                hint="use a ggml-*.bin Whisper model",
            )
        expected = self.options.compute_type
        if expected is not None and header.weight_type != expected:
            raise EarmarkError(
                f"arm '{self.name}': compute_type={expected} but {path.name} holds "
                f"{header.weight_type} weights (ftype {header.ftype})",
                field="compute_type",
                hint="a whisper.cpp file has one weight type: point the arm at the "
                f"{expected} file or drop compute_type",
            )
        if header.weight_type == "f32":
            # whisper.cpp's encoder convolution (ggml_conv_1d_ph -> im2col) asserts f16
            # weights on CPU and aborts the whole process mid-decode, after a clean load
            # (ggml-org/whisper.cpp#2557); refuse here so one arm cannot kill the run.
            raise EarmarkError(
                f"arm '{self.name}': {path.name} holds f32 weights, which whisper.cpp "
                "loads but aborts the process on when decoding (its CPU convolution needs "
                "f16 weights)",
                field="model",
                hint="use the f16 file (convert-pt-to-ggml.py's default) or a quantised one",
            )
        return header

    def transcribe(self, clips: Sequence[Clip], language: str | None) -> list[Hypothesis]:
        if self._model is None or self._info is None:
            raise RuntimeError(f"arm '{self.name}': call load() before transcribe()")
        code = primary_language(language)
        policy = self.options.language_policy
        forced: str = "auto"
        refused: str | None = None
        if policy != "detect" and code is not None:
            if code in (self._info.languages or ()):
                forced = code
            elif policy == "refuse":
                raise EarmarkError(
                    f"arm '{self.name}': model does not support language {language!r} "
                    "(language_policy=refuse)",
                    field="language_policy",
                    hint="use language_policy=forced or detect to decode anyway",
                )
            elif self._info.english_only:
                forced = "en"
            else:
                refused = f"unsupported_language:{code}"
        if refused is not None:
            return [
                Hypothesis(clip.id, "", 0.0, language_requested=language, error=refused)
                for clip in clips
            ]
        return [self._one(clip, language, forced) for clip in clips]

    def _one(self, clip: Clip, language: str | None, forced: str) -> Hypothesis:
        started = time.perf_counter()
        try:
            rebuilt = self._start_fresh()
            started = time.perf_counter()  # the rebuild is not decoding time
            self._fresh = False  # until whisper.cpp's counter says nothing was sampled
            segments = self._model.transcribe(mono_16k(clip), language=forced)
            used = self._pw.whisper_lang_str(self._pw.whisper_full_lang_id(self._model._ctx))
        except Exception as exc:  # one bad clip must not end the run; recorded per clip
            return failed_hypothesis(clip.id, language, started, exc)
        seconds = time.perf_counter() - started
        requested = primary_language(language)
        extra: dict[str, JSONValue] = {"language_policy": self.options.language_policy}
        if self.options.samples:
            count = self._fallbacks()
            if count is not None:
                extra["fallbacks"] = count - self._fallbacks_seen
                self._fallbacks_seen = count
                self._fresh = self.options.temperature == 0 and extra["fallbacks"] == 0
            if rebuilt:
                extra["context_rebuilt"] = True
        if requested is not None and used != requested:
            extra["language_mismatch"] = True
        return Hypothesis(
            id=clip.id,
            text="".join(s.text for s in segments).strip(),
            decode_seconds=seconds,
            language_requested=language,
            language_used=used,
            # whisper.cpp times are in centiseconds.
            segments=tuple(Segment(s.t0 / 100.0, s.t1 / 100.0, s.text.strip()) for s in segments),
            extra=extra,
        )

    def close(self) -> None:
        self._model = None


def _model_languages(pw: Any, ctx: Any) -> tuple[str, ...]:
    """The languages this model has tokens for, in whisper.cpp's id order.

    whisper.cpp's language table is the largest model's (100 with large-v3's `yue`); a
    99-language model has no token for the last one, and forcing it would put the
    `<|translate|>` token in the language slot. The model's own count is the number of
    tokens between `<|startoftranscript|>` and `<|translate|>`.
    """
    count = int(pw.whisper_token_translate(ctx)) - int(pw.whisper_token_sot(ctx)) - 1
    count = max(0, min(count, int(pw.whisper_lang_max_id()) + 1))
    return tuple(pw.whisper_lang_str(i) for i in range(count))


@contextlib.contextmanager
def _stderr_fd_to(path: Path) -> Iterator[None]:
    """Send file descriptor 2 (where whisper.cpp logs) to `path` for the duration.

    Done at the descriptor level because whisper.cpp writes from C, and because
    pywhispercpp's own redirect falls back to Python's `sys.stderr` when that has no
    descriptor (under pytest, in notebooks), where the C log would be lost.
    """
    try:
        sys.stderr.flush()
    except (AttributeError, ValueError):
        pass
    saved = os.dup(2)
    try:
        with open(path, "wb") as handle:
            os.dup2(handle.fileno(), 2)
            try:
                yield
            finally:
                os.dup2(saved, 2)
    finally:
        os.close(saved)


def _last_error_line(log: str) -> str:
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    for line in reversed(lines):
        if "failed to load model" not in line and (
            "invalid" in line or "unknown" in line or "failed" in line or "error" in line
        ):
            return line
    return lines[-1] if lines else "no log"
