"""Where an arm's weights come from, and what they provably are.

Shared by the backends that load a local model folder or file (transformers, whisper.cpp,
sherpa-onnx, Vosk, FunASR, Qwen3-ASR): a local path is used as is; a hub repository is
fetched only when the operator writes `download=true`. Without it nothing reaches the
network, and the error says how to authorise a download.

A hub name is always loaded at one immutable commit. `revision=` may be a commit (used
as is), or a branch or tag (`main` when absent) that is resolved through
huggingface_hub to the commit it points to *now* (`resolve_hub_revision`), and that
exact commit is downloaded. `resolved_revision=<commit>` records the answer in the arm
(`pin_hub_revision`): an arm carrying it never re-resolves its moving ref, which is what
a frozen plan and a resumed run need (`earmark.execution.plan` refuses to freeze an arm with a
moving ref and no recorded commit). Provenance keeps both: `artifact_id` names the ref
the operator asked for (`org/model@main`, or the commit), `revision` the commit loaded.

The revision recorded is the hub commit when the files sit in a Hugging Face cache
snapshot (`.../snapshots/<commit>/`), otherwise `sha256:` over the file listing, so the
name the operator typed never stands in for the bytes that were loaded.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from earmark.artefacts import sha256_file
from earmark.engines.base import Hypothesis
from earmark.engines.extras import require
from earmark.engines.file_hashes import content_revision, hash_folder
from earmark.engines.settings import SettingsReader, read_licence
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.language_tags import base_language

_COMMIT = re.compile(r"^[0-9a-f]{40}$")
#: The ref a hub download follows when the arm names none (the hub's default branch).
DEFAULT_REF = "main"
#: What an unauthorised hub reference is told.
DOWNLOAD_HINT = (
    "pass download=true to fetch it from the hub (revision=<commit, branch or tag>, "
    "default main, is resolved to a commit and recorded)"
)


def is_commit(revision: str | None) -> bool:
    """Whether `revision` is a full 40-hex commit hash (immutable), not a branch or tag."""
    return revision is not None and _COMMIT.match(revision) is not None


@dataclass(frozen=True)
class ModelSource:
    """The arm's model reference resolved without loading anything."""

    kind: str  # "path" | "hub"
    reference: str
    #: The local file or folder; None for a hub repository not fetched yet.
    path: Path | None
    artifact_id: str
    download: bool
    revision: str | None
    licence: str | None
    licence_source: str | None
    #: The ref the operator asked for (`main` when none was given); `revision` is the
    #: commit it is loaded at, None for a moving ref not resolved yet (`materialise`).
    requested_revision: str | None = None


def read_source_settings(reader: SettingsReader) -> tuple[bool, str | None, str | None, str | None]:
    """`download`, the commit to load (None: a moving ref still to resolve), `licence`,
    `licence_source`, validated together (`read_hub_revision`)."""
    licence, licence_source = read_licence(reader)
    download = reader.boolean("download", False)
    _, commit = read_hub_revision(reader)
    return download, commit, licence, licence_source


def read_hub_revision(reader: SettingsReader) -> tuple[str, str | None]:
    """`(requested ref, commit or None)` from `revision=` and `resolved_revision=`.

    A commit in `revision` is its own answer; a branch or tag takes the commit recorded
    in `resolved_revision` when there is one (so a frozen or resumed arm never follows a
    branch that moved), else None: resolved when the files are fetched.
    """
    requested = reader.text("revision") or DEFAULT_REF
    recorded = reader.text("resolved_revision")
    if recorded is not None and not is_commit(recorded):
        raise reader.error(
            "resolved_revision",
            f"{recorded!r} is not a commit hash",
            hint="resolved_revision records the 40-hex commit a branch or tag resolved to",
        )
    if is_commit(requested):
        if recorded is not None and recorded != requested:
            raise reader.error(
                "resolved_revision",
                f"{recorded} disagrees with revision={requested}",
                hint="a commit revision needs no resolved_revision; drop it",
            )
        return requested, requested
    return requested, recorded


def resolve_source(
    arm: ArmSpec,
    reader: SettingsReader,
    *,
    model: str | None = None,
    want: str = "dir",
    what: str = "model folder",
) -> ModelSource:
    """Map `arm.model` (or `model`) to a local `want` ("dir" or "file") or a pinned hub id.

    Raises `EarmarkError` naming the path when it does not exist and no download was
    authorised: offline, a typo must not turn into a hub request.
    """
    download, revision, licence, licence_source = read_source_settings(reader)
    requested, _ = read_hub_revision(reader)
    reference = model if model is not None else arm.model
    path = Path(reference).expanduser()
    exists = path.is_dir() if want == "dir" else path.is_file()
    if exists:
        resolved = path.resolve()
        snapshot = hub_snapshot(resolved)
        artifact = f"{snapshot[0]}@{snapshot[1]}" if snapshot else f"local:{resolved.as_posix()}"
        return ModelSource(
            "path", reference, resolved, artifact, download, revision, licence, licence_source
        )
    if path.exists():
        raise EarmarkError(
            f"arm '{arm.name}': {reference} is not a {what}",
            field="model",
            hint=f"give the path of a {what}",
        )
    if download and want == "dir" and not reference.startswith(("/", ".", "~")):
        return ModelSource(
            "hub",
            reference,
            None,
            f"{reference}@{revision or requested}",
            download,
            revision,
            licence,
            licence_source,
            requested,
        )
    raise EarmarkError(
        f"arm '{arm.name}': model not found at {reference}",
        field="model",
        hint=f"give a local {what}"
        + (f", or to fetch a hub model {DOWNLOAD_HINT}" if want == "dir" else ""),
    )


def materialise(source: ModelSource, *, feature: str, extra: str) -> Path:
    """The local path to load: the resolved path, or the hub snapshot of the source's
    commit (a moving ref resolved first), downloaded; the folder is checked to be that
    commit's snapshot, so what is hashed and recorded is what was asked for."""
    if source.path is not None:
        return source.path
    if not source.download:  # resolve_source never builds this; a caller might
        raise EarmarkError(
            f"{source.reference} is a hub model and no download was authorised",
            field="download",
            hint=DOWNLOAD_HINT,
        )
    hub = require("huggingface_hub", feature, extra)
    commit = source.revision or resolve_hub_revision(
        source.reference, source.requested_revision or DEFAULT_REF
    )
    try:
        folder = Path(hub.snapshot_download(source.reference, revision=commit))
    except Exception as exc:  # network, missing repo or revision: one line, with the cause
        raise EarmarkError(
            f"cannot download {source.reference} at {commit}: {type(exc).__name__}: {exc}",
            field="model",
            hint="check the repository name, the network and allow_network; or give a local folder",
        ) from exc
    snapshot = hub_snapshot(folder)
    if snapshot is None or snapshot[1] != commit:
        raise EarmarkError(
            f"the download of {source.reference} is not the snapshot of commit {commit}: {folder}",
            field="revision",
        )
    return folder


def resolve_hub_revision(repo: str, ref: str) -> str:
    """The commit a hub branch or tag points to now (`HfApi().model_info(...).sha`).

    Asked once per load, and only with `download=true`: the answer is downloaded as is
    and recorded, so a later push to the branch cannot change what this run loaded.
    """
    if is_commit(ref):
        return ref
    hub = require("huggingface_hub", f"resolving {repo}@{ref}", "transformers")
    try:
        sha: Any = hub.HfApi().model_info(repo, revision=ref).sha
    except Exception as exc:  # the hub's own errors (missing repo or ref, network)
        raise EarmarkError(
            f"cannot resolve revision {ref!r} of {repo} on the hub: {type(exc).__name__}: {exc}",
            field="revision",
            hint="check the repository and the ref, or pin revision=<commit>",
        ) from exc
    if not isinstance(sha, str) or not is_commit(sha):
        raise EarmarkError(
            f"the hub answered {sha!r} for {repo}@{ref}, not a commit hash", field="revision"
        )
    return sha


def moving_hub_ref(arm: ArmSpec) -> str | None:
    """The branch or tag an arm would resolve when it runs (`download=true` with no
    commit recorded), else None: what a frozen plan may not hold."""
    settings = dict(arm.settings)
    download = settings.get("download", "").strip().lower() in ("true", "1", "yes", "on")
    if not download:
        return None
    requested = settings.get("revision") or DEFAULT_REF
    if is_commit(requested) or is_commit(settings.get("resolved_revision")):
        return None
    return requested


def refuse_moving_refs(arms: Sequence[ArmSpec], *, look_up: bool, file: str | None = None) -> None:
    """Refuse arms that would follow a moving hub ref (`moving_hub_ref`): a frozen plan
    must name the commit its results came from. With `look_up` (freezing, whose arms
    authorised the hub with download=true) the hint gives the commit the ref points to
    now, ready to paste."""
    for arm in arms:
        ref = moving_hub_ref(arm)
        if ref is None:
            continue
        commit = None
        if look_up:
            try:
                commit = resolve_hub_revision(arm.model, ref)
            except EarmarkError:
                commit = None  # the refusal below still says what to add
        raise EarmarkError(
            f"arm '{arm.name}': revision={ref} of {arm.model} is a moving ref and the plan "
            "records no commit" + (f" (it points to {commit} now)" if commit else ""),
            file=file,
            field="arms",
            hint=f'add resolved_revision = "{commit}" to the arm\'s settings and freeze again'
            if commit
            else 'add resolved_revision = "<commit>" (the commit the ref points to) to the '
            "arm's settings, or pin revision=<commit>",
        )


def pin_hub_revision(arm: ArmSpec) -> ArmSpec:
    """The arm with the commit its moving ref resolves to now recorded as
    `resolved_revision` (the arm as is when it has nothing to resolve)."""
    ref = moving_hub_ref(arm)
    if ref is None:
        return arm
    commit = resolve_hub_revision(arm.model, ref)
    return replace(arm, settings=(*arm.settings, ("resolved_revision", commit)))


def hub_snapshot(path: Path) -> tuple[str, str] | None:
    """`(repo id, commit)` when `path` lies in a Hugging Face cache snapshot, else None.

    The cache layout is `models--<org>--<name>/snapshots/<40-hex commit>/...`; the commit
    folder name is the immutable revision of every file under it.
    """
    parts = path.parts
    for index in range(len(parts) - 1, 0, -1):
        if parts[index - 1] == "snapshots" and _COMMIT.match(parts[index]):
            repo_folder = parts[index - 2] if index >= 2 else ""
            repo = (
                repo_folder[len("models--") :].replace("--", "/")
                if repo_folder.startswith("models--")
                else repo_folder
            )
            return repo, parts[index]
    return None


@dataclass(frozen=True)
class LoadedFiles:
    """SHA-256 of the files behind a model, their size and the revision they make."""

    file_sha256: dict[str, str]
    size_bytes: int
    revision: str
    content_revision: str
    hash_seconds: float


def fingerprint(path: Path, files: Sequence[Path] | None = None) -> LoadedFiles:
    """Hash a model folder (every file) or one file; `files` limits a folder to those loaded.

    The revision is the hub commit for a cache snapshot, else the content revision.
    """
    started = time.perf_counter()
    if path.is_file():
        hashes = {path.name: sha256_file(path)}
        size = path.stat().st_size
    elif files is not None:
        hashes = {f.relative_to(path).as_posix(): sha256_file(f) for f in sorted(files)}
        size = sum(f.stat().st_size for f in files)
    else:
        hashes, size = hash_folder(path)
    content = content_revision(hashes)
    snapshot = hub_snapshot(path)
    return LoadedFiles(
        file_sha256=hashes,
        size_bytes=size,
        revision=snapshot[1] if snapshot else content,
        content_revision=content,
        hash_seconds=time.perf_counter() - started,
    )


def read_weight_type(
    reader: SettingsReader, choices: Sequence[str], default: str | None
) -> str | None:
    """The weight type from `compute_type` (what weight-type sweeps set) or its alias `dtype`.

    Both may be given only when they agree, so a sweep over an arm that already names a
    `dtype` fails loudly instead of silently running the wrong type.
    """
    compute_type = reader.text("compute_type")
    dtype = reader.text("dtype")
    if compute_type and dtype and compute_type != dtype:
        raise reader.error(
            "dtype",
            f"{dtype!r} disagrees with compute_type={compute_type!r}",
            hint="give one of them (compute_type is what --weight-types sets)",
        )
    value = compute_type or dtype
    if value is None:
        return default
    if value not in choices:
        key = "compute_type" if compute_type else "dtype"
        raise reader.error(key, f"{value!r} is not one of {', '.join(choices)}")
    return value


def failed_hypothesis(
    clip_id: str, language: str | None, started: float, exc: BaseException
) -> Hypothesis:
    """One clip's failure as a reason code; the run goes on and the clip counts as deletions."""
    return Hypothesis(
        id=clip_id,
        text="",
        decode_seconds=time.perf_counter() - started,
        language_requested=language,
        error=f"engine_exception:{type(exc).__name__}",
        extra={"message": str(exc)[:500]},
    )


def primary_language(language: str | None) -> str | None:
    """`zh-CN` → `zh`: most runtimes know primary language subtags only."""
    return base_language(language) or None


def package_version(distribution: str) -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
