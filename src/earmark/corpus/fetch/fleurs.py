"""Fetching the first N clips per language of FLEURS, resumably and in bounded disk.

Per language: download the split's file(s) to a temporary folder, keep the first N clips
(or the first recording of each of the first N distinct sentence ids) in file order,
store them as 16 kHz mono FLAC, delete the download at once, and write
`done_<config>.json` with the rows. A rerun skips every config with a done file, so an
interrupted fetch resumes at the config it stopped on and never downloads a finished
one again; at most one shard is on disk at any time. The manifest is written last, from
the done files, in the order the configs were asked for.

Two hub layouts are supported (URL patterns are overridable):

- `parquet` (default): the hub's parquet conversion, `<config>/<split>/0000.parquet`,
  `0001.parquet`, ... (a 404 ends the shard list); the split is `validation`, not `dev`.
- `tsv-tar`: the publisher's files on the main branch, `data/<config>/<split>.tsv` and
  `data/<config>/audio/<split>.tar.gz`; clips are taken in TSV order.
"""

from __future__ import annotations

import json
import os
import shutil
import tarfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, TypedDict

from earmark.corpus.fetch.download import (
    Downloaded,
    Opener,
    RemoteFileMissing,
    download_to,
)
from earmark.corpus.fetch.transcode import store_flac_16k_mono
from earmark.corpus.model import Source, Utterance
from earmark.corpus.sources.fleurs import (
    FLEURS_CONSENT,
    FLEURS_DATASET,
    FLEURS_LICENCE,
    FLEURS_TSV_COLUMNS,
    PARQUET_SPLIT_NAMES,
    TSV_SPLIT_NAMES,
    fleurs_meta,
    fleurs_utterance_id,
)
from earmark.corpus.sources.fleurs_parquet import iter_fleurs_parquet
from earmark.corpus.sources.languages import language_for_fleurs_config
from earmark.corpus.sources.tsv import read_headerless_tsv
from earmark.corpus.writer import write_manifest
from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue

#: A commit of the hub's `refs/convert/parquet` branch of google/fleurs, seen serving
#: `<config>/test/0000.parquet`. Parquet-conversion commits can be rewritten by the hub;
#: if it stops resolving, pass the branch's current commit with --revision.
FLEURS_PARQUET_REVISION = "168de341b3db6859a9bac1c50a2ef5e3b47647e0"
#: The main-branch commit of google/fleurs used by seed 001 (TSV + tar.gz layout).
FLEURS_MAIN_REVISION = "70bb2e84b976b7e960aa89f1c648e09c59f894dd"
DEFAULT_BASE_URL = "https://huggingface.co/datasets/google/fleurs/resolve/{revision}"
DEFAULT_REVISIONS = {"parquet": FLEURS_PARQUET_REVISION, "tsv-tar": FLEURS_MAIN_REVISION}
URL_PATTERNS: dict[str, dict[str, str]] = {
    "parquet": {"shard": "{base_url}/{config}/{split}/{shard:04d}.parquet"},
    "tsv-tar": {
        "tsv": "{base_url}/data/{config}/{split}.tsv",
        "archive": "{base_url}/data/{config}/audio/{split}.tar.gz",
    },
}
PROGRESS_FORMAT = "earmark.fleurs-progress/1"
DEFAULT_MAX_SHARD_BYTES = 2 * 1024**3
_SETTINGS = ("layout", "split", "revision", "per_language", "distinct_text_ids")


class Download(TypedDict):
    """One file downloaded (and deleted once its clips were stored): where, how big, hash."""

    url: str
    bytes: int
    sha256: str


@dataclass
class _Progress:
    """One config's finished fetch: what was downloaded and the rows stored."""

    downloads: list[Download]
    rows: list[Utterance]


@dataclass(frozen=True)
class FetchReport:
    """What a fetch did; `resumed` configs were already done and not downloaded again."""

    out_dir: Path
    manifest: Path
    fetched: tuple[str, ...]
    resumed: tuple[str, ...]
    rows_per_config: dict[str, int]
    bytes_downloaded: int
    downloads_deleted: int
    short_configs: tuple[str, ...] = field(default=())

    @property
    def rows(self) -> int:
        return sum(self.rows_per_config.values())


@dataclass(frozen=True)
class _Clip:
    text_id: str
    file_name: str
    audio: bytes | None
    raw: str
    normalized: str | None
    gender: str | None
    num_samples: int | None
    order: int


class _Selection:
    """First N clips in file order, or the first recording of each of the first N ids."""

    def __init__(self, limit: int, distinct: bool) -> None:
        self.limit, self.distinct = limit, distinct
        self.taken: list[_Clip] = []
        self.ids: set[str] = set()
        self.repeats_passed = 0

    @property
    def full(self) -> bool:
        return len(self.taken) >= self.limit

    def offer(self, clip: _Clip) -> bool:
        if self.full:
            return False
        if self.distinct and clip.text_id in self.ids:
            self.repeats_passed += 1
            return False
        self.ids.add(clip.text_id)
        self.taken.append(clip)
        return True


def selection_rule(per_language: int, split: str, distinct: bool, layout: str) -> str:
    order = "TSV order" if layout == "tsv-tar" else "parquet shard order"
    if distinct:
        return (
            f"first {per_language} distinct text ids per config in {split} {order}, "
            "first recording of each"
        )
    return f"first {per_language} clips per config in {split} {order}"


def fetch_fleurs(
    languages: Sequence[str],
    per_language: int,
    out_dir: str | os.PathLike[str],
    *,
    base_url: str = DEFAULT_BASE_URL,
    revision: str | None = None,
    split: str = "test",
    keep_distinct_text_ids: bool = False,
    opener: Opener | None = None,
    layout: str = "parquet",
    url_patterns: dict[str, str] | None = None,
    max_shard_bytes: int = DEFAULT_MAX_SHARD_BYTES,
    max_shards: int = 100,
    manifest_name: str = "manifest.jsonl",
    on_progress: Callable[[str], None] | None = None,
) -> FetchReport:
    """Fetch `per_language` clips of each FLEURS config into `out_dir` (resumable).

    `languages` are FLEURS configs (`cmn_hans_cn`, `ga_ie`). `base_url` may contain
    `{revision}`; `opener(url)` replaces urllib's `urlopen` (tests, proxies, mirrors).
    """
    if layout not in URL_PATTERNS:
        raise EarmarkError(
            f"unknown layout {layout!r}", field="layout", hint=f"one of: {', '.join(URL_PATTERNS)}"
        )
    if per_language < 1:
        raise EarmarkError("per-language count must be at least 1", field="per_language")
    configs = list(dict.fromkeys(c.strip() for c in languages if c.strip()))
    if not configs:
        raise EarmarkError(
            "no FLEURS config given", field="languages", hint="e.g. --languages cmn_hans_cn,ga_ie"
        )
    revision = revision or DEFAULT_REVISIONS[layout]
    patterns = {**URL_PATTERNS[layout], **(url_patterns or {})}
    root = Path(out_dir)
    root.mkdir(parents=True, exist_ok=True)
    partial = root / ".partial"
    shutil.rmtree(partial, ignore_errors=True)  # leftovers of a killed run: never reused
    settings: dict[str, JSONValue] = {
        "layout": layout,
        "split": split,
        "revision": revision,
        "per_language": per_language,
        "distinct_text_ids": keep_distinct_text_ids,
    }
    say = on_progress or (lambda _message: None)

    fetched: list[str] = []
    resumed: list[str] = []
    stats = {"bytes": 0, "deleted": 0}
    progress: dict[str, _Progress] = {}
    for config in configs:
        done = root / f"done_{config}.json"
        if done.is_file():
            progress[config] = _read_progress(done, settings)
            resumed.append(config)
            say(f"{config}: already done ({len(progress[config].rows)} clips), skipped")
            continue
        fetcher = _fetch_parquet if layout == "parquet" else _fetch_tsv_tar
        selection = _Selection(per_language, keep_distinct_text_ids)
        url_base = base_url.format(revision=revision)
        downloads, exhausted = fetcher(
            config,
            split,
            selection,
            url_base,
            patterns,
            partial,
            opener,
            max_shard_bytes,
            max_shards,
            stats,
        )
        rows = [_store(root, config, split, revision, clip) for clip in selection.taken]
        record = {
            "format": PROGRESS_FORMAT,
            "config": config,
            **settings,
            "base_url": url_base,
            "downloads": downloads,
            "exhausted": exhausted,
            "repeats_passed_over": selection.repeats_passed,
            "rows": [row.to_dict() for row in rows],
        }
        _write_json(done, record)
        progress[config] = _Progress(downloads, rows)
        fetched.append(config)
        say(f"{config}: {len(rows)} clips stored, download deleted")
    shutil.rmtree(partial, ignore_errors=True)

    manifest = root / manifest_name
    rows_all = [row for c in configs for row in progress[c].rows]
    short = tuple(c for c in configs if len(progress[c].rows) < per_language)
    extra = {
        "audio_root": ".",
        "fetcher": "earmark.corpus.fetch.fleurs",
        "layout": layout,
        "configs": configs,
        "split": split,
        "per_language": per_language,
        "url_patterns": patterns,
        "downloads": {c: [dict(d) for d in progress[c].downloads] for c in configs},
        "short_configs": list(short),
    }
    write_manifest(
        manifest,
        rows_all,
        fleurs_meta(
            revision=revision,
            licence=FLEURS_LICENCE,
            consent_basis=FLEURS_CONSENT,
            selection_rule=selection_rule(per_language, split, keep_distinct_text_ids, layout),
            extra=extra,
        ),
    )
    return FetchReport(
        out_dir=root,
        manifest=manifest,
        fetched=tuple(fetched),
        resumed=tuple(resumed),
        rows_per_config={c: len(progress[c].rows) for c in configs},
        bytes_downloaded=stats["bytes"],
        downloads_deleted=stats["deleted"],
        short_configs=short,
    )


def _fetch_parquet(
    config: str,
    split: str,
    selection: _Selection,
    base: str,
    patterns: dict[str, str],
    partial: Path,
    opener: Opener | None,
    max_bytes: int,
    max_shards: int,
    stats: dict[str, int],
) -> tuple[list[Download], bool]:
    shard_split = PARQUET_SPLIT_NAMES.get(split, split)
    downloads: list[Download] = []
    order = 0
    for shard in range(max_shards):
        url = patterns["shard"].format(base_url=base, config=config, split=shard_split, shard=shard)
        try:
            got = download_to(
                url, partial / f"{config}-{shard:04d}.parquet", max_bytes=max_bytes, opener=opener
            )
        except RemoteFileMissing:
            if shard == 0:
                raise EarmarkError(
                    f"no parquet shard for FLEURS config {config!r}: {url}",
                    field="languages",
                    hint="check the config name, --split and --revision",
                ) from None
            return downloads, True
        try:
            stats["bytes"] += got.size
            for row in iter_fleurs_parquet(got.path):
                selection.offer(
                    _Clip(
                        row.text_id,
                        row.file_name,
                        row.audio_bytes,
                        row.raw_transcription,
                        row.transcription,
                        row.gender,
                        row.num_samples,
                        order,
                    )
                )
                order += 1
                if selection.full:
                    break
        finally:
            _delete(got, stats)
        downloads.append(_provenance(got))
        if selection.full:
            return downloads, False
    return downloads, False


def _fetch_tsv_tar(
    config: str,
    split: str,
    selection: _Selection,
    base: str,
    patterns: dict[str, str],
    partial: Path,
    opener: Opener | None,
    max_bytes: int,
    max_shards: int,
    stats: dict[str, int],
) -> tuple[list[Download], bool]:
    tsv_split = TSV_SPLIT_NAMES.get(split, split)
    fmt = {"base_url": base, "config": config, "split": tsv_split}
    downloads: list[Download] = []
    try:
        tsv = download_to(
            patterns["tsv"].format(**fmt),
            partial / f"{config}-{tsv_split}.tsv",
            max_bytes=max_bytes,
            opener=opener,
        )
    except RemoteFileMissing as exc:
        raise EarmarkError(
            f"no {tsv_split}.tsv for FLEURS config {config!r}",
            field="languages",
            hint="check the config name and --split",
        ) from exc
    try:
        stats["bytes"] += tsv.size
        for line, rec in read_headerless_tsv(tsv.path, FLEURS_TSV_COLUMNS):
            selection.offer(
                _Clip(
                    rec["id"].strip(),
                    rec["file_name"].strip(),
                    None,
                    rec["raw_transcription"],
                    rec["transcription"],
                    rec["gender"].strip().lower() or None,
                    int(rec["num_samples"]) if rec["num_samples"].isdigit() else None,
                    line - 1,
                )
            )
            if selection.full:
                break
    finally:
        _delete(tsv, stats)
    downloads.append(_provenance(tsv))
    wanted = {clip.file_name for clip in selection.taken}
    found: dict[str, bytes] = {}
    archive = download_to(
        patterns["archive"].format(**fmt),
        partial / f"{config}-{tsv_split}.tar.gz",
        max_bytes=max_bytes,
        opener=opener,
    )
    try:
        stats["bytes"] += archive.size
        with tarfile.open(archive.path, "r:gz") as tar:
            for member in tar:
                name = PurePosixPath(member.name).name
                if member.isfile() and name in wanted and name not in found:
                    handle = tar.extractfile(member)
                    if handle is not None:
                        found[name] = handle.read()
                    if len(found) == len(wanted):
                        break
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise EarmarkError(f"unreadable archive: {exc}", file=archive.url) from exc
    finally:
        _delete(archive, stats)
    downloads.append(_provenance(archive))
    missing = sorted(wanted - set(found))
    if missing:
        raise EarmarkError(
            f"{len(missing)} selected clips are not in the archive (first: {missing[0]})",
            file=archive.url,
        )
    selection.taken = [
        _Clip(
            c.text_id,
            c.file_name,
            found[c.file_name],
            c.raw,
            c.normalized,
            c.gender,
            c.num_samples,
            c.order,
        )
        for c in selection.taken
    ]
    return downloads, not selection.full


def _store(root: Path, config: str, split: str, revision: str, clip: _Clip) -> Utterance:
    utt_id = fleurs_utterance_id(config, clip.text_id, clip.file_name)
    if not clip.audio:
        raise EarmarkError(f"clip {clip.file_name} has no audio bytes", field="audio")
    try:
        stored = store_flac_16k_mono(clip.audio, root / config / f"{utt_id}.flac")
    except RuntimeError as exc:  # soundfile's error for undecodable bytes
        raise EarmarkError(
            f"cannot decode audio of {clip.file_name}: {exc}", field="audio"
        ) from exc
    custom: dict[str, JSONValue] = {
        "fleurs_config": config,
        "source_file": clip.file_name,
        "order_index": clip.order,
    }
    if clip.normalized is not None:
        custom["normalized_transcription"] = clip.normalized
    if clip.gender:
        custom["gender"] = clip.gender
    if clip.num_samples is not None:
        custom["num_samples"] = clip.num_samples
    return Utterance(
        id=utt_id,
        audio=f"{config}/{utt_id}.flac",
        text=clip.raw,
        language=language_for_fleurs_config(config),
        slices=(f"gender:{clip.gender}",) if clip.gender else (),
        duration=stored.duration,
        sha256=stored.sha256,
        source=Source(FLEURS_DATASET, config, split, revision, FLEURS_LICENCE),
        text_id=clip.text_id,
        custom=custom,
    )


def _delete(got: Downloaded, stats: dict[str, int]) -> None:
    got.path.unlink(missing_ok=True)
    stats["deleted"] += 1


def _provenance(got: Downloaded) -> Download:
    return {"url": got.url, "bytes": got.size, "sha256": got.sha256}


def _read_progress(path: Path, settings: Mapping[str, JSONValue]) -> _Progress:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EarmarkError(
            f"unreadable progress file: {exc}",
            file=str(path),
            hint="delete it to refetch that language",
        ) from exc
    if not isinstance(record, dict) or record.get("format") != PROGRESS_FORMAT:
        raise EarmarkError("not an earmark FLEURS progress file", file=str(path), field="format")
    for key in _SETTINGS:
        if record.get(key) != settings[key]:
            raise EarmarkError(
                f"this folder was fetched with {key}={record.get(key)!r}, now {settings[key]!r}",
                file=str(path),
                field=key,
                hint="use a new --out folder, or the original settings to resume",
            )
    return _Progress(record.get("downloads", []), [_utterance(row) for row in record["rows"]])


def _write_json(path: Path, data: Mapping[str, object]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(
        json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    os.replace(tmp, path)


def _utterance(row: Any) -> Utterance:  # a row of the progress file, as json.loads gives it
    """Rebuild a row saved in a progress file (the writer re-canonicalises it)."""
    fields = dict(row)
    fields["slices"] = tuple(fields.get("slices", ()))
    if "source" in fields:
        fields["source"] = Source(**fields["source"])
    return Utterance(**fields)
