"""Throughput of earmark's batch alignment counts against jiwer on the same synthetic data.

    python benchmarks/bench_alignment.py            # 100,000 pairs
    python benchmarks/bench_alignment.py --n 20000  # quicker

Pairs: ~15 words from a 3,000-word vocabulary, ~10% word errors (substitutions,
deletions, insertions), a fixed seed. Each method is timed on the same inputs in one
process; the totals are checked equal to jiwer's before any figure is printed.
Peak RSS (resource.getrusage) is read after earmark's runs and again after jiwer's.
"""

from __future__ import annotations

import argparse
import gc
import random
import resource
import string
import sys
import time
from collections.abc import Callable
from typing import Any

import jiwer

from earmark.metrics import count_errors_array, count_errors_many


def synthetic_pairs(n: int, seed: int = 0, error_rate: float = 0.10) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    vocab = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(3000)]
    third = error_rate / 3
    pairs = []
    for _ in range(n):
        ref = rng.choices(vocab, k=rng.randint(10, 20))
        hyp: list[str] = []
        for word in ref:
            roll = rng.random()
            if roll < third:
                hyp.append(rng.choice(vocab))
            elif roll < 2 * third:
                continue
            elif roll < 3 * third:
                hyp += [word, rng.choice(vocab)]
            else:
                hyp.append(word)
        pairs.append((" ".join(ref), " ".join(hyp)))
    return pairs


def timed(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="number of pairs")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs")
    args = parser.parse_args(argv)

    pairs = synthetic_pairs(args.n)
    refs = [r for r, _ in pairs]
    hyps = [h for _, h in pairs]
    n = len(pairs)

    t_words, ours_w = timed(lambda: count_errors_array(pairs, units="words"), args.repeats)
    t_chars, ours_c = timed(lambda: count_errors_array(pairs), args.repeats)
    t_many, _ = timed(lambda: count_errors_many(pairs, units="words"), args.repeats)
    peak_ours = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t_jw, jw = timed(lambda: jiwer.process_words(refs, hyps), args.repeats)
    t_jc, jc = timed(lambda: jiwer.process_characters(refs, hyps), args.repeats)

    for name, ours, ref in (("words", ours_w, jw), ("chars", ours_c, jc)):
        expected = [ref.substitutions, ref.deletions, ref.insertions, ref.hits]
        if ours.sum(axis=0).tolist() != expected:
            print(f"MISMATCH on {name}: {ours.sum(axis=0).tolist()} vs jiwer {expected}")
            return 1
    s, d, i, h = ours_w.sum(axis=0).tolist()
    print(f"{n:,} pairs, {s + d + h:,} reference words, WER {(s + d + i) / (s + d + h):.4f}")

    rows = [
        ("earmark count_errors_array words", t_words),
        ("earmark count_errors_many words", t_many),
        ("jiwer.process_words", t_jw),
        ("earmark count_errors_array chars", t_chars),
        ("jiwer.process_characters", t_jc),
        ("earmark WER+CER (array)", t_words + t_chars),
        ("jiwer WER+CER", t_jw + t_jc),
    ]
    print(f"{'method':36} {'seconds':>8} {'pairs/s':>12}")
    for name, seconds in rows:
        print(f"{name:36} {seconds:8.3f} {n / seconds:12,.0f}")
    print(
        f"speed-up words: {t_jw / t_words:.1f}x   chars: {t_jc / t_chars:.1f}x   "
        f"WER+CER: {(t_jw + t_jc) / (t_words + t_chars):.1f}x"
    )
    peak_all = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        f"peak RSS after earmark runs {peak_ours / 1024:.0f} MiB (data included), "
        f"after jiwer {peak_all / 1024:.0f} MiB (python {sys.version.split()[0]})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
