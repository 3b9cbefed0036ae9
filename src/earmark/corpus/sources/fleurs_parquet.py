"""Reading FLEURS rows out of the hub's parquet shards (importer and fetcher share this).

A shard holds the audio bytes inline (`audio` = {bytes, path}), so rows are read in small
record batches: a 400 MB shard never has to be decoded into memory at once. pyarrow is an
optional extra (`parquet`) and is imported only here, only when called.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

from earmark.errors import EarmarkError, MissingExtraError

#: `gender` is a class label in the hub's parquet (0/1/2) and a word in the TSV files.
FLEURS_GENDERS = {0: "male", 1: "female", 2: "other"}

_WANTED = (
    "id",
    "num_samples",
    "path",
    "audio",
    "transcription",
    "raw_transcription",
    "gender",
    "lang_id",
    "language",
)


@dataclass(frozen=True)
class FleursParquetRow:
    """One recording from a shard, in shard order (`index` counts from 0 per shard)."""

    index: int
    text_id: str
    file_name: str
    audio_bytes: bytes | None
    raw_transcription: str
    transcription: str | None
    gender: str | None
    num_samples: int | None
    language_name: str | None


def _basename(path_text: str) -> str:
    # Paths in shards may come from any OS cache layout; keep only the file name.
    return PureWindowsPath(PurePosixPath(path_text).name).name


def _gender(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, int):
        return FLEURS_GENDERS.get(value, str(value))
    text = str(value).strip().lower()
    return text or None


def iter_fleurs_parquet(path: Path, *, batch_size: int = 64) -> Iterator[FleursParquetRow]:
    """Yield rows of one FLEURS parquet shard in file order."""
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow is present in the test env
        raise MissingExtraError("reading FLEURS parquet shards", "parquet", "pyarrow") from exc
    try:
        shard = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several types for a bad file
        raise EarmarkError(
            f"not a readable parquet file: {exc}", file=str(path), hint="delete it and refetch"
        ) from exc
    names = set(shard.schema_arrow.names)
    for required in ("id", "raw_transcription"):
        if required not in names:
            raise EarmarkError(
                f"FLEURS parquet column missing (found: {', '.join(sorted(names))})",
                file=str(path),
                field=required,
            )
    if "audio" not in names and "path" not in names:
        raise EarmarkError(
            "FLEURS parquet has neither 'audio' nor 'path'", file=str(path), field="audio"
        )
    columns = [name for name in _WANTED if name in names]
    index = 0
    for batch in shard.iter_batches(batch_size=batch_size, columns=columns):
        for record in batch.to_pylist():
            audio = record.get("audio") or {}
            file_name = _basename(str(audio.get("path") or record.get("path") or ""))
            if not file_name:
                file_name = f"{record['id']}_{index}.wav"
            raw = record.get("raw_transcription")
            if raw is None:
                raise EarmarkError(
                    "raw transcription is null",
                    file=str(path),
                    line=index + 1,
                    field="raw_transcription",
                )
            num_samples = record.get("num_samples")
            yield FleursParquetRow(
                index=index,
                text_id=str(record["id"]),
                file_name=file_name,
                audio_bytes=audio.get("bytes"),
                raw_transcription=str(raw),
                transcription=record.get("transcription"),
                gender=_gender(record.get("gender")),
                num_samples=int(num_samples) if num_samples is not None else None,
                language_name=record.get("language"),
            )
            index += 1
