"""Turning the audio paths a corpus lists into manifest paths relative to one audio root.

Manifests refuse absolute paths and `..` escapes, so every importer resolves its paths,
picks a root (given, or the deepest folder holding them all) and stores paths below it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def resolve_listed(path_text: str, base: Path) -> Path:
    """A listed path as an absolute path; relative ones are taken from `base`."""
    path = Path(path_text)
    try:
        path = path.expanduser()
    except RuntimeError:  # `~name` of no known user: keep it as the literal path it is
        pass
    if not path.is_absolute():
        path = base / path
    return Path(os.path.normpath(path))


def common_root(paths: Iterable[Path], fallback: Path) -> Path:
    """The deepest folder that contains every path (their files' folders, not the files)."""
    parents = [str(p.parent) for p in paths]
    if not parents:
        return Path(os.path.normpath(fallback.resolve()))
    return Path(os.path.commonpath(parents))


def relative_under(path: Path, root: Path) -> str | None:
    """`path` relative to `root` in POSIX form, or None when it is not under `root`."""
    rel = os.path.relpath(path, root)
    if rel == os.curdir or rel.startswith(os.pardir + os.sep) or rel == os.pardir:
        return None
    if os.path.isabs(rel):
        return None
    return Path(rel).as_posix()
