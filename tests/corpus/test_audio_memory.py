"""A long clip's memory on earmark's side (issue 16, item 10): what `load_audio` holds.

Peaks are measured with tracemalloc in this process (numpy's buffers are traced), not
with the process's RSS, so the figures do not depend on what else the test run loaded.
The bound: the output (4 bytes per 16 kHz sample) plus a few MiB of blocks; before the
streaming decode a 16 kHz mono FLAC peaked at ~1.5x the output (the file's bytes held in
memory, a NaN mask as large as the clip) and a 48 kHz stereo one at ~10x.
"""

from __future__ import annotations

import hashlib
import os
import threading
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import soundfile
import soxr

from earmark.corpus import audio as audio_module
from earmark.corpus.audio import AudioFailure, LoadedAudio, load_audio
from earmark.corpus.model import Utterance

#: Beyond 4 bytes per output sample: decode blocks, their channel mix, the resampler's
#: chunk, the NaN check's mask (each one block long, never clip long).
SLACK_BYTES = 4 * 2**20


def long_clip(folder: Path, minutes: float, rate: int, channels: int) -> Utterance:
    """A speech-like synthetic clip (a gliding tone with a little noise) as PCM-16 FLAC,
    with its sha256 in the manifest row as a corpus would have it."""
    rng = np.random.default_rng(7)
    n = int(minutes * 60 * rate)
    t = np.arange(n, dtype=np.float64) / rate
    mono = 0.3 * np.sin(2 * np.pi * (200 + 50 * np.sin(t / 3)) * t) + rng.normal(0, 0.01, n)
    data = np.stack([mono, 0.8 * mono], axis=1) if channels == 2 else mono
    name = f"long-{rate}-{channels}.flac"
    soundfile.write(folder / name, data.astype(np.float32), rate, subtype="PCM_16")
    digest = hashlib.sha256((folder / name).read_bytes()).hexdigest()
    return Utterance(id=name, audio=name, text="x", language="en", sha256=digest)


def traced_peak(root: Path, utt: Utterance) -> tuple[LoadedAudio | AudioFailure, int]:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        loaded = load_audio(root, utt)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return loaded, peak


@pytest.mark.parametrize(("minutes", "rate", "channels"), [(10, 16_000, 1), (4, 44_100, 2)])
def test_long_clip_peak_is_the_output_plus_blocks(
    tmp_path: Path, minutes: float, rate: int, channels: int
) -> None:
    utt = long_clip(tmp_path, minutes, rate, channels)
    loaded, peak = traced_peak(tmp_path, utt)
    assert isinstance(loaded, LoadedAudio), loaded
    samples = loaded.samples.shape[0]
    # 16 kHz out whatever came in: 9.6 M samples for 10 min, 3.84 M for 4 min.
    assert samples == round(minutes * 60 * 16_000)
    assert loaded.samples.dtype == np.float32
    assert peak < 4 * samples + SLACK_BYTES, (peak, 4 * samples)
    assert peak >= 4 * samples  # the output itself is traced: the measure sees it


def test_streamed_decode_equals_the_whole_file_decode(tmp_path: Path) -> None:
    """The oracle is soundfile + numpy + soxr on the whole file at once: the block-wise
    mix and resample give the same samples, bit for bit."""
    utt = long_clip(tmp_path, 0.5, 44_100, 2)
    loaded = load_audio(tmp_path, utt)
    assert isinstance(loaded, LoadedAudio)
    whole, rate = soundfile.read(tmp_path / utt.audio, dtype="float32", always_2d=True)
    expected = soxr.resample(whole.mean(axis=1, dtype=np.float32), rate, 16_000, quality="HQ")
    assert loaded.samples.shape == expected.shape
    assert np.array_equal(loaded.samples, expected)
    assert loaded.sha256 == utt.sha256


def test_mono_16k_is_decoded_in_place_across_block_boundaries(tmp_path: Path) -> None:
    frames = 3 * audio_module.BLOCK_FRAMES + 5
    data = (np.arange(frames) % 1000 - 500).astype(np.int16)
    soundfile.write(tmp_path / "m.wav", data, 16_000, subtype="PCM_16")
    loaded = load_audio(tmp_path, Utterance(id="m", audio="m.wav", text="x", language="en"))
    assert isinstance(loaded, LoadedAudio)
    assert np.array_equal(loaded.samples, data.astype(np.float32) / 32768)


def test_non_finite_samples_are_counted_across_blocks(tmp_path: Path) -> None:
    frames = 2 * audio_module.BLOCK_FRAMES + 10
    data = np.zeros((frames, 2), np.float32)
    data[3, 0] = np.nan
    data[audio_module.BLOCK_FRAMES + 1, 1] = np.inf
    data[-1, :] = -np.inf
    soundfile.write(tmp_path / "n.wav", data, 22_050, subtype="FLOAT")
    result = load_audio(tmp_path, Utterance(id="n", audio="n.wav", text="x", language="en"))
    assert isinstance(result, AudioFailure)
    assert result.reason == "non_finite_samples" and "4 NaN/inf samples" in result.detail


def test_a_file_changed_between_hash_and_decode_is_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hash and the decode read one descriptor; a write in between must not let
    other bytes be scored under the hash of the first."""
    soundfile.write(tmp_path / "c.wav", np.zeros(1600, np.float32), 16_000, subtype="PCM_16")
    hash_then_write = audio_module._fd_sha256

    def hashed_then_appended(fd: int, max_bytes: int) -> str | None:
        digest = hash_then_write(fd, max_bytes)
        with open(tmp_path / "c.wav", "ab") as handle:
            handle.write(b"\0" * 64)
        os.utime(tmp_path / "c.wav", ns=(1, 1))
        return digest

    monkeypatch.setattr(audio_module, "_fd_sha256", hashed_then_appended)
    result = load_audio(tmp_path, Utterance(id="c", audio="c.wav", text="x", language="en"))
    assert isinstance(result, AudioFailure) and result.reason == "unreadable"
    assert result.detail == "c.wav: the file changed while being read"


def _count_decodes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    decoded: list[str] = []
    real = audio_module.load_audio

    def counting(root: Path, utt: Utterance, **kw: object) -> LoadedAudio | AudioFailure:
        result = real(root, utt, **kw)  # type: ignore[arg-type]
        decoded.append(utt.id)
        return result

    monkeypatch.setattr(audio_module, "load_audio", counting)
    return decoded


@pytest.mark.parametrize(("budget", "most_ahead"), [(1, 1), (3 * 64_000, 3), (None, 8)])
def test_prefetcher_holds_at_most_its_byte_budget_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, budget: int | None, most_ahead: int
) -> None:
    """Clips of 16,000 samples (64,000 bytes decoded): with a budget of one byte one clip
    still goes ahead (never a deadlock), with three clips' worth three, and with the
    default budget the count limit (`depth` = 8) is what binds."""
    rows = []
    for i in range(20):
        soundfile.write(tmp_path / f"{i}.wav", np.zeros(16_000, np.float32), 16_000)
        rows.append(Utterance(id=str(i), audio=f"{i}.wav", text="x", language="en"))
    decoded = _count_decodes(monkeypatch)
    kwargs = {} if budget is None else {"max_ahead_bytes": budget}
    seen_ahead = []
    with audio_module.AudioPrefetcher(tmp_path, rows, depth=8, workers=1, **kwargs) as pre:
        for k, (utt, loaded) in enumerate(pre):
            assert isinstance(loaded, LoadedAudio) and utt.id == str(k)
            if k in (0, 5):
                deadline = 50
                while deadline and len(decoded) < min(20, k + 1 + most_ahead):
                    threading.Event().wait(0.02)
                    deadline -= 1
                threading.Event().wait(0.2)  # let the producer run ahead as far as it may
                seen_ahead.append(pre.ahead_bytes)
                # Held by the consumer, queued ahead (admitted), the one the producer has
                # decoded and waits to queue, and one per worker decoding: never more.
                assert len(decoded) <= k + 1 + most_ahead + 1 + 1, (k, len(decoded))
    # Queued ahead (not yet handed over): the budget, or one clip, or depth + 1 clips.
    if budget is not None:
        assert max(seen_ahead) <= max(budget, 64_000)
    else:  # eight queued and one admitted, waiting for room in the queue
        assert max(seen_ahead) <= 64_000 * (8 + 1)
    assert max(seen_ahead) >= 64_000 * min(most_ahead, 2)
