"""Corpora: the manifest model, reading and validation, the licence gate, audio loading,
selection rules and the bundled demo corpus.

Only stdlib-backed modules are imported eagerly; audio loading (numpy, soundfile, soxr)
is imported on first use of one of its names.
"""

from __future__ import annotations

from typing import Any

from earmark.corpus.demo import demo_audio_root, demo_manifest_path
from earmark.corpus.manifest import (
    AudioProblem,
    ValidationReport,
    is_public,
    licence_gate,
    manifest_sha256,
    read_manifest,
    read_meta,
    row_provenance_gate,
    validate_manifest,
)
from earmark.corpus.model import CorpusMeta, Source, Utterance
from earmark.corpus.selection import (
    Exclusion,
    SelectionRecord,
    SpeakerLeakage,
    filter_rows,
    first_n,
    first_n_distinct_texts,
    hash_subset,
    select,
    slice_counts,
    speaker_leakage,
)
from earmark.corpus.writer import meta_path_for, write_manifest, write_meta

_AUDIO_NAMES = frozenset(
    {"AudioFailure", "AudioPrefetcher", "LoadedAudio", "load_audio", "resolve_audio_path"}
)

__all__ = [
    "AudioFailure",
    "AudioPrefetcher",
    "AudioProblem",
    "CorpusMeta",
    "Exclusion",
    "LoadedAudio",
    "SelectionRecord",
    "Source",
    "SpeakerLeakage",
    "Utterance",
    "ValidationReport",
    "demo_audio_root",
    "demo_manifest_path",
    "filter_rows",
    "first_n",
    "first_n_distinct_texts",
    "hash_subset",
    "is_public",
    "licence_gate",
    "load_audio",
    "manifest_sha256",
    "meta_path_for",
    "read_manifest",
    "read_meta",
    "row_provenance_gate",
    "resolve_audio_path",
    "select",
    "slice_counts",
    "speaker_leakage",
    "validate_manifest",
    "write_manifest",
    "write_meta",
]


def __getattr__(name: str) -> Any:
    if name in _AUDIO_NAMES:
        from earmark.corpus import audio

        return getattr(audio, name)
    raise AttributeError(f"module 'earmark.corpus' has no attribute {name!r}")
