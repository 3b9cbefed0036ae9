"""A manifest over clips a test already holds: each written as 16 kHz PCM-16 WAV, one
reference text and language for all, a CC0 synthetic sidecar. For tests that run an
engine's clips through `earmark run` end to end."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import soundfile

from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.writer import write_manifest
from earmark.engines.base import Clip


def write_clip_corpus(root: Path, clips: Sequence[Clip], text: str, language: str) -> Path:
    """Write the clips under `root/audio` and `root/manifest.jsonl`; returns the manifest."""
    audio = root / "audio"
    audio.mkdir(parents=True, exist_ok=True)
    rows = []
    for clip in clips:
        soundfile.write(audio / f"{clip.id}.wav", clip.audio, 16000, subtype="PCM_16")
        rows.append(
            Utterance(id=clip.id, audio=f"audio/{clip.id}.wav", text=text, language=language)
        )
    manifest = root / "manifest.jsonl"
    meta = CorpusMeta(dataset="clips", licence="CC0-1.0", consent_basis="synthetic")
    write_manifest(manifest, rows, meta)
    return manifest
