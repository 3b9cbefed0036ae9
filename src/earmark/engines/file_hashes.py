"""SHA-256 of the files a backend actually loads: the provenance that names cannot fake."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from earmark.artefacts import sha256_file
from earmark.errors import EarmarkError


def hash_folder(folder: str | Path) -> tuple[dict[str, str], int]:
    """SHA-256 of every regular file under `folder` (links followed, dot-entries skipped).

    Returns hashes keyed by POSIX relative path, sorted, and the total size in bytes.
    """
    root = Path(folder)
    hashes: dict[str, str] = {}
    size = 0
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts) or not path.is_file():
            continue
        hashes[relative.as_posix()] = sha256_file(path)
        size += path.stat().st_size
    return hashes, size


def content_revision(hashes: dict[str, str]) -> str:
    """An immutable revision for a local artifact: SHA-256 over its sorted file hashes."""
    listing = "".join(f"{sha}  {name}\n" for name, sha in sorted(hashes.items()))
    return "sha256:" + hashlib.sha256(listing.encode("utf-8")).hexdigest()


def files_named_by(argv: tuple[str, ...] | list[str], skip: tuple[str, ...] = ()) -> list[Path]:
    """Existing regular files an external program's command line names after the program
    (as an argument or as the value of `--key=value`), resolved, each once; parts holding one
    of `skip` (placeholders filled per clip) are not files."""
    found: dict[Path, None] = {}
    for part in argv[1:]:
        if any(marker in part for marker in skip):
            continue
        candidates = [part, part.split("=", 1)[1]] if "=" in part else [part]
        for candidate in candidates:
            path = Path(candidate).expanduser()
            if candidate and path.is_file():
                found.setdefault(path.resolve(), None)
    return list(found)


def program_hashes(
    executable: Path | None, named: list[Path], model: Path | None
) -> tuple[dict[str, str], int]:
    """SHA-256 of what an external program loads: its executable, the files its command line
    names and the declared model file or folder (a folder's files as `folder/relative`),
    keyed by resolved path, and their total size."""
    files = [p for p in named if p != executable]
    if executable is not None and executable.is_file():
        files.insert(0, executable)
    hashes = {p.as_posix(): sha256_file(p) for p in files}
    size = sum(p.stat().st_size for p in files)
    if model is not None and model.is_dir():
        folder, folder_size = hash_folder(model)
        hashes.update({(model / rel).as_posix(): sha for rel, sha in folder.items()})
        size += folder_size
    elif model is not None and model.as_posix() not in hashes:
        hashes[model.as_posix()] = sha256_file(model)
        size += model.stat().st_size
    return hashes, size


class ExternalProgram(Protocol):
    """The options of a backend that runs another program (`command`, `stdio`)."""

    @property
    def executable(self) -> Path | None: ...

    @property
    def model(self) -> Path | None: ...

    def named_files(self) -> list[Path]: ...


def external_program_hashes(options: ExternalProgram) -> tuple[dict[str, str], int]:
    """`program_hashes` of what an external-program backend's options name."""
    return program_hashes(options.executable, options.named_files(), options.model)


def declared_model(
    text: str | None, error: Callable[[str, str, str | None], EarmarkError], loader: str
) -> Path | None:
    """The resolved path of an external program's `model=` setting, None when not set.

    The weights named there are hashed into the run's provenance, so a path that does not
    exist is refused (through the caller's `error(key, message, hint)`, which names the arm
    or processor) rather than recorded as nothing; `loader` says who loads them."""
    if text is None:
        return None
    model = Path(text).expanduser()
    if not model.exists():
        raise error(
            "model",
            f"{text!r} not found",
            f"model= names the file or folder of weights the {loader} loads, so that it is hashed",
        )
    return model.resolve()
