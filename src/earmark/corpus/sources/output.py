"""The last step every importer shares: write the manifest and a sidecar that accounts for
every skipped row and says which audio root the paths are relative to."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.sources.report import ImportReport, SkippedRow
from earmark.corpus.writer import write_manifest


def audio_root_for_sidecar(manifest: Path, audio_root: Path) -> str:
    """The audio root relative to the manifest's folder when possible, so a corpus folder
    can move as a whole; absolute otherwise."""
    manifest_dir = manifest.resolve().parent
    root = audio_root.resolve()
    rel = os.path.relpath(root, manifest_dir)
    if os.path.isabs(rel):
        return root.as_posix()
    return Path(rel).as_posix()


def write_import(
    *,
    importer: str,
    out_manifest: str | os.PathLike[str],
    rows: Sequence[Utterance],
    audio_root: Path,
    skipped: Sequence[SkippedRow],
    meta: CorpusMeta,
    source_path: Path,
    warnings: Sequence[str] = (),
) -> ImportReport:
    """Write rows + sidecar (skips listed with reasons) and return the report."""
    target = Path(out_manifest)
    counts: dict[str, int] = {}
    for row in skipped:
        counts[row.reason] = counts.get(row.reason, 0) + 1
    extra: dict[str, Any] = dict(meta.extra)
    extra.update(
        {
            "importer": importer,
            "imported_from": str(source_path),
            "audio_root": audio_root_for_sidecar(target, audio_root),
            "rows_written": len(rows),
            "skipped_counts": dict(sorted(counts.items())),
            "skipped": [row.to_dict() for row in skipped],
        }
    )
    full_meta = CorpusMeta(**{**meta.to_dict(), "extra": extra})
    written = write_manifest(target, rows, full_meta)
    return ImportReport(
        source=importer,
        manifest=target,
        audio_root=audio_root,
        rows_written=written,
        skipped=tuple(skipped),
        warnings=tuple(warnings),
    )


def licence_warnings(licence: str | None, consent_basis: str | None) -> list[str]:
    """Importers write the manifest anyway; the licence gate refuses it later. Say so now."""
    out = []
    if not licence:
        out.append("no licence declared: the licence gate will refuse this manifest (--licence)")
    if not consent_basis:
        out.append("no consent basis declared: the licence gate will refuse it (--consent)")
    return out
