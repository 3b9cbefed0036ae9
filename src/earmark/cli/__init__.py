"""The `earmark` command line: parses, calls the library, prints. No logic of its own.

Each subcommand lives in `earmark.cli.<name>` and exposes `register(subparsers)`,
which adds its parser and sets `func(args) -> int`. Command modules keep their top-level
imports light; the library is imported inside `func`. A command line naming a command
imports and builds that command's module alone (`build_parser(command)`); `earmark`,
`earmark --help` and an unknown command build them all.
"""

from __future__ import annotations

import argparse
import errno
import gc
import importlib
import io
import os
import sys
from collections.abc import Sequence
from types import TracebackType
from typing import NoReturn

from earmark import __version__
from earmark.cli import blas_threads
from earmark.collector import collector_paused
from earmark.errors import EarmarkError

#: Subcommand modules, in help order. A module missing here is simply not offered.
COMMAND_MODULES = (
    "demo",
    "examples",
    "score",
    "multispeaker",
    "run",
    "manifest",
    "importers",
    "fetch",
    "plan",
    "compare",
    "leaderboard",
    "decide",
    "verify",
    "report",
    "postprocess",
    "engines",
    "normalizers",
)

#: The command a module registers, where the two names differ (`import` is a keyword).
_COMMAND_OF = {"importers": "import"}
#: Command name -> its module, for building only the parser of the command being run.
_MODULE_OF = {_COMMAND_OF.get(name, name): name for name in COMMAND_MODULES}


class _Parser(argparse.ArgumentParser):
    """argparse with a usage error on one line, like every other error of the CLI: the
    usage block of `earmark run` is 20 lines, and the line that matters came last."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or, given the name of one command, a parser holding only
    that subcommand: `earmark score FILE` need not import and build the other sixteen
    (a quarter of a one-pair score's start-up). Both parse that command's arguments alike:
    every error is one line of the subcommand's own parser, never the usage listing."""
    parser = _Parser(
        prog="earmark",
        description="Open, reproducible, language-aware evaluation of speech recognition.",
    )
    parser.add_argument("--version", action="version", version=f"earmark {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = COMMAND_MODULES if command is None else (_MODULE_OF[command],)
    for name in names:
        try:
            module = importlib.import_module(f"earmark.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"earmark.cli.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command line and return its exit status; `argv` None: the process's own
    (`earmark ...`, `python -m earmark`), which exits next."""
    code = _run_command(argv)
    if argv is None:
        # The interpreter's last collection would tear down, cycle by cycle, every module
        # loaded (numpy's too): ~60 ms of a one-pair score. Frozen, they go with the
        # process. Python promises no finalizer at exit for what is still alive, and every
        # file earmark writes is closed (and synced) before the command returns.
        gc.freeze()
    return code


def _run_command(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    # The first word names the command unless it is an option (`--help`, `--version`) or
    # unknown (argparse's own error lists the choices, so it needs them all).
    command = words[0] if words and words[0] in _MODULE_OF else None
    # Importing and building the parser makes no reference cycles for the collector to find.
    with collector_paused():
        if argv is None and command in blas_threads.COMMANDS:  # this process is the command's
            blas_threads.load_numpy_single_threaded()
        parser = build_parser(command)
        args = parser.parse_args(words)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except EarmarkError as exc:
        print(f"earmark: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("earmark: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `earmark ... | head`: the reader left; nothing to say
        _silence_stdout()
        return 1
    except OSError as exc:
        print(f"earmark: error: {describe_os_error(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug: one line here, the whole traceback in a file
        print(f"earmark: internal error: {_crash_line(exc, argv)}", file=sys.stderr)
        return 1


#: What the system's message means for the user, and what to do, per errno.
_OS_HINTS = {
    errno.EACCES: "permission denied (hint: choose a folder you can write, or fix its mode)",
    errno.EPERM: "operation not permitted (hint: check the path's owner and mode)",
    errno.EROFS: "read-only file system (hint: choose a writable --out)",
    errno.ENOSPC: "no space left on the device (hint: free space, then rerun the command)",
    errno.EDQUOT: "disk quota exceeded (hint: free space, then rerun the command)",
    errno.EFBIG: "file too large for the file-size limit (hint: raise `ulimit -f`, then rerun)",
    errno.EISDIR: "is a directory (hint: name a file here)",
    errno.ENOTDIR: "a part of this path is a file, not a directory",
    errno.ENOENT: "no such file or directory",
    errno.EEXIST: "already exists (hint: choose another path)",
    errno.ELOOP: "too many levels of symbolic links",
    errno.ENAMETOOLONG: "file name too long",
}


def describe_os_error(exc: OSError) -> str:
    """`PATH: what went wrong (hint: ...)` for an OS error, as one line.

    A failed `write()` or `fsync()` names no file, so the open file in the frame that
    failed names it instead: on a full disk the user needs to know which file was cut.
    """
    what = _OS_HINTS.get(exc.errno or 0) or exc.strerror or type(exc).__name__
    paths = [p for p in (exc.filename, exc.filename2) if p is not None]
    if exc.errno == errno.EEXIST and paths and not os.path.isdir(paths[0]):
        what = "is a file, where a directory is needed (hint: choose another path)"
    if not paths and (path := _open_file_in(exc.__traceback__)) is not None:
        paths = [path]
    where = " -> ".join(os.fsdecode(p) if isinstance(p, bytes) else str(p) for p in paths)
    return _one_line(f"{where}: {what}" if where else what)


def _open_file_in(tb: TracebackType | None) -> str | None:
    """The name of an open file held by the innermost frame of `tb` that holds one,
    preferring a file open for writing (a frame copying input to output holds both)."""
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        named = [
            (value, name)
            for value in frame.f_locals.values()
            if isinstance(value, io.IOBase)
            and isinstance(name := getattr(value, "name", None), str)
        ]
        if named:
            writing = [n for f, n in named if set(str(getattr(f, "mode", ""))) & set("wax+")]
            return (writing or [n for _, n in named])[0]
    return None


def _crash_line(exc: Exception, argv: Sequence[str] | None) -> str:
    """`Type: message; full traceback in FILE`: the trace goes to a file in the temp folder
    (the terminal gets one line, a bug report gets everything)."""
    import tempfile
    import time
    import traceback

    summary = _one_line(f"{type(exc).__name__}: {exc}")[:500]
    stamp = time.strftime("%Y%m%dT%H%M%S")
    path = os.path.join(tempfile.gettempdir(), f"earmark-crash-{stamp}-{os.getpid()}.txt")
    report = (
        f"earmark {__version__}, Python {sys.version.split()[0]}\n"
        f"argv: {list(sys.argv[1:] if argv is None else argv)!r}\n\n"
        + "".join(traceback.format_exception(exc))
    )
    try:
        with open(path, "x", encoding="utf-8", errors="replace") as handle:
            handle.write(report)
    except OSError as write_error:
        return f"{summary}; the traceback could not be saved ({describe_os_error(write_error)})"
    return f"{summary}; full traceback in {path} (please include it in a bug report)"


def _one_line(text: object) -> str:
    """A message on one line: an id or path with a line break must not start a new one."""
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's exit flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
