"""Turning a `Clip` into what a backend consumes: 16 kHz mono float32, or 16-bit WAV bytes."""

from __future__ import annotations

import io

import numpy as np

from earmark.engines.base import Clip

SAMPLE_RATE = 16_000


def mono_16k(clip: Clip) -> np.ndarray:
    """The clip's samples as 16 kHz mono float32, resampling (soxr) only when needed.

    No copy is made of audio that is already 16 kHz mono float32 (what the runner hands
    every engine), and none beyond the mix and the resampler's output otherwise: a long
    clip is held once, not twice (issue 16)."""
    audio = np.asarray(clip.audio, dtype=np.float32)
    if audio.ndim == 2:
        audio = audio.mean(axis=1 if audio.shape[1] <= 8 else 0, dtype=np.float32)
    if clip.sample_rate != SAMPLE_RATE:
        import soxr

        audio = soxr.resample(audio, clip.sample_rate, SAMPLE_RATE).astype(np.float32, copy=False)
    return np.ascontiguousarray(audio)


#: Samples clipped and converted per write: the WAV's only temporary besides its bytes.
_WRITE_BLOCK = 1 << 16


def wav_bytes(clip: Clip) -> bytes:
    """The clip as a 16 kHz mono PCM-16 WAV file in memory, written block by block so
    no clipped float copy of the whole clip is made."""
    import soundfile

    samples = mono_16k(clip)
    buffer = io.BytesIO()
    with soundfile.SoundFile(
        buffer, "w", samplerate=SAMPLE_RATE, channels=1, subtype="PCM_16", format="WAV"
    ) as sound:
        for start in range(0, samples.shape[0], _WRITE_BLOCK):
            sound.write(np.clip(samples[start : start + _WRITE_BLOCK], -1.0, 1.0))
    return buffer.getvalue()
