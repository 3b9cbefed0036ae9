"""End-to-end scoring throughput: earmark vs jiwer on the same 100,000 synthetic pairs.

Goal (issue: scoring core): earmark's scorer (WER and CER with S/D/I, one normaliser,
raw view included) at >= 3x the throughput of `jiwer.process_words` +
`jiwer.process_characters`, with lower peak RSS. Each side runs in its own fresh process
so peak RSS is its own. Run:

    python benchmarks/bench_scoring.py [--pairs 100000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

WORKER = r"""
import json, random, resource, sys, time
n, which = int(sys.argv[1]), sys.argv[2]
rng = random.Random(2026)
vocab = ["w%d" % i for i in range(3000)]
refs, hyps = [], []
for _ in range(n):
    ref = [rng.choice(vocab) for _ in range(15)]
    hyp = []
    for w in ref:
        r = rng.random()
        if r < 0.04: continue                       # deletion
        hyp.append(rng.choice(vocab) if r < 0.08 else w)   # substitution
        if rng.random() < 0.02: hyp.append(rng.choice(vocab))  # insertion
    refs.append(" ".join(ref).capitalize() + ".")
    hyps.append(" ".join(hyp))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
if which == "earmark":
    from earmark.formats.rows import ScoringRow
    from earmark.scoring.options import ScoringOptions
    from earmark.scoring.policy import NormalizerPolicy
    from earmark.scoring.scorer import score_rows
    from earmark.stats.settings import BootstrapSettings
    rows = [ScoringRow(id=str(i), reference=r, hypothesis=h) for i, (r, h) in enumerate(zip(refs, hyps))]
    res = score_rows(rows, ScoringOptions(policy=NormalizerPolicy("crude-v1"),
                                          bootstrap=BootstrapSettings(resamples=0),
                                          by_slice=False))
    v = res.to_dict()["overall"]["views"]["normalized"]
    out = {"wer": v["wer"]["value"], "cer": v["cer"]["value"]}
else:
    import jiwer
    w = jiwer.process_words(refs, hyps)
    c = jiwer.process_characters(refs, hyps)
    out = {"wer": w.wer, "cer": c.cer}
elapsed = time.perf_counter() - t0
out.update(seconds=elapsed, peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           start_rss_mib=base / 1024)
print(json.dumps(out))
"""


def run(which: str, n: int) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", WORKER, str(n), which], capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=100_000)
    args = parser.parse_args()
    e = run("earmark", args.pairs)
    j = run("jiwer", args.pairs)
    print(f"pairs: {args.pairs}")
    print(
        f"earmark score_rows (crude-v1: raw + normalized views, WER+CER, S/D/I): "
        f"{e['seconds']:.2f} s = {args.pairs / e['seconds']:,.0f} pairs/s, "
        f"peak RSS {e['peak_rss_mib']:.0f} MiB (WER {e['wer']:.4f}, CER {e['cer']:.4f})"
    )
    print(
        f"jiwer process_words + process_characters (raw text only):              "
        f"{j['seconds']:.2f} s = {args.pairs / j['seconds']:,.0f} pairs/s, "
        f"peak RSS {j['peak_rss_mib']:.0f} MiB (WER {j['wer']:.4f}, CER {j['cer']:.4f})"
    )
    print(f"throughput ratio earmark/jiwer: {j['seconds'] / e['seconds']:.2f}x (goal >= 3x)")
    print(f"peak RSS earmark/jiwer: {e['peak_rss_mib'] / j['peak_rss_mib']:.2f} (goal < 1)")


if __name__ == "__main__":
    main()
