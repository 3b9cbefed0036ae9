"""The last step every importer shares: write the manifest and a sidecar that accounts for
every skipped row and says which audio root the paths are relative to.

Every row is checked with the manifest reader's own rules (`row_problem`) before it is
written, so an import never produces a manifest `earmark manifest validate` refuses: a
row it would refuse is skipped with a reason code instead. An import that keeps no row
writes nothing and is an error (exit 2): an empty manifest cannot be scored, and exit 0
must mean "here is a usable manifest".
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from earmark.corpus.manifest import language_problem, row_problem
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.sources.report import ImportReport, SkippedRow, reason_for_field
from earmark.corpus.writer import write_manifest
from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue


class Candidate(NamedTuple):
    """A row an importer wants to write, and the input line it came from."""

    utterance: Utterance
    file: str
    line: int | None


def check_language_option(language: str | None) -> None:
    """Refuse a bad `--language` up front: every row would be rejected for it."""
    if language is None:
        return
    problem = language_problem(language)
    if problem is not None:
        raise EarmarkError(problem, field="language", hint="pass a code such as zh, ga or en-US")


def validated(candidates: Sequence[Candidate]) -> tuple[list[Utterance], list[SkippedRow]]:
    """Split candidates into rows the manifest reader accepts and rejects with reasons."""
    rows: list[Utterance] = []
    rejected: list[SkippedRow] = []
    for utt, file, line in candidates:
        problem = row_problem(utt)
        if problem is None:
            rows.append(utt)
            continue
        where = f"{problem.field}: " if problem.field else ""
        rejected.append(
            SkippedRow(
                reason_for_field(problem.field),
                file,
                line,
                utt.id[:200],
                detail=f"{where}{problem.message}"[:500],
            )
        )
    return rows, rejected


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
    rows: Sequence[Candidate],
    audio_root: Path,
    skipped: Sequence[SkippedRow],
    meta: CorpusMeta,
    source_path: Path,
    warnings: Sequence[str] = (),
) -> ImportReport:
    """Validate rows, write the valid ones + sidecar (skips listed with reasons), and
    return the report; refuse (writing nothing) when no row is valid."""
    target = Path(out_manifest)
    if target.exists() and not target.is_file():
        raise EarmarkError(
            "--out names a directory or another non-file",
            file=str(target),
            hint="give the path of the manifest file to write, e.g. corpus/test.jsonl",
        )
    valid, rejected = validated(rows)
    skipped = [*skipped, *rejected]
    if not valid:
        raise _nothing_to_write(importer, source_path, skipped)
    counts: dict[str, int] = {}
    for row in skipped:
        counts[row.reason] = counts.get(row.reason, 0) + 1
    extra: dict[str, JSONValue] = dict(meta.extra)
    extra.update(
        {
            "importer": importer,
            "imported_from": str(source_path),
            "audio_root": audio_root_for_sidecar(target, audio_root),
            "rows_written": len(valid),
            "skipped_counts": dict(sorted(counts.items())),
            "skipped": [row.to_dict() for row in skipped],
        }
    )
    full_meta = dataclasses.replace(meta, extra=extra)
    written = write_manifest(target, valid, full_meta)
    return ImportReport(
        source=importer,
        manifest=target,
        audio_root=audio_root,
        rows_written=written,
        skipped=tuple(skipped),
        warnings=tuple(warnings),
    )


def _nothing_to_write(importer: str, source: Path, skipped: Sequence[SkippedRow]) -> EarmarkError:
    if not skipped:
        return EarmarkError(
            f"{importer}: the input lists no utterance; no manifest written", file=str(source)
        )
    counts: dict[str, int] = {}
    first: dict[str, list[str]] = {}
    for row in skipped:
        counts[row.reason] = counts.get(row.reason, 0) + 1
        ids = first.setdefault(row.reason, [])
        if row.id is not None and len(ids) < 3:
            ids.append(row.id[:60])
    parts = [
        f"{reason}={count} ({', '.join(map(repr, first[reason]))})"
        if first[reason]
        else f"{reason}={count}"
        for reason, count in sorted(counts.items())
    ]
    first_row = skipped[0]
    detail = f": {first_row.detail}" if first_row.detail else ""
    return EarmarkError(
        f"{importer}: all {len(skipped)} rows skipped, no manifest written: {'; '.join(parts)}",
        file=first_row.file,
        line=first_row.line,
        hint=f"first: {first_row.reason}{detail}",
    )


def licence_warnings(licence: str | None, consent_basis: str | None) -> list[str]:
    """Importers write the manifest anyway; the licence gate refuses it later. Say so now."""
    out = []
    if not licence:
        out.append("no licence declared: the licence gate will refuse this manifest (--licence)")
    if not consent_basis:
        out.append("no consent basis declared: the licence gate will refuse it (--consent)")
    return out
