"""A persistent external recogniser: started once per arm, one JSON line per clip.

The `command` backend starts its program for every clip, so a model is loaded as many
times as there are clips. Here the program is started once (`load`), says hello, then
answers requests on stdin with responses on stdout until earmark sends `shutdown`; the
protocol is in docs/stdio_protocol.md. A crash, a hang past `timeout` or an answer out of
step with the request becomes that clip's reason code (`stdio_crashed`, `timeout`,
`stdio_protocol_error`), the program is started again for the next clip (at most
`max_restarts` times), and the run goes on; a resumed run skips finished rows as for every
engine.

Provenance is the command backend's: the executable, every existing file the template
names and the declared `model=` are hashed; without `model=` the arm is `verifiable:
false` whatever the program says in its hello (a digest it reports is recorded as its
claim, not checked). Determinism is the arm's `deterministic=` or the hello's, never
assumed. The program is started by `subprocess.Popen` inside the arm's egress guard, so
the process-tree audit follows it and what it starts.

Streaming (`streaming=true`, docs/streaming.md): the request carries `stream` (chunk size,
real-time pacing), the program feeds itself the clip in chunks and sends `partial` lines
before its answer; earmark times each line as it arrives. A program must declare
`"streaming": true` in its hello's capabilities for such an arm to load.

Weight types (`--weight-types` sweeps): the arm declares them (`weight_types=`), the
program gets its arm's type through `{compute_type}` in its command line and must list it
in its hello (protocol 2); `earmark.engines.stdio_weight_types`.

The running program and the checks on its lines are `earmark.engines.stdio_process`.
"""

from __future__ import annotations

import base64
import io
import os
import shlex
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from earmark.engines.base import Clip, Hypothesis, ModelInfo
from earmark.engines.clip_audio import SAMPLE_RATE, mono_16k, wav_bytes
from earmark.engines.file_hashes import (
    content_revision,
    declared_model,
    external_program_hashes,
    files_named_by,
)
from earmark.engines.settings import SettingsReader, read_licence
from earmark.engines.spec import ArmSpec
from earmark.engines.stdio_process import (
    LineTooLong,
    Message,
    ProgramExited,
    ProtocolError,
    StdioProcess,
    check_hello,
    hello_streams,
    read_partial,
    read_segments,
)
from earmark.engines.stdio_weight_types import (
    check_loaded,
    declared_weight_types,
    provenance,
    read_weight_type,
    substitute,
)
from earmark.engines.streaming import StreamingOptions, StreamRecorder, read_streaming
from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue

BACKEND = "stdio"
#: Arm settings whose name starts with this are sent to the program in each request's
#: `settings` object, prefix removed (`set_beam_size=5` → `{"beam_size": "5"}`).
FORWARD_PREFIX = "set_"
#: Hello fields a restarted program must repeat unchanged (they are in the provenance).
HELLO_IDENTITY = (
    "name",
    "version",
    "model",
    "model_sha256",
    "deterministic",
    "weight_types",
    "weight_type",
)


@dataclass(frozen=True)
class StdioOptions:
    template: str
    argv: tuple[str, ...]
    executable: Path
    timeout: float
    start_timeout: float
    max_restarts: int
    audio_input: str
    licence: str | None
    licence_source: str | None
    model: Path | None
    #: The arm's word on determinism (`deterministic=`); None: the arm says nothing.
    deterministic: bool | None
    #: Sent in every request's `settings` (from the `set_*` arm settings).
    forwarded: tuple[tuple[str, str], ...]
    #: With `enabled`, each request asks for partial lines (`stream`).
    streaming: StreamingOptions = StreamingOptions()
    #: The arm's weight type (`compute_type`, put into the command line), None: none.
    weight_type: str | None = None
    #: The weight types the arm declares (`weight_types=`), what a sweep may ask for.
    weight_types: tuple[str, ...] = ()

    def named_files(self) -> list[Path]:
        """Existing regular files the template names besides the executable."""
        return [p for p in files_named_by(self.argv) if p != self.executable]


def read_options(arm: ArmSpec) -> StdioOptions:
    reader = SettingsReader(arm)
    licence, licence_source = read_licence(reader)
    timeout = reader.number("timeout", 600.0, minimum=0.001)
    start_timeout = reader.number("start_timeout", 600.0, minimum=0.001)
    max_restarts = reader.integer("max_restarts", 3, minimum=0)
    audio_input = reader.choice("audio_input", ("wav", "pcm"), "wav")
    model_text = reader.text("model")
    declared = reader.text("deterministic")
    deterministic = None if declared is None else reader.boolean("deterministic", False)
    forwarded = tuple(
        (key[len(FORWARD_PREFIX) :], reader.text(key) or "")
        for key in sorted(arm.settings_dict)
        if key.startswith(FORWARD_PREFIX) and len(key) > len(FORWARD_PREFIX)
    )
    streaming = read_streaming(reader)
    weight_type, weight_types = read_weight_type(reader, arm.model)
    reader.finish(known=("set_<name> (sent to the program in each request's settings)",))
    model = declared_model(model_text, reader.error, "program")
    try:
        argv = substitute(tuple(shlex.split(arm.model)), weight_type)
    except ValueError as exc:
        raise EarmarkError(
            f"arm '{arm.name}': cannot split the program's command line: {exc}", field="model"
        ) from None
    if not argv:
        raise EarmarkError(f"arm '{arm.name}': empty command", field="model")
    placeholders = [p for p in ("{audio}", "{language}", "{seed}") if p in arm.model]
    if placeholders:
        raise EarmarkError(
            f"arm '{arm.name}': {placeholders[0]} in a stdio command line",
            field="model",
            hint="a stdio program is started once and gets audio, language and seed in each "
            "request; the command backend is the one with placeholders",
        )
    program = shutil.which(argv[0])
    if program is None:
        raise EarmarkError(
            f"arm '{arm.name}': program {argv[0]!r} not found or not executable", field="model"
        )
    return StdioOptions(
        template=arm.model,
        argv=argv,
        executable=Path(program).resolve(),
        timeout=timeout,
        start_timeout=start_timeout,
        max_restarts=max_restarts,
        audio_input=audio_input,
        licence=licence,
        licence_source=licence_source,
        model=model,
        deterministic=deterministic,
        forwarded=forwarded,
        streaming=streaming,
        weight_type=weight_type,
        weight_types=weight_types,
    )


class StdioEngine:
    """Starts the program once (again only after a crash or a timeout) and asks it for
    one clip at a time."""

    def __init__(self, arm: ArmSpec, options: StdioOptions) -> None:
        self.arm = arm
        self.name = arm.name
        self.options = options
        self._process: StdioProcess | None = None
        self._hello: Message | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.starts = 0
        self.restarts = 0
        self.streaming = options.streaming

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> StdioOptions:
        return read_options(arm)

    @classmethod
    def from_spec(cls, arm: ArmSpec) -> StdioEngine:
        return cls(arm, read_options(arm))

    @classmethod
    def declared_weight_types(cls, arm: ArmSpec) -> tuple[str, ...]:
        """What a `--weight-types` sweep of this arm may ask for: its `weight_types=`."""
        return declared_weight_types(arm)

    def load(self) -> ModelInfo:
        if self._hello is not None:
            raise RuntimeError(f"arm '{self.name}' is already loaded; load() runs once")
        hashed = time.perf_counter()
        hashes, size = self._hashes()
        hash_seconds = time.perf_counter() - hashed
        started = time.perf_counter()
        self._process, self._hello = self._start()
        load_seconds = time.perf_counter() - started
        if self.options.weight_type is not None:
            try:
                check_loaded(self.name, self.options.weight_type, self._hello)
            except EarmarkError:
                self.close()
                self._hello = None
                raise
        if self.streaming.enabled and not hello_streams(self._hello):
            self.close()
            self._hello = None
            raise EarmarkError(
                f"arm '{self.name}': streaming=true, but the stdio program does not stream",
                field="streaming",
                hint='a program that sends partial lines declares "capabilities": '
                '{"streaming": true} in its hello (docs/stdio_protocol.md, Streaming)',
            )
        self._tmp = tempfile.TemporaryDirectory(prefix="earmark-stdio-")
        return self._model_info(hashes, size, load_seconds + hash_seconds)

    def _model_info(self, hashes: dict[str, str], size: int, seconds: float) -> ModelInfo:
        assert self._hello is not None
        hello = self._hello
        options = self.options
        extra: dict[str, JSONValue] = {
            "template": options.template,
            "timeout": options.timeout,
            "max_restarts": options.max_restarts,
            "audio_input": options.audio_input,
            "settings_sent": dict(options.forwarded),
            "streaming": options.streaming.to_json(),
            "hello": hello,
            "executable": str(options.executable),
            "template_files": [str(p) for p in options.named_files()],
            "model": None if options.model is None else str(options.model),
            "revision_covers": "the executable, the files the command line names and the "
            "declared model= (SHA-256 over their sorted file hashes); the hello's "
            "model_sha256 is the program's claim, recorded, not checked",
        }
        if options.weight_type is not None:
            extra["weight_type"] = provenance(
                options.weight_type, options.weight_types, options.argv, hello
            )
        if options.model is None:
            extra["verifiable"] = False
            extra["unverifiable_reason"] = (
                f"stdio arm '{self.name}' declares no model= file or folder: the weights "
                "the program loads are not hashed"
            )
        deterministic, note = self._determinism(hello)
        return ModelInfo(
            backend=BACKEND,
            artifact_id=options.template,
            revision=content_revision(hashes) if hashes else None,
            file_sha256=hashes,
            licence=options.licence,
            licence_source=options.licence_source,
            runtime=f"stdio:{hello['name']}",
            runtime_version=None if hello.get("version") is None else str(hello["version"]),
            compute_type=options.weight_type,
            load_seconds=seconds,
            size_bytes=size,
            deterministic=deterministic,
            determinism_note=note,
            extra=extra,
        )

    def _determinism(self, hello: Message) -> tuple[bool, str]:
        """The arm's declaration first (the operator's word), else the hello's, else not
        deterministic: an external program is never assumed to be."""
        claimed = hello.get("deterministic")
        claimed = claimed if isinstance(claimed, bool) else None  # check_hello allows no other
        declared = self.options.deterministic
        if declared is not None:
            note = f"declared by the arm (deterministic={str(declared).lower()})"
            if claimed is not None and claimed != declared:
                note += f"; the program's hello said {str(claimed).lower()}"
            return declared, note + ", not checked by earmark"
        if claimed is not None:
            why = hello.get("determinism_note")
            return claimed, f"declared by the program's hello ({why or 'no reason given'})" + (
                ", not checked by earmark"
            )
        return False, (
            "an external program that says nothing about determinism: declare "
            "deterministic=true on the arm, or in the hello, if the same clip and seed "
            "always give the same text"
        )

    def _hashes(self) -> tuple[dict[str, str], int]:
        return external_program_hashes(self.options)

    def _start(self) -> tuple[StdioProcess, Message]:
        """Start the program and read its hello; EarmarkError if it never says one."""
        try:
            process = StdioProcess(self.options.argv)
        except OSError as exc:
            raise EarmarkError(
                f"arm '{self.name}': cannot start {self.options.argv[0]!r}: {exc}", field="model"
            ) from None
        self.starts += 1
        try:
            hello = check_hello(process.receive(self.options.start_timeout))
        except (TimeoutError, ProgramExited, ProtocolError) as exc:
            process.kill()
            what = (
                f"no hello within start_timeout={self.options.start_timeout:g} s"
                if isinstance(exc, TimeoutError)
                else str(exc)
            )
            tail = process.stderr_tail(300).strip()
            raise EarmarkError(
                f"arm '{self.name}': the stdio program did not start: {what}"
                + (f" (stderr: {tail!r})" if tail else ""),
                field="model",
                hint="the program's first JSON line on stdout must be "
                '{"type": "hello", "protocol": 1, "name": ...} '
                "(docs/stdio_protocol.md)",
            ) from None
        return process, hello

    def transcribe(self, clips: Sequence[Clip], language: str | None) -> list[Hypothesis]:
        if self._hello is None or self._tmp is None:
            raise RuntimeError(f"arm '{self.name}': call load() before transcribe()")
        return [self._one(clip, language) for clip in clips]

    def close(self) -> None:
        if self._process is not None:
            self._process.stop(grace=5.0)
            self._process = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def _running(self) -> tuple[StdioProcess | None, str | None]:
        """The program, started again if the last one died; else None and why not."""
        if self._process is not None:
            return self._process, None
        if self.restarts >= self.options.max_restarts:
            return None, f"the program was restarted {self.restarts} time(s), max_restarts"
        self.restarts += 1
        try:
            process, hello = self._start()
        except EarmarkError as exc:
            return None, f"restart {self.restarts} failed: {exc.message}"
        assert self._hello is not None
        changed = [k for k in HELLO_IDENTITY if hello.get(k) != self._hello.get(k)]
        if changed:
            process.kill()
            return None, f"restart {self.restarts}: the hello changed its {', '.join(changed)}"
        self._process = process
        return process, None

    def _request(self, clip: Clip, language: str | None, folder: Path) -> Message:
        request: Message = {"type": "transcribe", "id": clip.id}
        data = wav_bytes(clip)
        if self.options.audio_input == "pcm":
            import soundfile

            samples, _ = soundfile.read(io.BytesIO(data), dtype="int16")
            pcm = samples.astype("<i2").tobytes()
            request["pcm_s16le_base64"] = base64.b64encode(pcm).decode("ascii")
        else:
            path = folder / f"clip-{self.starts}-{os.urandom(6).hex()}.wav"
            path.write_bytes(data)
            request["audio"] = str(path)
        request.update(
            sample_rate=SAMPLE_RATE,
            language=language,
            seed=clip.seed,
            settings=dict(self.options.forwarded),
        )
        if self.streaming.enabled:
            request["stream"] = {
                "chunk_seconds": self.streaming.chunk_seconds,
                "realtime": self.streaming.realtime,
            }
        return request

    def transcribe_stream(self, clip: Clip, language: str | None) -> Hypothesis:
        """One clip; with `streaming=true` its partial lines are recorded."""
        if self._hello is None or self._tmp is None:
            raise RuntimeError(f"arm '{self.name}': call load() before transcribe()")
        return self._one(clip, language)

    def _answer(
        self, process: StdioProcess, clip: Clip, recorder: StreamRecorder | None
    ) -> Message:
        """The final answer to a request, partial lines before it recorded (or skipped
        when the arm does not stream); `timeout` covers the whole exchange."""
        deadline = time.monotonic() + self.options.timeout
        while True:
            response = process.receive(max(0.0, deadline - time.monotonic()))
            if response.get("id") != clip.id:
                raise ProtocolError(
                    f"answer for id {response.get('id')!r} to a request for {clip.id!r}"
                )
            if "partial" not in response:
                return response
            text, audio, finished = read_partial(response)
            if recorder is not None:
                arrived = recorder.partial(audio, text)
                if finished:
                    recorder.input_finished(arrived)

    def _one(self, clip: Clip, language: str | None) -> Hypothesis:
        assert self._tmp is not None
        started = time.perf_counter()
        process, why_not = self._running()
        if process is None:
            return self._failed(clip, language, started, "stdio_crashed", {"detail": why_not})
        restarted = self.restarts
        request = self._request(clip, language, Path(self._tmp.name))
        recorder = None
        if self.streaming.enabled:
            recorder = StreamRecorder(self.streaming, len(mono_16k(clip)) / SAMPLE_RATE)
        try:
            process.send(request)
            response = self._answer(process, clip, recorder)
            hypothesis = self._hypothesis(clip, language, started, response, restarted)
            if recorder is not None and hypothesis.error is None:
                hypothesis = replace(hypothesis, stream=recorder.final(hypothesis.text))
            return hypothesis
        except TimeoutError:
            self._drop(process)
            detail: dict[str, JSONValue] = {
                "detail": f"no answer within timeout={self.options.timeout:g} s"
            }
            return self._failed(clip, language, started, "timeout", detail, process)
        except ProgramExited as exc:
            code = process.exit_code()
            self._drop(process)
            crashed: dict[str, JSONValue] = {"detail": str(exc), "exit_code": code}
            return self._failed(clip, language, started, "stdio_crashed", crashed, process)
        except ProtocolError as exc:
            self._drop(process)  # a line too long may have been a partial: out of step too
            reason = (
                "stdio_answer_too_large" if isinstance(exc, LineTooLong) else "stdio_protocol_error"
            )
            broken: dict[str, JSONValue] = {"detail": str(exc)}
            return self._failed(clip, language, started, reason, broken, process)
        finally:
            if "audio" in request:
                Path(str(request["audio"])).unlink(missing_ok=True)

    def _hypothesis(
        self,
        clip: Clip,
        language: str | None,
        started: float,
        response: Message,
        restarted: int,
    ) -> Hypothesis:
        extra: dict[str, JSONValue] = {}
        if restarted:
            extra["restarts_before"] = restarted
        decode_seconds = response.get("decode_seconds")
        if isinstance(decode_seconds, (int, float)):
            extra["program_decode_seconds"] = float(decode_seconds)
        error = response.get("error")
        if error:
            extra["message"] = str(error)[:500]
            return self._failed(clip, language, started, "stdio_error", extra)
        text = response.get("text")
        if not isinstance(text, str):
            extra["detail"] = "the answer has no text string"
            return self._failed(clip, language, started, "stdio_protocol_error", extra)
        try:
            segments = read_segments(response.get("segments"))
        except ProtocolError as exc:
            extra["detail"] = str(exc)
            return self._failed(clip, language, started, "stdio_protocol_error", extra)
        used = response.get("language")
        return Hypothesis(
            id=clip.id,
            text=text.strip(),
            decode_seconds=time.perf_counter() - started,
            language_requested=language,
            language_used=used if isinstance(used, str) and used else None,
            segments=segments,
            extra=extra,
        )

    def _drop(self, process: StdioProcess) -> None:
        """Kill a program that is out of step (or gone); the next clip starts another."""
        process.kill()
        self._process = None

    def _failed(
        self,
        clip: Clip,
        language: str | None,
        started: float,
        code: str,
        extra: dict[str, JSONValue],
        process: StdioProcess | None = None,
    ) -> Hypothesis:
        if process is not None:
            extra["stderr_tail"] = process.stderr_tail()
            if process.noise:
                extra["stdout_noise"] = list(process.noise)
        return Hypothesis(
            id=clip.id,
            text="",
            decode_seconds=time.perf_counter() - started,
            language_requested=language,
            error=code,
            extra=extra,
        )
