"""Writing a manifest and its sidecar, the one way every importer and fetcher does it.

Rows are written in canonical form (`Utterance.to_json`), so the manifest SHA-256 is a
function of the content alone. Writes go to a temporary file renamed into place, so a
crash never leaves a half-written manifest that looks complete.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from earmark.corpus.model import CorpusMeta, Utterance
from earmark.errors import EarmarkError


def meta_path_for(manifest: str | os.PathLike[str]) -> Path:
    """`corpus.jsonl` -> `corpus.jsonl.meta.json` (the sidecar lives beside its manifest)."""
    return Path(f"{os.fspath(manifest)}.meta.json")


def write_manifest(
    path: str | os.PathLike[str], rows: Iterable[Utterance], meta: CorpusMeta
) -> int:
    """Write rows (refusing duplicate ids) and the sidecar; returns the number of rows."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    seen: set[str] = set()
    count = 0
    with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
        for row in rows:
            if row.id in seen:
                tmp.unlink(missing_ok=True)
                raise EarmarkError(
                    f"duplicate utterance id {row.id!r}", file=str(target), field="id"
                )
            seen.add(row.id)
            handle.write(row.to_json())
            handle.write("\n")
            count += 1
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, target)
    write_meta(meta_path_for(target), meta)
    return count


def write_meta(path: str | os.PathLike[str], meta: CorpusMeta) -> None:
    target = Path(path)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(
        json.dumps(meta.to_dict(), ensure_ascii=False, indent=2, sort_keys=True) + "\n",
        encoding="utf-8",
    )
    os.replace(tmp, target)
