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

from earmark.errors import EarmarkError

LOCK_NAME = ".earmark.lock"
#: Which command made an output folder (`claim_output_folder`): a dot-file, so it is
#: neither an artefact nor part of any golden listing.
FOLDER_MARKER = ".earmark-folder.json"
FOLDER_SCHEMA = "earmark.folder/1"
#: Folders written before the marker existed: a file only one command writes, tried in
#: this order (a post-processing folder also holds predictions.jsonl and results.json; a
#: run holds results.json too, so `score` comes last).
_MADE_BY_FILES = (
    ("postprocess.json", "postprocess"),
    ("plan.json", "run"),
    ("multispeaker.json", "multispeaker"),
    ("compare.json", "compare"),
    ("gap.json", "compare"),
    ("leaderboard.json", "leaderboard"),
    ("contamination.json", "manifest contamination"),
    ("decision-*.json", "decide"),
    ("results.json", "score"),
)
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


def atomic_write_json(path: str | os.PathLike[str], data: object) -> str:
    """The JSON record form every earmark output uses: indented, UTF-8 as is, final newline."""
    return atomic_write_bytes(path, (_json_bytes(data), b"\n"))[0]


def json_text(value: object) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)`, the same text, ~5x faster.

    The stdlib writes an indented document in pure Python (~0.9 s for the 24 MB
    results.json of 10,000 speakers). orjson lays out the same tokens the same way
    (two-space indent, `": "`, empty containers as `[]`/`{}`, UTF-8 as is), but spells
    some floats otherwise (`0.00001`, `1e16`; NaN as null), writes what the stdlib
    refuses (enums, UUIDs, dataclasses, datetimes) and refuses what the stdlib takes
    (non-string keys, huge ints, lone surrogates, deep nesting). So orjson's text is
    used only where it is proven to be the stdlib's (`_orjson_indented`), and otherwise
    the stdlib writes it.
    """
    fast = _orjson_indented(value)
    return json.dumps(value, indent=2, ensure_ascii=False) if fast is None else fast.decode()


def _json_bytes(value: object) -> bytes:
    """`json_text(value)` as UTF-8, without a decoded copy of a large document."""
    fast = _orjson_indented(value)
    if fast is None:
        return json.dumps(value, indent=2, ensure_ascii=False).encode("utf-8")
    return fast


#: orjson's refusals are TypeErrors; UnicodeEncodeError (a lone surrogate) is a
#: ValueError. The stdlib then says what it always said.
_REFUSED = (TypeError, ValueError, OverflowError, RecursionError)


def _orjson_indented(value: object) -> bytes | None:
    """orjson's indented UTF-8 of `value` when it is the stdlib's, else None.

    Two proofs, the cheaper first. A value of plain JSON (exact dicts, lists and tuples
    holding exact strings, integers, floats, booleans and None) whose every distinct
    float both writers spell alike (`_plain_floats`) is written alike: both lay out the
    same containers the same way, and every string and integer orjson accepts they
    spell alike (escapes are per character, tested on every code point; integers in
    decimal, orjson refusing those past 64 bits), as they do keys (orjson refuses a key
    that is not a string). Otherwise both write the whole value compactly and must
    agree byte for byte (the stdlib's compact writer is C, but it spells every float
    again: ~0.4 s for the results.json of 10,000 speakers, whose floats are gathered
    and compared in ~0.06 s)."""
    import orjson

    try:
        fast = orjson.dumps(value, option=orjson.OPT_INDENT_2)
        # Written, so `value` holds no cycle and nests at most 255 deep.
        floats = _plain_floats(value)
        if floats is not None:
            return fast if _stdlib_compact(floats) == orjson.dumps(floats) else None
        del fast  # freed before the two compact copies are made
        compact = orjson.dumps(value)
        same = _stdlib_compact(value) == compact
        del compact
        return orjson.dumps(value, option=orjson.OPT_INDENT_2) if same else None
    except _REFUSED:
        return None


def _stdlib_compact(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


#: Scalars both writers spell alike whenever orjson writes them (`_orjson_indented`).
_SPELT_ALIKE = frozenset({str, int, bool, type(None)})


def _plain_floats(value: object) -> list[float] | None:
    """Every distinct float in `value`, when `value` holds nothing but exact dicts,
    lists and tuples of exact strings, integers, floats, booleans and None; else None
    (a subclass, an enum, any other type). Keys are not looked at: orjson, which has
    written `value` first, refuses any key but a string, and spells a string
    subclass's key by its text, as the stdlib does.

    Distinct by equality, which keeps every spelling: equal floats are spelled alike
    but for the two zeros, which are both added. One type test per value: this walk is
    most of the proof's cost (10,000 speakers: ~650,000 values)."""
    floats: set[float] = {0.0}
    stack: list[object] = [[value]]
    pop, push, add = stack.pop, stack.append, floats.add
    alike = _SPELT_ALIKE
    while stack:
        node = pop()
        # Only exact dicts, lists and tuples are pushed.
        items: Iterable[object] = node.values() if type(node) is dict else node  # type: ignore[assignment]
        for item in items:
            kind = type(item)
            if kind in alike:
                continue
            if kind is float:
                add(item)  # type: ignore[arg-type]
            elif kind is dict or kind is list or kind is tuple:
                push(item)
            else:
                return None
    return [-0.0, *floats]


def _remove_stale_temp_files(folder: Path) -> None:
    """Temporary files a killed writer left (only safe while holding the folder's lock)."""
    for place in (folder, *sorted((folder / "arms").glob("*/"))):
        for entry in place.iterdir():
            if _TEMP_NAME.fullmatch(entry.name) and entry.is_file():
                try:
                    entry.unlink()
                except FileNotFoundError:
                    pass


def folder_maker(folder: str | os.PathLike[str]) -> str | None:
    """The command that made `folder`: its marker's, else inferred from its files (a
    folder from before the marker), else None (empty, or not an earmark output)."""
    root = Path(folder)
    marked = marked_maker(root)
    return marked if marked is not None else _maker_by_files(root)


def _maker_by_files(root: Path) -> str | None:
    """The command whose record file lies in `root` (`_MADE_BY_FILES`), or None."""
    for pattern, command in _MADE_BY_FILES:
        if any(entry.is_file() for entry in root.glob(pattern)):
            return command
    return None


def marked_maker(folder: str | os.PathLike[str]) -> str | None:
    """The command `folder`'s marker names; None when it has none (an older folder)."""
    root = Path(folder)
    marker = root / FOLDER_MARKER
    if marker.is_file() and not marker.is_symlink():
        try:
            data = json.loads(marker.read_bytes())
        except (OSError, ValueError, RecursionError):
            data = None
        command = data.get("command") if isinstance(data, dict) else None
        if not isinstance(command, str) or data.get("schema") != FOLDER_SCHEMA:
            raise EarmarkError(
                f"unreadable folder marker {FOLDER_MARKER}",
                file=str(root),
                hint="this folder's marker was edited; give the command another --out",
            )
        return command
    return None


def claim_output_folder(folder: str | os.PathLike[str], command: str) -> bool:
    """Refuse `folder` if another command made it, else record that `command` did.

    A folder holds one command's records: `earmark score X --out RUN` into a finished
    run would replace its rows and rewrite its figures and listing, leaving plan and
    provenance to describe rows that are gone. The same command may write again (a
    resumed run, a rescore). Returns whether the marker was written now."""
    root = Path(folder)
    maker = folder_maker(root)
    if maker is not None and maker != command:
        raise EarmarkError(
            f"is an output folder of `earmark {maker}`; `earmark {command}` will not write into it",
            file=str(root),
            hint=f"give `earmark {command}` another --out",
        )
    if (root / FOLDER_MARKER).exists():
        return False
    atomic_write_json(root / FOLDER_MARKER, {"schema": FOLDER_SCHEMA, "command": command})
    return True


def refuse_own_input(
    folder: str | os.PathLike[str],
    inputs: Iterable[str | os.PathLike[str] | None],
    outputs: Iterable[str],
    command: str,
) -> None:
    """Refuse when an input is the same file (device and inode: links and `..` see
    through) as one of the `outputs` named in `folder`: writing it would destroy what is
    being read."""
    root = Path(folder)
    written: dict[tuple[int, int], str] = {}
    for name in outputs:
        try:
            st = os.stat(root / name)
        except OSError:
            continue
        written[(st.st_dev, st.st_ino)] = name
    for given in inputs:
        if given is None:
            continue
        try:
            st = os.stat(given)
        except (OSError, ValueError):
            continue
        same = written.get((st.st_dev, st.st_ino))
        if same is not None:
            raise EarmarkError(
                f"is the input of `earmark {command}` and also its output {same}; "
                "writing would overwrite it",
                file=os.fspath(given),
                hint="give --out a folder that does not hold the input",
            )


@contextmanager
def lock_output_folder(
    folder: str | os.PathLike[str], command: str, *, claim: bool = True
) -> Iterator[Path]:
    """Hold `folder` for one writer (created when missing); a second is refused at once.

    Non-blocking on purpose: waiting would let two runs of different inputs finish one
    after the other into one folder, and the second would silently replace the first.
    With `claim` (a command writing its own folder, not a file beside another's) a
    folder another command made is refused (`claim_output_folder`)."""
    out = Path(folder)
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    lock_path = out / LOCK_NAME
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    locked = marked = False
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
        marked = claim and claim_output_folder(out, command)
        yield out
    except BaseException:
        if marked and _maker_by_files(out) is None:
            # Failed before writing any record: the folder is not this command's yet.
            (out / FOLDER_MARKER).unlink(missing_ok=True)
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
