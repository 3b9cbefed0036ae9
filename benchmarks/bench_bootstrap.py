"""Time earmark's bootstrap CI on one core against a naive index-gather bootstrap.

    python benchmarks/bench_bootstrap.py                 # 10,000 resamples x 100,000 clips
    python benchmarks/bench_bootstrap.py --clips 20000   # quicker
    python benchmarks/bench_bootstrap.py --workers 0     # earmark on every core (wall)
    python benchmarks/bench_bootstrap.py --generator numpy-pcg64-poisson --skip-naive
    python benchmarks/bench_bootstrap.py --generator all --skip-naive   # both, side by side
    python benchmarks/bench_bootstrap.py --cli 100000    # whole `earmark score` runs, per generator

Goal (issue 12): 10,000 x 100,000 distinct clips under 5 s of CPU per metric. Issue 25:
the `numpy-pcg64-poisson` generator (`--generator`) draws the same law faster.

Corpora (synthetic, seeded): WER-like counts (~13 words, ~15% errors), CER-like counts
(~60 characters), the same WER corpus with every clip scored three times (clustered), and
an adversarial corpus where every clip's (errors, ref_units) pair is distinct (the engine's
slowest path). The naive reference draws n indices per replicate and gathers packed int64
counts in chunks, the textbook implementation. The delta-method SE is printed beside the
bootstrap SD as a cross-check.
"""

from __future__ import annotations

import os

# One core: set before numpy loads its BLAS.
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

import argparse  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from earmark.stats.bootstrap import bootstrap_cis  # noqa: E402
from earmark.stats.delta_method import delta_method_se  # noqa: E402
from earmark.stats.settings import DEFAULT_GENERATOR, GENERATORS  # noqa: E402


def naive_bootstrap_sd(errors: np.ndarray, ref: np.ndarray, resamples: int, seed: int) -> float:
    """Index-gather bootstrap: n random indices per replicate, packed (errors, ref) sums."""
    rng = np.random.default_rng(seed)
    n = errors.size
    packed = (errors.astype(np.int64) << 32) | ref.astype(np.int64)
    chunk = max(1, (1 << 21) // n)
    ratios = np.empty(resamples)
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        sums = packed[rng.integers(0, n, size=(size, n), dtype=np.int32)].sum(axis=1)
        ratios[start : start + size] = (sums >> 32) / (sums & 0xFFFFFFFF)
    return float(ratios.std(ddof=1))


def corpora(clips: int, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray, Any]]:
    rng = np.random.default_rng(seed)
    ref = rng.poisson(12, clips) + 1
    errors = rng.binomial(ref, 0.15) + rng.poisson(0.3, clips)
    ref_chars = rng.poisson(60, clips) + 1
    errors_chars = rng.binomial(ref_chars, 0.12) + rng.poisson(1.0, clips)
    repeats = 3
    clip_rate = rng.beta(2, 11, clips)
    ref_rep = np.repeat(ref, repeats)
    errors_rep = rng.binomial(ref_rep, np.repeat(clip_rate, repeats))
    ids = np.repeat(np.arange(clips), repeats)
    long_ref = rng.integers(50, 2000, clips)  # long-form clips: nearly every pair distinct
    long_err = rng.binomial(long_ref, rng.random(clips) * 0.5)
    # Drawn last, so the corpora above stay the ones measured before it was added.
    # Characters of ~15-word pairs at ~9% CER, errors overdispersed (whole words go wrong):
    # thousands of distinct pairs, as bench_cli_scoring's corpus has.
    ref_long_chars = np.maximum(1, np.rint(rng.normal(116, 20.8, clips))).astype(np.int64)
    errors_long_chars = rng.poisson(rng.gamma(2.2, ref_long_chars * 0.0908 / 2.2))
    return {
        "WER-like, unclustered": (errors, ref, None),
        "CER-like, unclustered": (errors_chars, ref_chars, None),
        "CER-like, ~116 chars, overdispersed": (errors_long_chars, ref_long_chars, None),
        f"WER-like, {repeats} repeats per clip (clustered)": (errors_rep, ref_rep, ids),
        "long-form, ~all pairs distinct (worst case)": (long_err, long_ref, None),
    }


def timed(run: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds of this process, value): CPU time resists a busy host."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = run()
    return time.perf_counter() - wall, time.process_time() - cpu, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20260926)
    parser.add_argument("--skip-naive", action="store_true")
    parser.add_argument(
        "--workers", type=int, default=1, help="earmark's threads (0: every usable core)"
    )
    parser.add_argument(
        "--generator", default=DEFAULT_GENERATOR, choices=[*GENERATORS, "all"], help="earmark's"
    )
    parser.add_argument(
        "--cli",
        type=int,
        metavar="PAIRS",
        help="instead: `earmark score --normalizer none` of bench_cli_scoring's PAIRS pairs as "
        "whole processes, --bootstrap 0 and each generator, alternated (median of --repeats)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="with --cli")
    args = parser.parse_args()
    generators = list(GENERATORS) if args.generator == "all" else [args.generator]
    if args.cli:
        whole_processes(args.cli, args.repeats)
        return
    try:  # belt and braces: also cap an already-loaded BLAS pool
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:
        pass

    workers = None if args.workers == 0 else args.workers
    threads = "every core" if workers is None else f"{workers} thread(s)"
    print(
        f"numpy {np.__version__}; {args.resamples:,} resamples x {args.clips:,} clips; "
        f"earmark on {threads}, naive on 1; load average {os.getloadavg()[0]:.2f}"
    )
    header = (
        f"{'corpus':44} {'generator':19} {'rows':>8} {'distinct':>8} {'earmark s':>14}"
        f" {'naive s':>14} {'boot SD':>10} {'delta SE':>10}"
    )
    print("seconds are wall / CPU")
    print(header)
    print("-" * len(header))
    for name, (errors, ref, clusters) in corpora(args.clips, args.seed).items():
        for generator in generators:
            _row(name, generator, errors, ref, clusters, args, workers)


def _row(
    name: str,
    generator: str,
    errors: np.ndarray,
    ref: np.ndarray,
    clusters: Any,
    args: argparse.Namespace,
    workers: int | None,
) -> None:
    """Time one corpus with one generator and print its line."""
    wall, cpu, result = timed(
        lambda: bootstrap_cis(
            {"rate": (errors, ref)},
            clusters=clusters,
            resamples=args.resamples,
            seed=args.seed,
            workers=workers,
            generator=generator,
        )["rate"]
    )
    delta = delta_method_se(errors, ref, clusters=clusters)
    # The naive bootstrap resamples the same units: per-clip totals when clustered.
    keys = np.arange(errors.size) if clusters is None else clusters
    clip_errors = np.bincount(keys, weights=errors).astype(np.int64)
    clip_ref = np.bincount(keys, weights=ref).astype(np.int64)
    distinct = np.unique(np.stack([clip_errors, clip_ref]), axis=1).shape[1]
    naive = "-"
    if not args.skip_naive:
        naive_wall, naive_cpu, _ = timed(
            lambda: naive_bootstrap_sd(clip_errors, clip_ref, args.resamples, args.seed)
        )
        naive = f"{naive_wall:.2f} / {naive_cpu:.2f}"
    print(
        f"{name:44} {generator:19} {errors.size:>8,} {distinct:>8,}"
        f" {f'{wall:.2f} / {cpu:.2f}':>14} {naive:>14} {result.standard_error:>10.3e}"
        f" {delta:>10.3e}"
    )


#: A whole `earmark score` run whose intervals are drawn by the generator named in argv[1]
#: (no flag names it yet: the metric's bootstrap call is wrapped to pass it).
SCORE_WITH = r"""
import sys
import earmark.scoring.metric as metric
drawn = metric.bootstrap_ci
metric.bootstrap_ci = lambda *a, **k: drawn(*a, **{**k, "generator": sys.argv[1]})
from earmark.cli import main
sys.exit(main(sys.argv[2:]))
"""


def whole_processes(pairs: int, repeats: int) -> None:
    """CPU seconds of whole `earmark score` processes beside bench_cli_scoring's jiwer peer
    (alternated): the bootstrap's share per generator, and each run's ratio to jiwer."""
    import statistics
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from bench_cli_scoring import JIWER_SCRIPT, write_corpus

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "pairs.jsonl"
        write_corpus(data, pairs)
        base = ["score", "--quiet", str(data), "--normalizer", "none", "--out"]
        runs = {"jiwer": ["-c", JIWER_SCRIPT, str(data)]}
        runs["--bootstrap 0"] = ["-c", SCORE_WITH, "numpy-pcg64", *base, f"{tmp}/b0"]
        runs["--bootstrap 0"] += ["--bootstrap", "0"]
        runs |= {g: ["-c", SCORE_WITH, g, *base, f"{tmp}/{g}"] for g in GENERATORS}
        cpu: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(repeats):
            for name, argv in runs.items():
                proc = subprocess.Popen([sys.executable, *argv], stdout=subprocess.DEVNULL)
                _, status, usage = os.wait4(proc.pid, 0)
                if os.waitstatus_to_exitcode(status) != 0:
                    raise SystemExit(f"{name} failed")
                cpu[name].append(usage.ru_utime + usage.ru_stime)
    print(
        f"earmark score --normalizer none, {pairs:,} pairs, CPU seconds (median of {repeats});"
        f" load average {os.getloadavg()[0]:.2f}"
    )
    floor = statistics.median(cpu["--bootstrap 0"])
    jiwer = statistics.median(cpu["jiwer"])
    for name, seconds in cpu.items():
        median = statistics.median(seconds)
        extra = "" if name in ("jiwer", "--bootstrap 0") else f"  bootstrap {median - floor:.2f}"
        print(f"  {name:22} {median:6.2f}  jiwer / this {jiwer / median:5.2f}x{extra}")


if __name__ == "__main__":
    main()
