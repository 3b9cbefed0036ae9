"""What `earmark.wer` costs a user who scores a few pairs: a fresh Python process, whole.

    python benchmarks/bench_front_door.py

A notebook or a script that scores three pairs pays for `import earmark` and the first
call, not for the scoring itself. This times `python -c "import earmark; earmark.wer(...)"`
against `python -c "import jiwer; jiwer.wer(...)"` on the same three pairs, alternated,
best of 5 (a shared machine's noise is not either library's cost), with bytecode compiled
once into a private cache first, as an installed package has it. Both print the same WER
(checked). Goal: well under a second (issue 13); the ratio to jiwer is reported as it is.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

REFS = ["a b c", "hello world", "the cat"]
HYPS = ["a x c", "hello", "the cat sat"]
PROGRAMS = {
    "earmark.wer": f"import earmark\nprint(earmark.wer({REFS!r}, {HYPS!r}))",
    "jiwer.wer": f"import jiwer\nprint(jiwer.wer({REFS!r}, {HYPS!r}))",
}


def main() -> int:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "PYTHONPYCACHEPREFIX": cache}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        printed = {
            name: subprocess.run(
                [sys.executable, "-c", code], check=True, env=env, capture_output=True, text=True
            ).stdout.strip()
            for name, code in PROGRAMS.items()
        }
        assert printed["earmark.wer"] == printed["jiwer.wer"] == str(3 / 7), printed
        walls: dict[str, list[float]] = {name: [] for name in PROGRAMS}
        for _ in range(5):
            for name, code in PROGRAMS.items():
                start = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-c", code], check=True, env=env, stdout=subprocess.DEVNULL
                )
                walls[name].append(time.perf_counter() - start)
    best = {name: min(times) for name, times in walls.items()}
    print(f"three pairs in a fresh process (WER {printed['jiwer.wer']}), best of 5:")
    for name, wall in best.items():
        print(f"  {name:12s} {wall:.3f} s")
    ratio = best["earmark.wer"] / best["jiwer.wer"]
    verdict = "met" if best["earmark.wer"] < 1.0 else "NOT met"
    print(f"earmark / jiwer: {ratio:.2f}x the wall; under a second: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
