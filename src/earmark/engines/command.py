"""Any external recogniser as a command: `{audio}` and `{language}` in, text on stdout.

The template is split with `shlex` and run without a shell unless `shell=true`, so file
names with spaces or quotes are passed intact. Each clip gets its own 16 kHz PCM-16
WAV (or its original file with `audio_input=original`). A non-zero exit, a timeout or a
missing output are reason codes on that clip; the run continues.

What is recorded is what was hashed: the executable, every existing file the template
names (a script given to an interpreter, a model path) and the `model=` file or folder.
A program's weights are invisible to earmark unless declared, so without `model=` the
arm is recorded `verifiable: false`, whatever else was hashed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from earmark.engines import offline
from earmark.engines.base import Clip, Hypothesis, ModelInfo
from earmark.engines.clip_audio import wav_bytes
from earmark.engines.file_hashes import (
    content_revision,
    declared_model,
    external_program_hashes,
    files_named_by,
)
from earmark.engines.settings import SettingsReader, read_licence
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue

BACKEND = "command"
PLACEHOLDERS = ("{audio}", "{language}", "{seed}")


@dataclass(frozen=True)
class CommandOptions:
    template: str
    argv: tuple[str, ...]
    executable: Path | None
    timeout: float
    shell: bool
    audio_input: str
    licence: str | None
    licence_source: str | None
    #: The declared model file or folder (`model=`), resolved; None when not declared.
    model: Path | None = None
    #: The operator's word that the program gives the same text for the same clip and
    #: `{seed}` (`deterministic=true`); earmark cannot check it.
    deterministic: bool = False

    def named_files(self) -> list[Path]:
        """Existing regular files the template names besides the executable."""
        return [p for p in files_named_by(self.argv, PLACEHOLDERS) if p != self.executable]


def read_options(arm: ArmSpec) -> CommandOptions:
    reader = SettingsReader(arm)
    licence, licence_source = read_licence(reader)
    timeout = reader.number("timeout", 600.0, minimum=0.001)
    shell = reader.boolean("shell", False)
    audio_input = reader.choice("audio_input", ("wav", "original"), "wav")
    model_text = reader.text("model")
    deterministic = reader.boolean("deterministic", False)
    reader.finish()
    model = declared_model(model_text, reader.error, "command")
    template = arm.model
    try:
        argv = tuple(shlex.split(template))
    except ValueError as exc:
        raise EarmarkError(
            f"arm '{arm.name}': cannot split the command template: {exc}", field="model"
        ) from None
    if not argv:
        raise EarmarkError(f"arm '{arm.name}': empty command", field="model")
    if "{audio}" not in template:
        raise EarmarkError(
            f"arm '{arm.name}': the command template has no {{audio}} placeholder",
            field="model",
            hint="e.g. command:./asr.sh {audio} {language}",
        )
    unknown = sorted(
        {f"{{{p}}}" for p in re.findall(r"\{([a-z_]+)\}", template)} - set(PLACEHOLDERS)
    )
    if unknown:
        raise EarmarkError(
            f"arm '{arm.name}': unknown placeholder {unknown[0]} in {template!r}",
            field="model",
            hint="placeholders are {audio}, {language} and {seed}",
        )
    program = shutil.which(argv[0])
    if program is None:
        raise EarmarkError(
            f"arm '{arm.name}': program {argv[0]!r} not found or not executable", field="model"
        )
    return CommandOptions(
        template=template,
        argv=argv,
        executable=Path(program).resolve(),
        timeout=timeout,
        shell=shell,
        audio_input=audio_input,
        licence=licence,
        licence_source=licence_source,
        model=model,
        deterministic=deterministic,
    )


class CommandEngine:
    """Runs the program once per clip; stdout (stripped) is the hypothesis."""

    def __init__(self, arm: ArmSpec, options: CommandOptions) -> None:
        self.arm = arm
        self.name = arm.name
        self.options = options
        self._loaded = False
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> CommandOptions:
        return read_options(arm)

    @classmethod
    def from_spec(cls, arm: ArmSpec) -> CommandEngine:
        return cls(arm, read_options(arm))

    def load(self) -> ModelInfo:
        if self._loaded:
            raise RuntimeError(f"arm '{self.name}' is already loaded; load() runs once")
        started = time.perf_counter()
        hashes, size = self._hashes()
        self._tmp = tempfile.TemporaryDirectory(prefix="earmark-command-")
        self._loaded = True
        model = self.options.model
        provenance: dict[str, JSONValue] = {
            "executable": None if self.options.executable is None else str(self.options.executable),
            "template_files": [str(p) for p in self.options.named_files()],
            "model": None if model is None else str(model),
        }
        network = offline.load_note()
        if network is not None:
            provenance["network"] = dict(network)
        if model is None:
            provenance["verifiable"] = False
            provenance["unverifiable_reason"] = (
                f"command arm '{self.name}' declares no model= file or folder: the weights "
                "the program loads are not hashed"
            )
        return ModelInfo(
            backend=BACKEND,
            artifact_id=self.options.template,
            revision=content_revision(hashes) if hashes else None,
            file_sha256=hashes,
            licence=self.options.licence,
            licence_source=self.options.licence_source,
            runtime="external-command",
            runtime_version=None,
            compute_type=None,
            load_seconds=time.perf_counter() - started,
            size_bytes=size,
            deterministic=self.options.deterministic,
            determinism_note=(
                "declared by the arm (deterministic=true), not checked by earmark"
                if self.options.deterministic
                else "an external program: earmark cannot see whether it samples (pass "
                "{seed} to seed it per clip and declare deterministic=true if it is)"
            ),
            extra={
                "template": self.options.template,
                "shell": self.options.shell,
                "timeout": self.options.timeout,
                "audio_input": self.options.audio_input,
                "revision_covers": "the executable, the files the template names and the "
                "declared model= (SHA-256 over their sorted file hashes)",
                **provenance,
            },
        )

    def _hashes(self) -> tuple[dict[str, str], int]:
        return external_program_hashes(self.options)

    def transcribe(self, clips: Sequence[Clip], language: str | None) -> list[Hypothesis]:
        if not self._loaded or self._tmp is None:
            raise RuntimeError(f"arm '{self.name}': call load() before transcribe()")
        return [self._one(clip, language, Path(self._tmp.name)) for clip in clips]

    def close(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def _audio_path(self, clip: Clip, folder: Path) -> Path:
        if self.options.audio_input == "original" and clip.path:
            return Path(clip.path)
        path = folder / f"clip-{hashlib.sha256(clip.id.encode()).hexdigest()[:16]}.wav"
        path.write_bytes(wav_bytes(clip))
        return path

    def _command(self, audio: Path, language: str | None, seed: int | None) -> list[str] | str:
        values = {
            "{audio}": str(audio),
            "{language}": language or "",
            # The clip's seed (plan seed, clip id, repeat), for a program that samples.
            "{seed}": "" if seed is None else str(seed),
        }
        if self.options.shell:
            text = self.options.template
            for placeholder, value in values.items():
                text = text.replace(placeholder, shlex.quote(value))
            return text
        argv = []
        for part in self.options.argv:
            for placeholder, value in values.items():
                part = part.replace(placeholder, value)
            argv.append(part)
        return argv

    def _one(self, clip: Clip, language: str | None, folder: Path) -> Hypothesis:
        started = time.perf_counter()
        audio = self._audio_path(clip, folder)
        try:
            code, stdout, stderr = _run(self._command(audio, language, clip.seed), self.options)
        except OSError as exc:
            return self._failed(
                clip, language, started, f"command_failed:{type(exc).__name__}", str(exc)
            )
        finally:
            if audio.parent == folder:
                audio.unlink(missing_ok=True)
        if code is None:
            return self._failed(clip, language, started, "timeout", stderr)
        if code != 0:
            return self._failed(clip, language, started, f"command_failed:{code}", stderr)
        return Hypothesis(
            id=clip.id,
            text=stdout.strip(),
            decode_seconds=time.perf_counter() - started,
            language_requested=language,
            language_used=None,
        )

    def _failed(
        self, clip: Clip, language: str | None, started: float, code: str, detail: str
    ) -> Hypothesis:
        return Hypothesis(
            id=clip.id,
            text="",
            decode_seconds=time.perf_counter() - started,
            language_requested=language,
            error=code,
            extra={"stderr_tail": detail[-500:]},
        )


def _run(command: list[str] | str, options: CommandOptions) -> tuple[int | None, str, str]:
    """Exit code (None on timeout), stdout and stderr; on timeout the whole group is killed."""
    posix = os.name == "posix"
    process = subprocess.Popen(
        offline.child_command(command, options.shell),
        shell=options.shell,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        start_new_session=posix,
    )
    try:
        out, err = process.communicate(timeout=options.timeout)
    except subprocess.TimeoutExpired:
        if posix:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        else:  # pragma: no cover - non-POSIX
            process.kill()
        out, err = process.communicate()
        return None, "", err.decode("utf-8", "replace")
    return process.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
