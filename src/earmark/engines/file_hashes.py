"""SHA-256 of the files a backend actually loads: the provenance that names cannot fake."""

from __future__ import annotations

import hashlib
from pathlib import Path

_CHUNK = 1 << 20


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


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
