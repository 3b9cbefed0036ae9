"""What GLM alternates cost the aligner: `align_slots` against `align_sclite`, per pair.

    python benchmarks/bench_glm.py

`--glm` scores each reference word as a slot that may hold alternates (`{ a / b }`) or be
optional; `align_slots` aligns those at sclite's weights, where `align_sclite` aligns plain
words. Both run here on the same 2,000 fifteen-word pairs (every reference word has two
alternates for `align_slots`, the first of them for `align_sclite`), best of 5 in one
process. With one alternate per slot the two give identical alignments (checked first, as
`tests/scoring/test_glm.py` pins on random pairs). Goal: alternates cost at most a few
times the plain alignment (they were 0.04 vs 0.036 ms a pair when this was a test).
"""

from __future__ import annotations

import random
import sys
import time

from earmark.metrics.sclite_alignment import align_sclite
from earmark.metrics.slot_alignment import Slot, align_slots


def main() -> int:
    rng = random.Random(3)
    vocab = [f"w{k}" for k in range(30)]
    pairs = []
    for _ in range(2000):
        ref = [Slot((rng.choice(vocab), rng.choice(vocab))) for _ in range(15)]
        pairs.append((ref, [rng.choice(vocab) for _ in range(15)]))
    plain = [([slot.accepts[0] for slot in ref], hyp) for ref, hyp in pairs]
    singles = [([Slot((word,)) for word in ref], hyp) for ref, hyp in plain]
    for (ref, hyp), (words, _) in zip(singles, plain, strict=True):
        assert align_slots(ref, hyp) == align_sclite(words, hyp)

    def best(run, items) -> float:
        walls = []
        for _ in range(5):
            start = time.perf_counter()
            for ref, hyp in items:
                run(ref, hyp)
            walls.append(time.perf_counter() - start)
        return min(walls) / len(items) * 1e3

    slots, sclite = best(align_slots, pairs), best(align_sclite, plain)
    print(f"2,000 fifteen-word pairs, best of 5: align_slots {slots:.4f} ms a pair (two")
    print(f"alternates a slot), align_sclite {sclite:.4f} ms a pair: {slots / sclite:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
