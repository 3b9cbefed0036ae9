"""Decoding fetched clips to the one format earmark stores: 16 kHz mono 16-bit FLAC."""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from pathlib import Path

TARGET_RATE = 16_000


@dataclass(frozen=True)
class StoredClip:
    path: Path
    sha256: str
    duration: float
    source_rate: int
    source_channels: int


def store_flac_16k_mono(data: bytes, dest: Path) -> StoredClip:
    """Decode any soundfile-readable bytes, downmix, resample (soxr) and write FLAC."""
    import numpy as np
    import soundfile as sf
    import soxr

    samples, rate = sf.read(io.BytesIO(data), dtype="float32", always_2d=True)
    channels = samples.shape[1]
    mono = samples.mean(axis=1) if channels > 1 else samples[:, 0]
    if rate != TARGET_RATE:
        mono = soxr.resample(mono, rate, TARGET_RATE).astype(np.float32)
    dest.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    sf.write(buffer, np.clip(mono, -1.0, 1.0), TARGET_RATE, format="FLAC", subtype="PCM_16")
    encoded = buffer.getvalue()
    dest.write_bytes(encoded)
    return StoredClip(
        dest, hashlib.sha256(encoded).hexdigest(), len(mono) / TARGET_RATE, int(rate), int(channels)
    )
