"""Audio loading: each reason code produced by a real file, and correct decoding."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import numpy as np
import pytest
import soundfile

from earmark.corpus.audio import (
    REASONS,
    AudioFailure,
    AudioPrefetcher,
    LoadedAudio,
    load_audio,
    resolve_audio_path,
)
from earmark.corpus.model import Utterance
from earmark.errors import EarmarkError


def utt(audio: str, **kw: object) -> Utterance:
    return Utterance(id=audio, audio=audio, text="x", language="en", **kw)  # type: ignore[arg-type]


def tone(seconds: float, rate: int, channels: int = 1) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    mono = 0.5 * np.sin(2 * np.pi * 440 * t)
    return np.stack([mono] * channels, axis=1) if channels > 1 else mono


def failure(result: LoadedAudio | AudioFailure) -> str:
    assert isinstance(result, AudioFailure), result
    return result.reason


def test_stereo_44k_to_16k_mono(tmp_path: Path) -> None:
    left = tone(1.0, 44_100)
    stereo = np.stack([left, np.zeros_like(left)], axis=1)
    soundfile.write(tmp_path / "s.wav", stereo, 44_100, subtype="FLOAT")
    result = load_audio(tmp_path, utt("s.wav"))
    assert isinstance(result, LoadedAudio)
    assert result.samples.dtype == np.float32 and result.samples.ndim == 1
    assert result.sample_rate == 16_000
    assert result.samples.shape[0] == 16_000  # soxr keeps the exact duration
    assert result.duration == pytest.approx(1.0)
    assert (result.original_sample_rate, result.original_channels) == (44_100, 2)
    assert result.original_format == "WAV/FLOAT"
    # Downmix by mean: a 0.5 tone in one channel becomes 0.25 peak.
    assert float(np.max(np.abs(result.samples[1000:-1000]))) == pytest.approx(0.25, abs=0.01)
    assert result.sha256 == hashlib.sha256((tmp_path / "s.wav").read_bytes()).hexdigest()


def test_flac_16k_passes_through_untouched(tmp_path: Path) -> None:
    samples = (tone(0.5, 16_000) * 32767).astype(np.int16)
    soundfile.write(tmp_path / "t.flac", samples, 16_000, subtype="PCM_16")
    result = load_audio(tmp_path, utt("t.flac"))
    assert isinstance(result, LoadedAudio)
    np.testing.assert_array_equal(result.samples, samples.astype(np.float32) / 32768)
    assert result.original_format == "FLAC/PCM_16"


def test_segment_start_end(tmp_path: Path) -> None:
    ramp = np.arange(16_000 * 3, dtype=np.float32) / (16_000 * 3)
    soundfile.write(tmp_path / "long.wav", ramp, 16_000, subtype="FLOAT")
    result = load_audio(tmp_path, utt("long.wav", start=1.0, end=2.5))
    assert isinstance(result, LoadedAudio)
    assert result.samples.shape[0] == 24_000
    assert result.samples[0] == ramp[16_000]
    assert result.samples[-1] == ramp[16_000 + 24_000 - 1]
    assert failure(load_audio(tmp_path, utt("long.wav", start=5.0))) == "empty"


def test_missing_file(tmp_path: Path) -> None:
    assert failure(load_audio(tmp_path, utt("nope.wav"))) == "missing_file"
    (tmp_path / "dir.wav").mkdir()
    assert failure(load_audio(tmp_path, utt("dir.wav"))) == "missing_file"


def test_path_outside_root_by_symlink(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    soundfile.write(tmp_path / "secret.wav", tone(0.2, 16_000), 16_000)
    os.symlink(tmp_path / "secret.wav", root / "link.wav")
    result = load_audio(root, utt("link.wav"))
    assert failure(result) == "path_outside_root"
    with pytest.raises(EarmarkError) as info:
        resolve_audio_path(root, "link.wav")
    assert info.value.field == "audio"
    # A symlink that stays inside the root is fine.
    soundfile.write(root / "real.wav", tone(0.2, 16_000), 16_000)
    os.symlink(root / "real.wav", root / "inside.wav")
    assert resolve_audio_path(root, "inside.wav") == (root / "real.wav").resolve()


@pytest.mark.parametrize("bad", ["../x.wav", "/etc/passwd", "a/../../x.wav"])
def test_path_outside_root_by_name(tmp_path: Path, bad: str) -> None:
    assert failure(load_audio(tmp_path, utt(bad))) == "path_outside_root"


def test_too_large_checked_before_reading(tmp_path: Path) -> None:
    soundfile.write(tmp_path / "big.wav", tone(1.0, 16_000), 16_000)
    size = (tmp_path / "big.wav").stat().st_size
    assert failure(load_audio(tmp_path, utt("big.wav"), max_bytes=size - 1)) == "too_large"
    assert isinstance(load_audio(tmp_path, utt("big.wav"), max_bytes=size), LoadedAudio)


def test_corrupt_bytes_unreadable(tmp_path: Path) -> None:
    (tmp_path / "bad.wav").write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunkjunkjunk" * 10)
    assert failure(load_audio(tmp_path, utt("bad.wav"))) == "unreadable"
    (tmp_path / "text.flac").write_text("not audio at all")
    assert failure(load_audio(tmp_path, utt("text.flac"))) == "unreadable"


def test_zero_samples_and_zero_bytes_empty(tmp_path: Path) -> None:
    soundfile.write(tmp_path / "zero.wav", np.zeros(0, dtype=np.float32), 16_000)
    assert failure(load_audio(tmp_path, utt("zero.wav"))) == "empty"
    (tmp_path / "nothing.wav").write_bytes(b"")
    assert failure(load_audio(tmp_path, utt("nothing.wav"))) == "empty"


def test_too_short_and_too_long(tmp_path: Path) -> None:
    soundfile.write(tmp_path / "c.wav", tone(0.5, 16_000), 16_000)
    assert failure(load_audio(tmp_path, utt("c.wav"), min_seconds=0.6)) == "too_short"
    assert failure(load_audio(tmp_path, utt("c.wav"), max_seconds=0.4)) == "too_long"
    assert isinstance(
        load_audio(tmp_path, utt("c.wav"), min_seconds=0.5, max_seconds=0.5), LoadedAudio
    )


def test_nan_samples(tmp_path: Path) -> None:
    data = tone(0.2, 16_000).astype(np.float32)
    data[100] = np.nan
    data[200] = np.inf
    soundfile.write(tmp_path / "nan.wav", data, 16_000, subtype="FLOAT")
    result = load_audio(tmp_path, utt("nan.wav"))
    assert failure(result) == "non_finite_samples"
    assert isinstance(result, AudioFailure) and "2 NaN/inf" in result.detail


def test_sha256_mismatch(tmp_path: Path) -> None:
    soundfile.write(tmp_path / "c.wav", tone(0.2, 16_000), 16_000)
    real = hashlib.sha256((tmp_path / "c.wav").read_bytes()).hexdigest()
    assert failure(load_audio(tmp_path, utt("c.wav", sha256="0" * 64))) == "sha256_mismatch"
    ok = load_audio(tmp_path, utt("c.wav", sha256=real))
    assert isinstance(ok, LoadedAudio) and ok.sha256 == real


def test_every_reason_code_is_covered_above() -> None:
    assert set(REASONS) == {
        "missing_file",
        "path_outside_root",
        "too_large",
        "unreadable",
        "empty",
        "too_short",
        "too_long",
        "non_finite_samples",
        "sha256_mismatch",
    }
    with pytest.raises(ValueError):
        AudioFailure("made_up", "x")


@pytest.mark.skipif("MP3" not in soundfile.available_formats(), reason="libsndfile without MP3")
def test_mp3_and_ogg_decode(tmp_path: Path) -> None:
    soundfile.write(tmp_path / "c.mp3", tone(1.0, 22_050), 22_050, format="MP3")
    soundfile.write(tmp_path / "c.ogg", tone(1.0, 22_050), 22_050, format="OGG")
    for name in ("c.mp3", "c.ogg"):
        result = load_audio(tmp_path, utt(name))
        assert isinstance(result, LoadedAudio), result
        assert result.duration == pytest.approx(1.0, abs=0.1)


def _corpus(tmp_path: Path, n: int) -> list[Utterance]:
    rows = []
    for i in range(n):
        if i % 3 != 2:
            soundfile.write(tmp_path / f"{i}.wav", tone(0.1 + i / 100, 16_000), 16_000)
        rows.append(utt(f"{i}.wav"))
    return rows


@pytest.mark.parametrize("workers", [1, 3])
def test_prefetcher_keeps_order_and_reasons(tmp_path: Path, workers: int) -> None:
    rows = _corpus(tmp_path, 12)
    with AudioPrefetcher(tmp_path, iter(rows), depth=2, workers=workers) as pre:
        out = list(pre)
    assert [u.id for u, _ in out] == [u.id for u in rows]
    for i, (_, result) in enumerate(out):
        if i % 3 == 2:
            assert failure(result) == "missing_file"
        else:
            assert isinstance(result, LoadedAudio)
            assert result.samples.shape[0] == int((0.1 + i / 100) * 16_000)


def test_prefetcher_reraises_manifest_error_in_place(tmp_path: Path) -> None:
    rows = _corpus(tmp_path, 3)

    def source():  # type: ignore[no-untyped-def]
        yield from rows[:2]
        raise EarmarkError("bad row", file="m.jsonl", line=3, field="id")

    got = []
    with pytest.raises(EarmarkError, match="bad row"):
        for u, _ in AudioPrefetcher(tmp_path, source(), depth=4):
            got.append(u.id)
    assert got == [rows[0].id, rows[1].id]


def test_prefetcher_is_bounded_and_stops_early(tmp_path: Path) -> None:
    rows = _corpus(tmp_path, 3)
    pulled = 0
    lock = threading.Lock()

    def endless():  # type: ignore[no-untyped-def]
        nonlocal pulled
        i = 0
        while True:
            with lock:
                pulled += 1
            yield rows[i % 2]
            i += 1

    pre = AudioPrefetcher(tmp_path, endless(), depth=3, workers=1)
    it = iter(pre)
    next(it)
    import time

    time.sleep(0.3)
    with lock:
        assert pulled <= 3 + 1 + 2  # queue depth + in-flight workers + the one consumed
    pre.close()
    with pytest.raises(StopIteration):
        next(it)


def test_segments_share_one_hash_and_check_it(tmp_path: Path) -> None:
    ramp = np.arange(16_000 * 2, dtype=np.float32) / 40_000
    soundfile.write(tmp_path / "long.flac", ramp, 16_000, subtype="PCM_24")
    real = hashlib.sha256((tmp_path / "long.flac").read_bytes()).hexdigest()
    first = load_audio(tmp_path, utt("long.flac", start=0.0, end=1.0, sha256=real))
    second = load_audio(tmp_path, utt("long.flac", start=1.0, end=2.0, sha256=real))
    assert isinstance(first, LoadedAudio) and isinstance(second, LoadedAudio)
    assert first.sha256 == second.sha256 == real
    assert first.samples.shape == second.samples.shape == (16_000,)
    wrong = load_audio(tmp_path, utt("long.flac", start=0.0, end=1.0, sha256="1" * 64))
    assert failure(wrong) == "sha256_mismatch"
