"""Turning a `Clip` into what a backend consumes: 16 kHz mono float32, or 16-bit WAV bytes."""

from __future__ import annotations

import io

import numpy as np

from earmark.engines.base import Clip

SAMPLE_RATE = 16_000


def mono_16k(clip: Clip) -> np.ndarray:
    """The clip's samples as 16 kHz mono float32, resampling (soxr) only when needed."""
    audio = np.asarray(clip.audio, dtype=np.float32)
    if audio.ndim == 2:
        audio = audio.mean(axis=1 if audio.shape[1] <= 8 else 0).astype(np.float32)
    if clip.sample_rate != SAMPLE_RATE:
        import soxr

        audio = soxr.resample(audio, clip.sample_rate, SAMPLE_RATE).astype(np.float32)
    return np.ascontiguousarray(audio)


def wav_bytes(clip: Clip) -> bytes:
    """The clip as a 16 kHz mono PCM-16 WAV file in memory."""
    import soundfile

    buffer = io.BytesIO()
    soundfile.write(buffer, np.clip(mono_16k(clip), -1.0, 1.0), SAMPLE_RATE, "PCM_16", format="WAV")
    return buffer.getvalue()
