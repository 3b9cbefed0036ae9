"""Loading one clip as 16 kHz mono float32, or saying exactly why it could not be used.

A bad clip never raises: it becomes an `AudioFailure` with a reason code, so the runner
can count it as an exclusion instead of crashing or, worse, skipping it silently.

Reason codes (stable, recorded in results):
`missing_file`, `path_outside_root`, `too_large`, `unreadable`, `empty`, `too_short`,
`too_long`, `non_finite_samples`, `sha256_mismatch`.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import hashlib
import math
import os
import queue
import re
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from earmark.corpus.manifest import audio_path_problem
from earmark.corpus.model import Utterance
from earmark.errors import EarmarkError

REASONS = (
    "missing_file",
    "path_outside_root",
    "too_large",
    "unreadable",
    "empty",
    "too_short",
    "too_long",
    "non_finite_samples",
    "sha256_mismatch",
)

TARGET_RATE = 16_000
DEFAULT_MIN_SECONDS = 0.0
DEFAULT_MAX_SECONDS = 4 * 3600.0
DEFAULT_MAX_BYTES = 1 << 30
_CHUNK = 1 << 20


@dataclass(frozen=True, eq=False)
class LoadedAudio:
    """Decoded samples ready for an engine, plus what the original file was."""

    samples: np.ndarray  # float32, mono, `sample_rate` Hz
    sample_rate: int
    duration: float
    sha256: str  # of the original file bytes (the whole file, even for a segment)
    original_sample_rate: int
    original_channels: int
    original_format: str  # e.g. "WAV/PCM_16", "FLAC/PCM_16"
    #: Wall seconds `load_audio` took (read, hash, decode, resample): the audio part of a
    #: clip's end-to-end latency (`run.arm_worker`).
    load_seconds: float | None = None


@dataclass(frozen=True)
class AudioFailure:
    """Why a clip was not loaded: a reason code from `REASONS` and a human detail."""

    reason: str
    detail: str

    def __post_init__(self) -> None:
        if self.reason not in REASONS:
            raise ValueError(f"unknown audio failure reason {self.reason!r}")


def resolve_audio_path(root: str | os.PathLike[str], relative: str) -> Path:
    """The file a manifest's `audio` names, refusing anything outside the root.

    Absolute paths and `..` segments are refused outright; symlinks are resolved first
    and the target must still lie inside the resolved root.
    """
    problem = audio_path_problem(relative)
    if problem is not None:
        raise EarmarkError(problem, field="audio", hint="audio paths are relative to the root")
    try:
        base = Path(root).resolve()
        target = (base / relative).resolve()
    except (RuntimeError, OSError):
        # A symlink loop (RuntimeError before Python 3.13). Nothing behind a loop can be
        # read, so the lexical path is safe to return: opening it fails with ELOOP, which
        # `load_audio` reports as this clip's `unreadable`, not a crash of the run.
        return Path(os.path.abspath(root)) / relative
    if target != base and base not in target.parents:
        raise EarmarkError(
            f"{relative!r} resolves outside the audio root (symlink?)",
            field="audio",
            hint="copy the file under the audio root instead of linking out of it",
        )
    return target


def load_audio(
    root: str | os.PathLike[str],
    utt: Utterance,
    *,
    min_seconds: float = DEFAULT_MIN_SECONDS,
    max_seconds: float = DEFAULT_MAX_SECONDS,
    max_bytes: int = DEFAULT_MAX_BYTES,
    target_rate: int = TARGET_RATE,
) -> LoadedAudio | AudioFailure:
    """Decode `utt`'s audio (or its `start`/`end` segment) to mono float32 at `target_rate`.

    Order of checks: path, existence, byte size (before reading), sha256 of the bytes
    (before decoding: a different file must not be scored), header duration (before
    decoding a huge file), then decode, empty, non-finite samples, final duration.
    """
    started = time.perf_counter()
    try:
        path = resolve_audio_path(root, utt.audio)
    except EarmarkError as exc:
        return AudioFailure("path_outside_root", exc.message)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return AudioFailure("missing_file", f"{utt.audio} not found under {root}")
    except OSError as exc:
        loop = " (symlink loop)" if exc.errno == errno.ELOOP else ""
        return AudioFailure("unreadable", f"{utt.audio}: {exc.strerror}{loop}")
    if not path.is_file():
        return AudioFailure("missing_file", f"{utt.audio} is not a regular file")
    if size > max_bytes:
        return AudioFailure("too_large", f"{utt.audio} is {size} bytes (limit {max_bytes})")

    segment = utt.start is not None or utt.end is not None
    try:
        if segment:
            # Many segments share one long file: hash it once, decode only the segment.
            stat = path.stat()
            sha256 = _file_sha256(path, stat.st_size, stat.st_mtime_ns)
            opened = None
        else:
            # One descriptor serves both the hash and the decoder, and the file is hashed
            # as a stream: holding its bytes in memory beside the samples cost a
            # compressed copy of every clip (issue 16).
            opened = os.open(path, os.O_RDONLY)
    except OSError as exc:
        return AudioFailure("unreadable", f"{utt.audio}: {exc.strerror}")
    if opened is None:
        return _checked_decode(
            path, utt, sha256, size, min_seconds, max_seconds, target_rate, started
        )
    try:
        before = os.fstat(opened)
        hashed = _fd_sha256(opened, max_bytes)
        if hashed is None:  # the file grew after stat
            return AudioFailure("too_large", f"{utt.audio} exceeds {max_bytes} bytes")
        os.lseek(opened, 0, os.SEEK_SET)
        loaded = _checked_decode(
            opened, utt, hashed, size, min_seconds, max_seconds, target_rate, started
        )
        after = os.fstat(opened)
    except OSError as exc:
        return AudioFailure("unreadable", f"{utt.audio}: {exc.strerror}")
    finally:
        os.close(opened)
    if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
        # The bytes decoded must be the bytes hashed; a write in between changes these.
        return AudioFailure("unreadable", f"{utt.audio}: the file changed while being read")
    return loaded


def _checked_decode(
    source: int | Path,
    utt: Utterance,
    sha256: str,
    size: int,
    min_seconds: float,
    max_seconds: float,
    target_rate: int,
    started: float,
) -> LoadedAudio | AudioFailure:
    """The hash and emptiness checks, then the decode (timed from `started`)."""
    if utt.sha256 is not None and sha256 != utt.sha256:
        return AudioFailure(
            "sha256_mismatch",
            f"{utt.audio}: file sha256 {sha256[:12]}…, manifest {utt.sha256[:12]}…",
        )
    if size == 0:
        return AudioFailure("empty", f"{utt.audio} is a zero-byte file")
    loaded = _decode(source, utt, sha256, min_seconds, max_seconds, target_rate)
    if isinstance(loaded, LoadedAudio):
        loaded = dataclasses.replace(loaded, load_seconds=time.perf_counter() - started)
    return loaded


def _fd_sha256(fd: int, max_bytes: int) -> str | None:
    """SHA-256 of an open file read to its end in chunks; None past `max_bytes`."""
    digest = hashlib.sha256()
    total = 0
    while chunk := os.read(fd, _CHUNK):
        digest.update(chunk)
        total += len(chunk)
        if total > max_bytes:
            return None
    return digest.hexdigest()


@functools.lru_cache(maxsize=64)
def _file_sha256(path: Path, size: int, mtime_ns: int) -> str:
    """SHA-256 of a whole file, cached on (path, size, mtime) for segmented corpora."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _decode(
    source: int | Path,
    utt: Utterance,
    sha256: str,
    min_seconds: float,
    max_seconds: float,
    target_rate: int,
) -> LoadedAudio | AudioFailure:
    """Decode `source` (an open descriptor, or a path for a segment) block by block."""
    import soundfile

    try:
        with soundfile.SoundFile(source, closefd=False) as sound:
            rate = int(sound.samplerate)
            channels = int(sound.channels)
            fmt = f"{sound.format}/{sound.subtype}"
            total = int(sound.frames)
            first = 0 if utt.start is None else int(round(utt.start * rate))
            last = total if utt.end is None else min(total, int(round(utt.end * rate)))
            if first >= total and total > 0:
                return AudioFailure(
                    "empty",
                    f"{utt.audio}: segment starts at {utt.start} s, file is {total / rate:.3f} s",
                )
            frames = max(0, last - first)
            if frames / rate > max_seconds:
                return AudioFailure(
                    "too_long", f"{utt.audio}: {frames / rate:.3f} s (limit {max_seconds} s)"
                )
            if first:
                sound.seek(first)
            read = _read_mono(sound, frames, channels, rate, target_rate)
    except (RuntimeError, soundfile.LibsndfileError, ValueError, EOFError) as exc:
        return AudioFailure("unreadable", f"{utt.audio}: {_describe(exc, source)}")
    if read.frames == 0:
        return AudioFailure("empty", f"{utt.audio}: no samples")
    if read.non_finite:
        return AudioFailure("non_finite_samples", f"{utt.audio}: {read.non_finite} NaN/inf samples")
    samples = read.samples
    duration = samples.shape[0] / target_rate
    if samples.shape[0] == 0:
        return AudioFailure("empty", f"{utt.audio}: no samples after resampling")
    if duration < min_seconds:
        return AudioFailure("too_short", f"{utt.audio}: {duration:.3f} s (minimum {min_seconds} s)")
    if duration > max_seconds:
        return AudioFailure("too_long", f"{utt.audio}: {duration:.3f} s (limit {max_seconds} s)")
    return LoadedAudio(
        samples=samples,
        sample_rate=target_rate,
        duration=duration,
        sha256=sha256,
        original_sample_rate=rate,
        original_channels=channels,
        original_format=fmt,
    )


#: Frames decoded per block: what the streaming path holds besides its output
#: (1 MiB of float32 for a stereo file).
BLOCK_FRAMES = 1 << 17


@dataclass(frozen=True, eq=False)
class _MonoRead:
    """A decode's output (16 kHz mono float32), frames read and NaN/inf samples seen."""

    samples: np.ndarray
    frames: int
    non_finite: int


def _read_mono(sound: Any, frames: int, channels: int, rate: int, target_rate: int) -> _MonoRead:
    """Decode `frames` frames into one float32 array at `target_rate`, mixing channels
    and resampling one block at a time, so the only clip-length array is the output:
    about 4 bytes per output sample (issue 16: a 20-minute 48 kHz stereo file held ~10×
    that). The result is sample for sample what decoding the whole file, averaging the
    channels in float32 and one `soxr.resample(..., quality="HQ")` call give."""
    direct = rate == target_rate and channels == 1
    resampler = None
    if rate != target_rate:
        import soxr

        resampler = soxr.ResampleStream(rate, target_rate, 1, dtype="float32", quality="HQ")
    out = _Output(frames if rate == target_rate else math.ceil(frames * target_rate / rate) + 1)
    block = None if direct else np.empty((min(BLOCK_FRAMES, frames), channels), np.float32)
    read = bad = 0
    while read < frames:
        want = min(BLOCK_FRAMES, frames - read)
        # Mono at the target rate is decoded straight into the output.
        target = out.buffer[read : read + want, None] if block is None else block[:want]
        got = sound.read(want, dtype="float32", always_2d=True, out=target)
        n = int(got.shape[0])
        if n == 0:
            break
        bad += _non_finite(got)
        read += n
        if block is None:
            out.filled = read
        else:
            mono = got.mean(axis=1, dtype=np.float32) if channels > 1 else got[:, 0]
            out.append(mono if resampler is None else resampler.resample_chunk(mono))
        if n < want:
            break  # the file holds fewer frames than its header said
    if resampler is not None and read:
        out.append(resampler.resample_chunk(np.empty(0, np.float32), last=True))
    return _MonoRead(samples=out.result(), frames=read, non_finite=bad)


class _Output:
    """A float32 buffer of the expected length, filled in order; grown only if the
    resampler gives more than expected, copied at the end only if it gave much less."""

    def __init__(self, capacity: int) -> None:
        self.buffer: np.ndarray = np.empty(capacity, dtype=np.float32)
        self.filled = 0

    def append(self, chunk: np.ndarray) -> None:
        end = self.filled + int(chunk.shape[0])
        if end > self.buffer.shape[0]:
            grown = np.empty(end + end // 8, dtype=np.float32)
            grown[: self.filled] = self.buffer[: self.filled]
            self.buffer = grown
        self.buffer[self.filled : end] = chunk
        self.filled = end

    def result(self) -> np.ndarray:
        kept: np.ndarray = self.buffer[: self.filled]
        # A file shorter than its header said: do not keep the spare.
        return kept.copy() if self.buffer.shape[0] - self.filled > 16 else kept


def _non_finite(block: np.ndarray) -> int:
    """NaN/inf samples in a block (a block-sized temporary, never a clip-sized one)."""
    finite = np.isfinite(block)
    return 0 if finite.all() else int(finite.size - np.count_nonzero(finite))


#: `<_io.BytesIO object at 0x7f…>` in libsndfile's messages: an address that differs run
#: to run would make two runs' failure details (and their files) differ.
_OBJECT_REPR = re.compile(r"<[^<>]*? at 0x[0-9a-fA-F]+>")


def _without_addresses(exc: BaseException) -> str:
    return _OBJECT_REPR.sub("the file", str(exc))


def _describe(exc: BaseException, source: int | Path) -> str:
    """libsndfile's message without what differs run to run: an object's address, or
    the number of the descriptor the file was decoded from."""
    text = _without_addresses(exc)
    if isinstance(source, int):
        text = text.replace(f"Error opening {source!r}: ", "Error opening the file: ", 1)
    return text


_DONE = object()
#: Decoded samples the prefetcher may hold ahead of the consumer: a few long clips
#: (a 20-minute clip is 77 MB at 16 kHz float32), hundreds of short ones.
DEFAULT_AHEAD_BYTES = 256 * 2**20


def _nbytes(future: Future[LoadedAudio | AudioFailure]) -> int:
    """Bytes of samples a finished decode holds (0 for a failure or an exception)."""
    if future.exception() is not None:
        return 0
    result = future.result()
    return int(result.samples.nbytes) if isinstance(result, LoadedAudio) else 0


class AudioPrefetcher:
    """Decode clips ahead of the consumer, yielding `(utt, LoadedAudio | AudioFailure)`
    in input order.

    At most `depth` decoded clips, and at most `max_ahead_bytes` of decoded samples (but
    always one clip, however long), wait ahead of the consumer, so RSS stays flat however
    long the corpus or its clips are (eight 20-minute clips ahead would be 600 MB);
    `workers` threads decode in parallel (libsndfile and soxr release the GIL).
    The input iterable is consumed lazily in a background thread; an exception it raises
    (a malformed manifest row) is re-raised to the consumer at that position.
    Use as a context manager, or call `close()` when stopping early.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        utterances: Iterable[Utterance],
        *,
        depth: int = 8,
        workers: int = 1,
        max_ahead_bytes: int = DEFAULT_AHEAD_BYTES,
        **load_kwargs: Any,
    ) -> None:
        if depth < 1 or workers < 1:
            raise ValueError("depth and workers must be >= 1")
        self._max_ahead = max_ahead_bytes
        #: Bytes of decoded samples queued and not yet handed to the consumer.
        self.ahead_bytes = 0
        self._room = threading.Condition()
        self._root = root
        self._utterances = utterances
        self._kwargs = load_kwargs
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="earmark-audio")
        self._workers = workers
        self._thread = threading.Thread(target=self._produce, name="earmark-prefetch", daemon=True)
        self._started = False

    def _put(self, item: Any) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _admit_put(self, item: tuple[Utterance, Future[LoadedAudio | AudioFailure]]) -> bool:
        """Queue a clip once it is decoded and its samples fit in the byte budget."""
        future = item[1]
        while not self._stop.is_set():
            try:
                future.exception(timeout=0.1)
                break
            except FutureTimeout:
                continue
        else:
            return False
        size = _nbytes(future)
        with self._room:
            while self.ahead_bytes and self.ahead_bytes + size > self._max_ahead:
                if self._stop.is_set():
                    return False
                self._room.wait(0.1)
            self.ahead_bytes += size
        return self._put(item)

    def _release(self, size: int) -> None:
        with self._room:
            self.ahead_bytes -= size
            self._room.notify_all()

    def _produce(self) -> None:
        # Futures in flight beyond the queue are capped at `workers`, keeping memory bounded.
        pending: deque[tuple[Utterance, Future[LoadedAudio | AudioFailure]]] = deque()
        try:
            for utt in self._utterances:
                if self._stop.is_set():
                    return
                pending.append(
                    (utt, self._pool.submit(load_audio, self._root, utt, **self._kwargs))
                )
                if len(pending) > self._workers and not self._admit_put(pending.popleft()):
                    return
            while pending:
                if not self._admit_put(pending.popleft()):
                    return
            self._put(_DONE)
        except BaseException as exc:  # forwarded to the consumer, raised there
            while pending:
                if not self._put(pending.popleft()):
                    return
            self._put(exc)

    def __iter__(self) -> Iterator[tuple[Utterance, LoadedAudio | AudioFailure]]:
        if self._started:
            raise RuntimeError("an AudioPrefetcher can be iterated once")
        self._started = True
        self._thread.start()
        try:
            while True:
                if self._stop.is_set():
                    return
                try:
                    item = self._queue.get(timeout=0.1)
                except queue.Empty:
                    continue
                if item is _DONE:
                    return
                if isinstance(item, BaseException):
                    raise item
                utt, future = item
                self._release(_nbytes(future))  # handed over: no longer ahead
                try:
                    yield utt, future.result()
                finally:
                    # Nothing here keeps the clip alive while the next one is awaited.
                    del item, future
        finally:
            self.close()

    def close(self) -> None:
        self._stop.set()
        if self._started:
            self._thread.join(timeout=5)
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> AudioPrefetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
