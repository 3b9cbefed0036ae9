"""A formatter run as an external program: transcript on stdin, formatted text on stdout.

The command is split with `shlex` and run without a shell; `{language}` in an argument
is replaced by the row's language. The output is decoded as UTF-8 and stripped of
leading/trailing whitespace. A timeout (the whole process group is killed), a non-zero
exit or a failure to start are reason codes, never a crashed evaluation.

A formatter's name says nothing about what ran, so its digest is recorded the way the
`command` ASR backend records one (`earmark.engines.file_hashes.program_hashes`): the
SHA-256 of the executable, of every file its command line names (as an argument or as
`--key=value`), and of the weights it loads when `model=` names their file or folder.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from earmark.artefacts import sha256_file
from earmark.engines.file_hashes import (
    content_revision,
    declared_model,
    files_named_by,
    program_hashes,
)
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.postprocess.protocol import ProcessorOutput, ProcessorSettings
from earmark.results.codec import JSONObject

TIMEOUT = "timeout"


@dataclass(frozen=True)
class CommandProcessor:
    template: str
    argv: tuple[str, ...]
    executable: Path
    executable_sha256: str | None
    timeout: float
    #: SHA-256 of arguments that name existing files (a formatter script, its config).
    argument_files_sha256: tuple[tuple[str, str], ...] = ()
    #: The declared weights (`model=` file or folder), resolved; None when not declared.
    model: Path | None = None
    #: `program_hashes`: executable, named files and model files, keyed by resolved path.
    file_sha256: tuple[tuple[str, str], ...] = ()
    kind: str = "command"
    guarded: bool = True

    @classmethod
    def from_spec(cls, spec: ArmSpec, settings: ProcessorSettings) -> CommandProcessor:
        timeout = settings.number("timeout", 60.0, minimum=0.001)
        model_text = settings.text("model")
        settings.finish()
        model = declared_model(model_text, settings.error, "formatter")
        try:
            argv = tuple(shlex.split(spec.model))
        except ValueError as exc:
            raise EarmarkError(
                f"processor {settings.spec_text!r}: cannot split the command: {exc}",
                field="processor",
            ) from None
        if not argv:
            raise EarmarkError("empty processor command", field="processor")
        unknown = sorted(set(re.findall(r"\{([a-z_]+)\}", spec.model)) - {"language"})
        if unknown:
            raise EarmarkError(
                f"unknown placeholder {{{unknown[0]}}} in the processor command",
                field="processor",
                hint="the text goes to stdin; the only placeholder is {language}",
            )
        program = shutil.which(argv[0])
        if program is None:
            raise EarmarkError(
                f"processor program {argv[0]!r} not found or not executable", field="processor"
            )
        executable = Path(program).resolve()
        digest = sha256_file(executable) if executable.is_file() else None
        files = tuple(
            (Path(arg).resolve().as_posix(), sha256_file(Path(arg)))
            for arg in argv[1:]
            if "{" not in arg and Path(arg).is_file()
        )
        named = files_named_by(argv, ("{language}",))
        hashes, _ = program_hashes(executable, named, model)
        return cls(
            spec.model,
            argv,
            executable,
            digest,
            timeout,
            files,
            model=model,
            file_sha256=tuple(sorted(hashes.items())),
        )

    def describe(self) -> JSONObject:
        return {
            "kind": self.kind,
            "command": self.template,
            "executable": self.executable.as_posix(),
            "executable_sha256": self.executable_sha256,
            "argument_files_sha256": dict(self.argument_files_sha256),
            "model": None if self.model is None else self.model.as_posix(),
            "file_sha256": dict(self.file_sha256),
            "revision": content_revision(dict(self.file_sha256)) if self.file_sha256 else None,
            "timeout": self.timeout,
            "guarded": self.guarded,
            "note": "hashes cover the executable, the files its command line names and the "
            "declared model= weights, not what else the program loads"
            if self.model is not None
            else "hashes cover the executable and the files its command line names; no "
            "model= declared, so the weights the program loads are not hashed",
        }

    def process(self, text: str, language: str | None) -> ProcessorOutput:
        argv = [part.replace("{language}", language or "") for part in self.argv]
        started = time.perf_counter()
        try:
            code, out, err = _run(argv, text.encode("utf-8"), self.timeout)
        except OSError as exc:
            return ProcessorOutput(
                None,
                f"command_failed:{type(exc).__name__}",
                time.perf_counter() - started,
                {"error": str(exc)[:300]},
            )
        seconds = time.perf_counter() - started
        if code is None:
            return ProcessorOutput(None, TIMEOUT, seconds, {"stderr_tail": err[-300:]})
        if code != 0:
            return ProcessorOutput(
                None, f"command_failed:{code}", seconds, {"stderr_tail": err[-300:]}
            )
        return ProcessorOutput(out.strip(), None, seconds)

    def close(self) -> None:
        return None


def _run(argv: list[str], stdin: bytes, timeout: float) -> tuple[int | None, str, str]:
    """Exit code (None on timeout), stdout and stderr; on timeout the group is killed."""
    posix = os.name == "posix"
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=posix,
    )
    try:
        out, err = process.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        if posix:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        else:  # pragma: no cover - non-POSIX
            process.kill()
        _, err = process.communicate()
        return None, "", err.decode("utf-8", "replace")
    return process.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
