"""A formatter run as an external program: transcript on stdin, formatted text on stdout.

The command is split with `shlex` and run without a shell; `{language}` in an argument
is replaced by the row's language. The output is decoded as UTF-8 and stripped of
leading/trailing whitespace. A timeout (the whole process group is killed), a non-zero
exit or a failure to start are reason codes, never a crashed evaluation.
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
from typing import Any

from earmark.engines.file_hashes import sha256_file
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.postprocess.processors import ProcessorOutput, ProcessorSettings

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
    kind: str = "command"
    guarded: bool = True

    @classmethod
    def from_spec(cls, spec: ArmSpec, settings: ProcessorSettings) -> CommandProcessor:
        timeout = settings.number("timeout", 60.0, minimum=0.001)
        settings.finish()
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
        return cls(spec.model, argv, executable, digest, timeout, files)

    def describe(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "command": self.template,
            "executable": self.executable.as_posix(),
            "executable_sha256": self.executable_sha256,
            "argument_files_sha256": dict(self.argument_files_sha256),
            "timeout": self.timeout,
            "guarded": self.guarded,
            "note": "hashes cover the executable and argument files, not what they load",
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
