#!/usr/bin/env python3
"""Generate earmark's bundled demo corpus with espeak-ng.

Writes `src/earmark/demo_corpus/`: FLAC clips (16 kHz mono, 16-bit), `manifest.jsonl` and
its `manifest.jsonl.meta.json` sidecar. Synthetic speech with known text in English,
Mandarin (Simplified, `cmn-latn-pinyin` voice: the plain `cmn` voice reads tone digits as
English numbers) and Irish, plus no-speech clips (digital silence and low noise, fixed
seed). Rerunning with the same espeak-ng, libsndfile and soxr gives the same bytes.

    python scripts/make_demo_corpus.py [--out DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import soundfile
import soxr

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from earmark.corpus.model import CorpusMeta, Source, Utterance  # noqa: E402
from earmark.corpus.writer import write_manifest  # noqa: E402

RATE = 16_000
NOISE_SEED = 20261130

# (id, voice, language, slices, text)
SPEECH: list[tuple[str, str, str, tuple[str, ...], str]] = [
    ("en-01", "en-us", "en", ("en",), "The quick brown fox jumps over the lazy dog."),
    ("en-02", "en-gb", "en", ("en",), "Please remind me to call the dentist tomorrow morning."),
    ("en-03", "en-us", "en", ("en",), "She sells fresh bread at the market every Saturday."),
    ("en-04", "en-gb", "en", ("en",), "Can you open the window before the meeting starts?"),
    ("en-05", "en-us", "en", ("en",), "The train to Dublin leaves from platform four."),
    ("en-06", "en-gb", "en", ("en",), "We walked along the river until it started to rain."),
    ("en-07", "en-us", "en", ("en",), "My favourite colour is green, but I also like blue."),
    ("en-08", "en-gb", "en", ("en",), "Turn left at the church, and the library is on your right."),
    (
        "en-09",
        "en-us",
        "en",
        ("en", "numbers"),
        "The ticket costs $25 and the concert is on 3 March 2024.",
    ),
    ("en-10", "en-gb", "en", ("en", "numbers"), "The meeting moved to 10:30 on Friday, 14 June."),
    ("en-11", "en-us", "en", ("en", "numbers"), "Call me on 555 0199 before 6 pm."),
    (
        "en-12",
        "en-gb",
        "en",
        ("en", "numbers"),
        "The population grew by 12.5% to 3,400,000 people.",
    ),
    ("zh-01", "cmn-latn-pinyin", "zh", ("zh",), "今天天气很好，我们去公园散步吧。"),
    ("zh-02", "cmn-latn-pinyin", "zh", ("zh",), "请问，火车站怎么走？"),
    ("zh-03", "cmn-latn-pinyin", "zh", ("zh",), "他每天早上都喝一杯咖啡。"),
    ("zh-04", "cmn-latn-pinyin", "zh", ("zh",), "这本书非常有意思，你应该读一读。"),
    ("zh-05", "cmn-latn-pinyin", "zh", ("zh",), "我们下个星期在北京开会。"),
    ("zh-06", "cmn-latn-pinyin", "zh", ("zh",), "你好！很高兴认识你。"),
    ("zh-07", "cmn-latn-pinyin", "zh", ("zh", "numbers"), "会议在2024年3月5日上午9点开始。"),
    ("zh-08", "cmn-latn-pinyin", "zh", ("zh", "numbers"), "这件衣服的价格是199元。"),
    ("ga-01", "ga", "ga", ("ga",), "Tá an t-athair ag obair i nGaillimh inniu."),
    ("ga-02", "ga", "ga", ("ga",), "Bhí an aimsir go hálainn ar an trá inné."),
    ("ga-03", "ga", "ga", ("ga",), "Chuaigh mé go dtí an siopa le mo mháthair."),
    ("ga-04", "ga", "ga", ("ga",), "Is maith liom an ceol traidisiúnta."),
    ("ga-05", "ga", "ga", ("ga",), "Tá an bhean ag léamh nuachtáin sa chistin."),
    ("ga-06", "ga", "ga", ("ga",), "Beidh cruinniú againn i mBaile Átha Cliath amárach."),
    ("ga-07", "ga", "ga", ("ga",), "Ar ól tú cupán tae ar maidin?"),
    ("ga-08", "ga", "ga", ("ga",), "Tá na páistí ag súgradh sa ghairdín."),
]

# (id, description, seconds): no-speech clips, reference text "".
NO_SPEECH: list[tuple[str, str, float]] = [
    ("nospeech-01", "digital silence", 3.0),
    ("nospeech-02", "white noise at -50 dBFS", 3.0),
    ("nospeech-03", "50 Hz hum and pink-ish noise at about -45 dBFS", 4.0),
]


def espeak_version() -> str:
    out = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True, check=True)
    return out.stdout.strip().split(":")[1].split("Data")[0].strip()


def synthesise(voice: str, text: str, work: Path) -> np.ndarray:
    wav = work / "clip.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-w", str(wav), "--", text], check=True)
    data, rate = soundfile.read(wav, dtype="float32", always_2d=True)
    mono = data.mean(axis=1)
    return np.asarray(soxr.resample(mono, rate, RATE, quality="HQ"), dtype=np.float32)


def no_speech(kind: str, seconds: float, rng: np.random.Generator) -> np.ndarray:
    n = int(seconds * RATE)
    if kind.startswith("digital silence"):
        return np.zeros(n, dtype=np.float32)
    if kind.startswith("white"):
        return (rng.standard_normal(n) * 10 ** (-50 / 20)).astype(np.float32)
    t = np.arange(n) / RATE
    white = rng.standard_normal(n)
    pinkish = np.cumsum(white)
    pinkish -= np.convolve(pinkish, np.ones(400) / 400, mode="same")  # remove drift
    pinkish /= np.max(np.abs(pinkish))
    mix = 0.004 * np.sin(2 * np.pi * 50 * t) + 0.004 * pinkish
    return mix.astype(np.float32)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "src" / "earmark" / "demo_corpus")
    args = parser.parse_args(argv)
    if shutil.which("espeak-ng") is None:
        print("espeak-ng is not installed (apt-get install espeak-ng)", file=sys.stderr)
        return 2
    out: Path = args.out
    audio_dir = out / "audio"
    if audio_dir.exists():
        shutil.rmtree(audio_dir)
    audio_dir.mkdir(parents=True)
    version = espeak_version()
    rng = np.random.default_rng(NOISE_SEED)
    rows: list[Utterance] = []
    source = Source(dataset="earmark-demo", split="test", revision="1", licence="MIT")

    def write(clip_id: str, samples: np.ndarray) -> tuple[str, float, str]:
        rel = f"audio/{clip_id}.flac"
        soundfile.write(out / rel, samples, RATE, format="FLAC", subtype="PCM_16")
        sha = hashlib.sha256((out / rel).read_bytes()).hexdigest()
        return rel, round(len(samples) / RATE, 3), sha

    with tempfile.TemporaryDirectory() as tmp:
        for clip_id, voice, language, slices, text in SPEECH:
            rel, duration, sha = write(clip_id, synthesise(voice, text, Path(tmp)))
            rows.append(
                Utterance(
                    id=clip_id,
                    audio=rel,
                    text=text,
                    language=language,
                    speaker=f"espeak-ng:{voice}",
                    slices=slices,
                    duration=duration,
                    sha256=sha,
                    source=source,
                    text_id=clip_id,
                )
            )
    for clip_id, kind, seconds in NO_SPEECH:
        rel, duration, sha = write(clip_id, no_speech(kind, seconds, rng))
        rows.append(
            Utterance(
                id=clip_id,
                audio=rel,
                text="",
                language="en",
                speaker=None,
                slices=("no-speech",),
                duration=duration,
                sha256=sha,
                source=source,
                text_id=clip_id,
                custom={"signal": kind},
            )
        )
    meta = CorpusMeta(
        dataset="earmark-demo",
        licence="MIT",
        consent_basis="synthetic speech, no human speakers (espeak-ng) and generated noise",
        redistribute_audio=True,
        redistribute_transcripts=True,
        creator="earmark developers",
        created="2026-11-30",
        selection_rule="all clips generated by scripts/make_demo_corpus.py",
        revision="1",
        notes=(
            f"Generated by scripts/make_demo_corpus.py with espeak-ng {version} "
            f"(voices en-us, en-gb, cmn-latn-pinyin, ga), resampled to 16 kHz mono with "
            f"soxr HQ, FLAC 16-bit. No-speech clips use numpy seed {NOISE_SEED}; they are "
            "labelled language 'en' (the language an engine is asked to expect) and "
            "slice 'no-speech'. Speech is synthetic: a smoke test of the pipeline, not a "
            "measure of real-world accuracy."
        ),
        extra={"espeak_ng_version": version, "noise_seed": NOISE_SEED},
    )
    count = write_manifest(out / "manifest.jsonl", rows, meta)
    size = sum(p.stat().st_size for p in audio_dir.iterdir())
    print(f"wrote {count} clips, {size / 1e6:.2f} MB of audio, to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
