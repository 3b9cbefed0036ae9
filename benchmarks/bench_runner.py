"""Harness overhead and memory growth of `earmark run` (issue: running systems).

1. Overhead: the same tiny.en arm (int8, beam 1, temperature 0) over the same English
   demo clips, earmark's arm runner (in this process: prefetching, store fsync per row,
   cache keys, timing) vs a bare faster-whisper loop (soundfile + soxr decode, transcribe)
   in the same process. Model load is excluded from both. Goal: <= 5% slower.
2. Memory: peak RSS of an arm's process over the corpus vs the corpus repeated 10 times
   (distinct ids). Goal: < 10% more peak RSS.

    python benchmarks/bench_runner.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from earmark.corpus.demo import demo_audio_root, demo_manifest_path
from earmark.corpus.manifest import read_manifest, read_meta
from earmark.corpus.writer import write_manifest
from earmark.engines.spec import parse_arm_spec

ARM = "faster-whisper:bundled:tiny.en?compute_type=int8&beam_size=1&temperature=0&name=tiny"


def english_rows():
    return [u for u in read_manifest(demo_manifest_path()) if u.language == "en"]


def bare_loop(rows) -> float:
    import soundfile as sf
    import soxr
    from faster_whisper import WhisperModel

    from earmark.testing.tiny_whisper import bundled_tiny_en_dir

    model = WhisperModel(str(bundled_tiny_en_dir()), device="cpu", compute_type="int8")
    start = time.perf_counter()
    for u in rows:
        audio, rate = sf.read(str(demo_audio_root() / u.audio), dtype="float32")
        if rate != 16000:
            audio = soxr.resample(audio, rate, 16000)
        segments, _ = model.transcribe(audio, language="en", beam_size=1, temperature=0.0)
        " ".join(s.text for s in segments)
    return time.perf_counter() - start


def earmark_arm(rows, out: Path) -> float:
    from earmark.execution.arm_worker import run_arm
    from earmark.execution.plan import RunPlan

    plan = RunPlan(
        manifest=str(demo_manifest_path()),
        audio_root=str(demo_audio_root()),
        arms=(parse_arm_spec(ARM),),
        bootstrap=0,
    )
    start = time.perf_counter()
    run_arm(plan, plan.arms[0], rows, out, quiet=True)
    wall = time.perf_counter() - start
    resources = json.loads((out / "arms" / "tiny" / "resources.json").read_text())
    return wall - resources["load_seconds"]


def peak_rss(manifest: Path, out: Path) -> int:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "earmark",
            "run",
            "--manifest",
            str(manifest),
            "--audio-root",
            str(demo_audio_root()),
            "--arm",
            ARM,
            "--bootstrap",
            "0",
            "--out",
            str(out),
            "--quiet",
        ],
        check=True,
    )
    return json.loads((out / "arms" / "tiny" / "resources.json").read_text())["peak_rss_bytes"]


def main() -> None:
    rows = english_rows()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        bare_loop(rows[:2])  # warm caches
        bare, harness = [], []
        for k in range(2):
            bare.append(bare_loop(rows))
            harness.append(earmark_arm(rows, tmp_path / f"run{k}"))
        b, h = min(bare), min(harness)
        print(
            f"clips: {len(rows)}; bare faster-whisper loop {b:.2f} s, earmark arm runner "
            f"{h:.2f} s (best of 2, model load excluded)"
        )
        print(f"harness overhead: {100 * (h / b - 1):+.1f}% (goal <= +5%)")

        meta = read_meta(demo_manifest_path())
        small, big = tmp_path / "x1.jsonl", tmp_path / "x10.jsonl"
        write_manifest(small, rows, meta)
        write_manifest(big, (replace(u, id=f"{u.id}-{k}") for k in range(10) for u in rows), meta)
        r1 = peak_rss(small, tmp_path / "rss1")
        r10 = peak_rss(big, tmp_path / "rss10")
        print(
            f"peak RSS of the arm process: {len(rows)} clips {r1 / 2**20:.0f} MiB, "
            f"{10 * len(rows)} clips {r10 / 2**20:.0f} MiB: {100 * (r10 / r1 - 1):+.1f}% "
            "(goal < +10%)"
        )


if __name__ == "__main__":
    main()
