"""Writing a run or score folder so that no reader ever sees half a file or two writers.

Every file earmark writes into an output folder goes through `atomic_write_*`: the bytes go
to a temporary file with a unique name in the same folder, are flushed and fsynced, the
temporary file is renamed over the final name and the folder is fsynced. A reader sees
the old file or the new one, never a torn or empty one; a full disk or a file-size limit
leaves the old file intact and no temporary file behind (a `kill -9` mid-write can leave
one, which the next writer holding the folder's lock removes).

`lock_output_folder` takes an exclusive, non-blocking `flock` on `<folder>/.earmark.lock`
for as long as a `run` or `score` writes there: a second writer into the same `--out` is
refused with one line instead of interleaving its rows with the first one's. The kernel
drops the lock when the process ends, however it ends, so a killed run never leaves a
stale lock.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from earmark.errors import EarmarkError

LOCK_NAME = ".earmark.lock"
#: `.<final name>.<pid>.<8 hex digits>.tmp`: the only names the lock holder cleans up.
_TEMP_NAME = re.compile(r"\..+\.[0-9]+\.[0-9a-f]{8}\.tmp")


def _temp_name(path: Path) -> Path:
    """A name no other writer can pick: hidden, beside the target, pid plus random token."""
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def fsync_folder(folder: Path) -> None:
    """Make a rename durable: without it a crash can lose the new directory entry."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    except OSError as exc:  # some file systems cannot fsync a directory; nothing to do
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def atomic_write_bytes(path: str | os.PathLike[str], chunks: Iterable[bytes]) -> tuple[str, int]:
    """Stream `chunks` into `path` atomically; returns (SHA-256 hex, bytes written).

    The digest is of exactly the bytes that now lie under the final name, so a record
    written later can name the file it was computed from."""
    target = Path(path)
    tmp = _temp_name(target)
    digest = hashlib.sha256()
    size = 0
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        with open(fd, "wb", closefd=True) as handle:
            for chunk in chunks:
                handle.write(chunk)
                digest.update(chunk)
                size += len(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError) and exc.filename is None:
            # A failed write names no file; say which output it was (not the temp name).
            raise OSError(exc.errno, exc.strerror, str(target)) from exc
        raise
    fsync_folder(target.parent)
    return digest.hexdigest(), size


def atomic_write_text(path: str | os.PathLike[str], text: str) -> str:
    """`text` (UTF-8, `\\n` line ends as given) into `path` atomically; returns its SHA-256."""
    return atomic_write_bytes(path, (text.encode("utf-8"),))[0]


def atomic_write_json(path: str | os.PathLike[str], data: Any) -> str:
    """The JSON record form every earmark output uses: indented, UTF-8 as is, final newline."""
    return atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _remove_stale_temp_files(folder: Path) -> None:
    """Temporary files a killed writer left (only safe while holding the folder's lock)."""
    for place in (folder, *sorted((folder / "arms").glob("*/"))):
        for entry in place.iterdir():
            if _TEMP_NAME.fullmatch(entry.name) and entry.is_file():
                try:
                    entry.unlink()
                except FileNotFoundError:
                    pass


@contextmanager
def lock_output_folder(folder: str | os.PathLike[str], command: str) -> Iterator[Path]:
    """Hold `folder` for one writer (created when missing); a second is refused at once.

    Non-blocking on purpose: waiting would let two runs of different inputs finish one
    after the other into one folder, and the second would silently replace the first."""
    out = Path(folder)
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    lock_path = out / LOCK_NAME
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    locked = False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
            who = f" (pid {holder})" if holder.isdigit() else ""
            raise EarmarkError(
                f"another earmark process{who} is writing to this folder",
                file=str(out),
                hint=f"wait for it to finish, or give `earmark {command}` another --out",
            ) from None
        locked = True
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        _remove_stale_temp_files(out)
        yield out
    except BaseException:
        if created and locked:
            _remove_if_only_lock(out)
        raise
    finally:
        os.close(fd)  # closing the only descriptor releases the flock


def _remove_if_only_lock(out: Path) -> None:
    """A refused command leaves no folder behind that it created and wrote nothing into."""
    try:
        if [entry.name for entry in out.iterdir()] == [LOCK_NAME]:
            (out / LOCK_NAME).unlink()
            out.rmdir()
    except OSError:
        pass
