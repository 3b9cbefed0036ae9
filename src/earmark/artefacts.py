"""`artefacts.sha256`: the hash list of an output folder, written last, checked by `verify`.

Seed 001 ends with a machine-checkable list of every artefact's SHA-256. A run, a score
and a post-processing folder each write one, in `sha256sum` format (`<hex>  <relative
path>`, sorted by path), so `sha256sum -c artefacts.sha256` in the folder checks it without
earmark. It is written after every other file, atomically: a folder whose listing is
missing or stale was not finished (or was changed after it was).

The outputs are the folder's regular files at its top level and in `arms/<name>/`, except
dot-entries (the writer's lock, temporary files) and the listing itself. Other subfolders
are not walked: a folder written into the output folder (`postprocess --out RUN/pp`) has
its own listing, and a corpus next to the outputs is not an output.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.outputs import atomic_write_text
from earmark.records import require_regular_file

LISTING = "artefacts.sha256"
#: The commands whose folders end with a listing: a folder one of them made (its marker
#: says so, `earmark.outputs.FOLDER_MARKER`) and that has none was cut short or stripped.
LISTED_BY = ("run", "score", "postprocess")
_LINE = re.compile(r"([0-9a-f]{64}) [ *](.+)")


def sha256_file(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB blocks (audio, weights and an 80 MB
    predictions.jsonl alike): the one file hash every listing, cache key and model
    record uses. A FIFO or device is refused first: hashing one would never end."""
    require_regular_file(path)
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def output_files(folder: str | os.PathLike[str]) -> list[str]:
    """Relative POSIX paths of the folder's outputs, sorted (see the module docstring)."""
    root = Path(folder)
    places = [root, *sorted(p for p in (root / "arms").glob("*") if p.is_dir())]
    found = []
    for place in places:
        for entry in place.iterdir():
            relative = entry.relative_to(root).as_posix()
            if entry.name.startswith(".") or relative == LISTING:
                continue
            if entry.is_file() and not entry.is_symlink():
                found.append(relative)
    return sorted(found)


def format_listing(hashes: dict[str, str]) -> str:
    return "".join(f"{digest}  {name}\n" for name, digest in sorted(hashes.items()))


def write_artefacts(folder: str | os.PathLike[str], known: Mapping[str, str] | None = None) -> Path:
    """Hash every output of `folder` and write `artefacts.sha256` (call it last).

    `known` maps a file (relative POSIX path) to the SHA-256 its writer computed while
    writing it, under the folder's lock: that file is not read a second time
    (predictions.jsonl of 100,000 rows is ~80 MB; hashing it again cost ~40 ms):
    `write_results` returns the digests of what it wrote for this. A name in `known`
    that is not among the outputs is ignored; every other output is hashed.
    """
    root = Path(folder)
    given = known or {}
    hashes = {
        name: given[name] if name in given else sha256_file(root / name)
        for name in output_files(root)
    }
    path = root / LISTING
    atomic_write_text(path, format_listing(hashes))
    return path


def read_listing(path: str | os.PathLike[str]) -> dict[str, str]:
    """A `sha256sum`-format listing as {relative path: hex}; a malformed line is refused."""
    listing = Path(path)
    hashes: dict[str, str] = {}
    for number, line in enumerate(listing.read_text("utf-8").splitlines(), start=1):
        match = _LINE.fullmatch(line)
        if match is None:
            raise EarmarkError(
                "not a sha256sum line (`<64 hex>  <path>`)", file=str(listing), line=number
            )
        name = match.group(2)
        if name.startswith("/") or ".." in Path(name).parts:
            raise EarmarkError(f"path {name!r} leaves the folder", file=str(listing), line=number)
        hashes[name] = match.group(1)
    return hashes


def add_to_listing(folder: str | os.PathLike[str], written: str | os.PathLike[str]) -> bool:
    """Record one file written into a finished folder (`earmark report`'s report.html).

    Only that entry is (re)hashed: the others keep the hashes the writer recorded, so a
    file changed before the addition still fails the check. Returns False (and does
    nothing) when the folder has no listing or the file lies outside the folder's outputs.
    """
    root = Path(folder).resolve()
    listing = root / LISTING
    target = Path(written).resolve()
    if not listing.is_file():
        return False
    try:
        relative = target.relative_to(root).as_posix()
    except ValueError:
        return False
    if relative not in output_files(root):
        return False
    hashes = read_listing(listing)
    hashes[relative] = sha256_file(target)
    atomic_write_text(listing, format_listing(hashes))
    return True


@dataclass(frozen=True)
class ListingCheck:
    """What differs between a folder and its listing; empty lists mean it matches."""

    listed: int
    missing: tuple[str, ...]
    changed: tuple[str, ...]
    unlisted: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not (self.missing or self.changed or self.unlisted)

    def describe(self) -> str:
        if self.ok:
            return f"{self.listed} files match {LISTING}"
        parts = []
        for label, names in (
            ("changed", self.changed),
            ("missing", self.missing),
            ("unlisted", self.unlisted),
        ):
            if names:
                parts.append(f"{label}: {', '.join(names)}")
        return "; ".join(parts)


def check_artefacts(folder: str | os.PathLike[str]) -> ListingCheck | None:
    """Compare the folder with its listing; None when it has none (an older folder)."""
    root = Path(folder)
    listing = root / LISTING
    if not listing.is_file():
        return None
    hashes = read_listing(listing)
    missing, changed = [], []
    for name, digest in sorted(hashes.items()):
        path = root / name
        if not path.is_file():
            missing.append(name)
        elif sha256_file(path) != digest:
            changed.append(name)
    unlisted = [name for name in output_files(root) if name not in hashes]
    return ListingCheck(len(hashes), tuple(missing), tuple(changed), tuple(unlisted))
