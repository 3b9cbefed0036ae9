#!/usr/bin/env python3
"""Peak memory and time of validating (and hashing) a large manifest.

Writes a synthetic manifest of N rows (default 1,000,000: ids, audio paths, mixed-script
text, speakers, slices, durations, sha256, source) into a temporary folder, then runs
`validate_manifest` and `manifest_sha256` each in a fresh child process and reports the
child's peak RSS (ru_maxrss) and wall time. Target: validation of 1M rows under 300 MB.

    python benchmarks/bench_manifest.py [--rows 1000000] [--limit-mb 300]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = """
import json, resource, sys, time
sys.path.insert(0, {src!r})
from earmark.corpus.manifest import manifest_sha256
from earmark.corpus.validation import validate_manifest
start = time.perf_counter()
if {what!r} == "validate":
    report = validate_manifest({path!r})
    summary = {{"rows": report.rows, "speakers": report.speakers, "ok": report.ok,
               "sha256": report.sha256}}
else:
    summary = {{"sha256": manifest_sha256({path!r})}}
seconds = time.perf_counter() - start
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"seconds": seconds, "peak_rss_mb": peak_kb / 1024, **summary}}))
"""

TEXTS = [
    "The ticket costs $25 and the concert is on 3 March 2024.",
    "今天天气很好，我们去公园散步吧。",
    "Tá an t-athair ag obair i nGaillimh inniu.",
    "",
]


def write_manifest(path: Path, rows: int) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for i in range(rows):
            row = {
                "id": f"utt-{i:07d}",
                "audio": f"audio/{i % 1000:03d}/utt-{i:07d}.flac",
                "text": TEXTS[i % len(TEXTS)],
                "language": ("en", "zh", "ga", "en")[i % 4],
                "speaker": f"spk-{i % 5000}",
                "slices": ["read", ("en", "zh", "ga", "no-speech")[i % 4]],
                "duration": round(2 + (i % 400) / 100, 2),
                "sha256": hashlib.sha256(str(i).encode()).hexdigest(),
                "source": {"dataset": "bench", "split": "test", "licence": "CC0-1.0"},
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    meta = {"dataset": "bench", "licence": "CC0-1.0", "consent_basis": "synthetic rows"}
    Path(f"{path}.meta.json").write_text(json.dumps(meta), encoding="utf-8")


def run_child(what: str, path: Path) -> dict[str, object]:
    code = CHILD.format(src=str(REPO / "src"), what=what, path=str(path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--limit-mb", type=float, default=300.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        start = time.perf_counter()
        write_manifest(path, args.rows)
        size_mb = path.stat().st_size / 1e6
        print(f"wrote {args.rows} rows ({size_mb:.0f} MB) in {time.perf_counter() - start:.1f} s")
        validate = run_child("validate", path)
        hashed = run_child("hash", path)
    assert validate["sha256"] == hashed["sha256"]
    for name, result in (("validate_manifest", validate), ("manifest_sha256", hashed)):
        rate = args.rows / float(result["seconds"])  # type: ignore[arg-type]
        print(
            f"{name:18s} {result['seconds']:.1f} s ({rate:,.0f} rows/s), "
            f"peak RSS {result['peak_rss_mb']:.0f} MB"
        )
    peak = float(validate["peak_rss_mb"])  # type: ignore[arg-type]
    verdict = "OK" if peak < args.limit_mb else "OVER"
    print(f"{verdict}: validation peak RSS {peak:.0f} MB vs limit {args.limit_mb:.0f} MB")
    return 0 if peak < args.limit_mb else 1


if __name__ == "__main__":
    sys.exit(main())
