"""The `earmark manifest` verbs as calls: validate, hash, select, init-sidecar, leakage,
contamination. Each returns what the command prints from, typed; files are written only
where the command writes them (a selected manifest, a sidecar, a contamination report)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from earmark.api.values import PathArg, check_choice, check_count, check_out, check_share
from earmark.errors import EarmarkError

if TYPE_CHECKING:
    from earmark.corpus.model import CorpusMeta
    from earmark.corpus.selection import SelectionRecord, SpeakerLeakage
    from earmark.corpus.validation import ValidationReport
    from earmark.render.contamination import ContaminationReport


def manifest_validate(
    manifest: PathArg, *, audio_root: PathArg | None = None, check_audio: bool = False
) -> ValidationReport:
    """`earmark manifest validate`: every row, the sidecar and (with `check_audio`) every
    clip decoded. Without `audio_root`, audio is looked for where `earmark run` looks."""
    from earmark.corpus.validation import validate_manifest

    root = None if audio_root is None else os.fspath(audio_root)
    if check_audio and root is None:
        root = run_audio_root(manifest)
    return validate_manifest(manifest, root, check_audio)


def run_audio_root(manifest: PathArg) -> str:
    """The audio root `earmark run` would use, so validate checks the files run will read.
    A sidecar that cannot be read leaves the manifest's folder; validate reports the
    sidecar itself."""
    from earmark.execution.plan import default_audio_root

    try:
        return str(default_audio_root(Path(os.fspath(manifest)).resolve()))
    except EarmarkError:
        return str(Path(os.fspath(manifest)).resolve().parent)


def manifest_hash(manifest: PathArg) -> str:
    """`earmark manifest hash`: the canonical SHA-256 of a manifest."""
    from earmark.corpus.manifest import manifest_sha256

    return manifest_sha256(manifest)


@dataclass(frozen=True)
class Selected:
    """What `manifest select` kept, and the written manifest's canonical SHA-256."""

    record: SelectionRecord
    sha256: str


def manifest_select(
    manifest: PathArg,
    *,
    out: PathArg,
    language: Sequence[str] | None = None,
    slice: Sequence[str] | None = None,
    fraction: float | None = None,
    seed: str | None = None,
    first: int | None = None,
    distinct_text: bool = False,
) -> Selected:
    """`earmark manifest select`: a subset manifest and a sidecar that records the rule
    (language/slice filter, then the seeded hash subset, then the first N)."""
    import dataclasses

    from earmark.corpus.manifest import manifest_sha256, read_manifest, read_meta
    from earmark.corpus.selection import select
    from earmark.corpus.writer import write_manifest

    check_out(out)
    check_count("first", first, 0)
    check_share("fraction", fraction)
    if distinct_text and first is None:
        raise EarmarkError("--distinct-text needs --first N")
    if (fraction is None) != (seed is None):
        raise EarmarkError(
            "--fraction and --seed go together", hint="e.g. --fraction 0.1 --seed 2026"
        )
    if os.path.abspath(out) == os.path.abspath(manifest):
        raise EarmarkError("--out must differ from the input manifest", file=os.fspath(out))
    meta = read_meta(manifest)
    source_sha = manifest_sha256(manifest)
    kept, record = select(
        read_manifest(manifest),
        languages=language,
        slices=slice,
        fraction=fraction,
        seed=seed,
        distinct_texts=distinct_text,
        n=first,
    )
    extra = dict(meta.extra)
    extra["selection"] = {"source_manifest_sha256": source_sha, **record.to_dict()}
    prior = f"{meta.selection_rule}; then " if meta.selection_rule else ""
    new_meta = dataclasses.replace(meta, selection_rule=prior + record.rule, extra=extra)
    write_manifest(out, kept, new_meta)
    return Selected(record, manifest_sha256(out))


@dataclass(frozen=True)
class SidecarFields:
    """What `manifest init-sidecar` declares; None leaves a field as it was."""

    licence: str
    consent: str
    dataset: str | None = None
    url: str | None = None
    redistribute_audio: bool | None = None
    redistribute_transcripts: bool | None = None
    require_row_provenance: bool | None = None


def manifest_init_sidecar(
    manifest: PathArg, fields: SidecarFields, *, force: bool = False
) -> tuple[Path, CorpusMeta]:
    """`earmark manifest init-sidecar`: write MANIFEST.meta.json, refusing what the
    licence gate would refuse; with `force`, fields not given keep their values. Returns
    the sidecar's path and what it declares."""
    from earmark.corpus.manifest import licence_gate, read_meta, row_provenance_gate
    from earmark.corpus.model import CorpusMeta
    from earmark.corpus.writer import meta_path_for, write_meta

    path = Path(os.fspath(manifest))
    if not path.is_file():
        raise EarmarkError(
            "manifest not found", file=str(path), hint="the sidecar is written beside it"
        )
    target = meta_path_for(path)
    base = CorpusMeta(dataset=path.stem, licence=None, consent_basis=None)
    if target.exists() or target.is_symlink():
        if not force:
            raise EarmarkError(
                "the sidecar already exists",
                file=str(target),
                hint="pass --force to replace its licence fields (its other fields are kept)",
            )
        try:
            base = read_meta(path)
        except EarmarkError:  # unreadable: replaced as a whole
            pass
    meta = _declared(fields, base)
    try:  # refuse 'unknown', 'none' and blanks before writing: the gate would refuse them
        licence_gate(meta, manifest=path)
    except EarmarkError as exc:
        flag = "--licence" if exc.field == "licence" else "--consent"
        given = fields.licence if exc.field == "licence" else fields.consent
        raise EarmarkError(
            f"{flag} {given!r} declares nothing; the licence gate would refuse this corpus",
            field=exc.field,
            hint="copy what the publisher states, e.g. --licence CC-BY-4.0",
        ) from None
    # A sidecar that requires per-row provenance its own rows lack would refuse every run.
    row_provenance_gate(meta, manifest=path)
    write_meta(target, meta)
    return target, meta


def _declared(fields: SidecarFields, base: CorpusMeta) -> CorpusMeta:
    """`base` with what `fields` sets."""
    from dataclasses import replace

    meta = replace(base, licence=fields.licence.strip(), consent_basis=fields.consent)
    if fields.dataset is not None:
        meta = replace(meta, dataset=fields.dataset)
    if fields.url is not None:
        meta = replace(meta, url=fields.url)
    if fields.redistribute_audio is not None:
        meta = replace(meta, redistribute_audio=fields.redistribute_audio)
    if fields.redistribute_transcripts is not None:
        meta = replace(meta, redistribute_transcripts=fields.redistribute_transcripts)
    if fields.require_row_provenance is not None:
        meta = replace(meta, row_provenance="required" if fields.require_row_provenance else None)
    if not str(meta.dataset).strip():
        raise EarmarkError("--dataset must not be empty", field="dataset")
    return meta


def manifest_leakage(a: PathArg, b: PathArg) -> SpeakerLeakage:
    """`earmark manifest leakage A B`: the speakers present in both manifests."""
    from earmark.corpus.manifest import read_manifest
    from earmark.corpus.selection import speaker_leakage

    return speaker_leakage(read_manifest(a), read_manifest(b))


def manifest_contamination(
    manifest: PathArg,
    *,
    against: PathArg,
    out: PathArg | None = None,
    format: str = "auto",
    text_field: str = "text",
    n: int = 8,
    threshold: float = 0.5,
    normalizer: str = "auto",
    canaries: PathArg | None = None,
    predictions: Sequence[PathArg] = (),
    system: str | None = None,
) -> ContaminationReport:
    """`earmark manifest contamination`: n-gram overlap of the references with a declared
    text, and canary strings in the references (and in `predictions`). Returns the report
    (`earmark.contamination/1`); with `out`, contamination.json and .md are written."""
    from earmark.render.contamination import (
        check_contamination,
        read_canaries,
        write_contamination,
    )

    check_out(out)
    check_count("n", n, 1)
    check_share("threshold", threshold)
    check_choice("format", format, ("auto", "text", "lines", "jsonl"))
    if predictions and not canaries:
        raise EarmarkError("--predictions needs --canaries", field="predictions")
    report = check_contamination(
        manifest,
        against,
        n=n,
        threshold=threshold,
        normalizer=normalizer,
        fmt=format,
        text_field=text_field,
        canaries=read_canaries(Path(os.fspath(canaries))) if canaries else (),
        predictions=predictions,
        system=system,
    )
    if out is not None:
        write_contamination(out, report)
    return report
