"""Where an arm's weights come from, and what they provably are.

Shared by the backends that load a local model folder or file (transformers, whisper.cpp,
sherpa-onnx, Vosk, FunASR, Qwen3-ASR): a local path is used as is; a hub repository is
fetched only when the operator writes `download=true` with a pinned `revision=`. The
revision recorded is the hub commit when the files sit in a Hugging Face cache snapshot
(`.../snapshots/<commit>/`), otherwise `sha256:` over the file listing, so the name the
operator typed never stands in for the bytes that were loaded.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from earmark.engines.base import Hypothesis
from earmark.engines.extras import require
from earmark.engines.file_hashes import content_revision, hash_folder, sha256_file
from earmark.engines.settings import SettingsReader, read_licence
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError

_COMMIT = re.compile(r"^[0-9a-f]{40}$")


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


def read_source_settings(reader: SettingsReader) -> tuple[bool, str | None, str | None, str | None]:
    """`download`, `revision`, `licence`, `licence_source`, validated together."""
    licence, licence_source = read_licence(reader)
    download = reader.boolean("download", False)
    revision = reader.text("revision")
    if download and not revision:
        raise reader.error(
            "download", "needs a pinned revision", hint="add revision=<commit hash of the repo>"
        )
    return download, revision, licence, licence_source


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
            f"{reference}@{revision}",
            download,
            revision,
            licence,
            licence_source,
        )
    raise EarmarkError(
        f"arm '{arm.name}': model not found at {reference}",
        field="model",
        hint=f"give a local {what}"
        + (
            ", or to fetch a hub model pass download=true&revision=<commit>"
            if want == "dir"
            else ""
        ),
    )


def materialise(source: ModelSource, *, feature: str, extra: str) -> Path:
    """The local path to load: the resolved path, or the pinned hub snapshot (downloaded)."""
    if source.path is not None:
        return source.path
    hub = require("huggingface_hub", feature, extra)
    return Path(hub.snapshot_download(source.reference, revision=source.revision))


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
    if not language:
        return None
    return language.replace("_", "-").split("-")[0].lower()


def package_version(distribution: str) -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
