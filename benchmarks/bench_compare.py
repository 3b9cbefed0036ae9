"""Wall time of `earmark compare` on 12 arms x 100,000 utterances with B = 1,000.

    python benchmarks/bench_compare.py                 # 12 arms x 100,000, B = 1000
    python benchmarks/bench_compare.py --n 20000       # quicker
    python benchmarks/bench_compare.py --in-process    # time the compare() call instead
    python benchmarks/bench_compare.py --n 20000 --in-process --jobs 1 --profile p.out
                                                       # cProfile of one serial compare()
    python benchmarks/bench_compare.py --corpus /tmp/c100k --bootstrap-generator numpy-pcg64
                                                       # reuse the arm files written there
    python benchmarks/bench_compare.py --scaling       # 3x25k, 12x25k, 12x100k: growth

The synthetic corpus imitates seed 002's weight-type sweep: a reference arm at ~10% word
errors against the human reference (~15 words from a 3,000-word vocabulary, three
languages, two slices, clip durations), and 11 challengers that each change ~8% of the
reference arm's transcripts by a word or two (churn). Each arm is one predictions JSONL
file, written to a temporary folder first (not timed).

By default the timed part is the whole command a user runs, `earmark compare ARM... --out
DIR` in a fresh process (start-up and imports, reading every file, pairing the keys,
normalising (crude-v1) and counting, bootstrapping every figure (per arm, language and
slice) and every pair, the paired tests with MAPSSWE, diagnostics, and writing
compare.json and compare.md); peak RSS is the largest of that process and its workers.
`--in-process` times the `compare()` call in this process instead (what the README's
figure used to be). `--scaling` runs the whole command at 3 x 25k, 12 x 25k and 12 x 100k
(or the sizes given) and reports how time and peak RSS grow in arms x rows.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import resource
import shutil
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from earmark.file_comparison import compare

sys.path.insert(0, str(Path(__file__).parent))
from bench_cli_scoring import log_log_slope, measure  # noqa: E402


def _mutate(rng: random.Random, words: list[str], vocab: list[str], rate: float) -> list[str]:
    out: list[str] = []
    third = rate / 3
    for word in words:
        roll = rng.random()
        if roll < third:
            out.append(rng.choice(vocab))
        elif roll < 2 * third:
            continue
        elif roll < rate:
            out += [word, rng.choice(vocab)]
        else:
            out.append(word)
    return out


def write_corpus(folder: Path, n: int, arms: int, seed: int = 0) -> list[str]:
    """One predictions file per arm; returns the arm specs."""
    rng = random.Random(seed)
    vocab = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(3000)]
    langs = ["en", "de", "fr"]
    refs, ref_hyps, meta = [], [], []
    for i in range(n):
        words = rng.choices(vocab, k=rng.randint(10, 20))
        refs.append(" ".join(words))
        ref_hyps.append(_mutate(rng, words, vocab, 0.10))
        meta.append((langs[i % 3], ["read" if i % 2 else "spontaneous"], 1.0 + len(words) * 0.4))
    specs = []
    for a in range(arms):
        path = folder / f"arm{a:02d}.jsonl"
        with open(path, "w", encoding="utf-8") as handle:
            for i in range(n):
                hyp = ref_hyps[i]
                if a and rng.random() < 0.08:
                    hyp = _mutate(rng, hyp, vocab, 0.15) or hyp[:1]
                lang, slices, seconds = meta[i]
                row = {
                    "id": f"utt{i:06d}",
                    "reference": refs[i],
                    "hypothesis": " ".join(hyp),
                    "language": lang,
                    "slices": slices,
                    "audio_seconds": seconds,
                    "status": "ok",
                }
                handle.write(json.dumps(row) + "\n")
        specs.append(str(path))
    return specs


def _whole_process(specs: list[str], args: argparse.Namespace, out: Path) -> dict:
    command = [sys.executable, "-m", "earmark", "compare", *specs]
    command += ["--normalizer", args.normalizer, "--bootstrap", str(args.bootstrap)]
    command += ["--seed", "1", "--out", str(out), "--quiet"]
    if args.bootstrap_generator:
        command += ["--bootstrap-generator", args.bootstrap_generator]
    subprocess.run(command, check=True)
    return json.loads((out / "compare.json").read_text("utf-8"))


def _in_process(specs: list[str], args: argparse.Namespace, out: Path) -> dict:
    profile = cProfile.Profile() if args.profile else None
    if profile is not None:
        profile.enable()
    result = compare(
        specs,
        normalizer=args.normalizer,
        resamples=args.bootstrap,
        seed=1,
        out_dir=out,
        jobs=args.jobs,
        generator=args.bootstrap_generator,
    ).to_dict()
    if profile is not None:
        profile.disable()
        profile.dump_stats(args.profile)
        pstats.Stats(profile).sort_stats("tottime").print_stats(15)
    return result


def _corpus(folder: Path, args: argparse.Namespace) -> list[str]:
    """The arm files of this size in `folder`: reused when a previous run wrote them."""
    stamp = folder / "corpus.json"
    wanted = {"n": args.n, "arms": args.arms}
    if stamp.is_file() and json.loads(stamp.read_text("utf-8")).get("size") == wanted:
        return [str(folder / f"arm{a:02d}.jsonl") for a in range(args.arms)]
    folder.mkdir(parents=True, exist_ok=True)
    specs = write_corpus(folder, args.n, args.arms)
    stamp.write_text(json.dumps({"size": wanted}), "utf-8")
    return specs


def scaling(sizes: list[tuple[int, int]], args: argparse.Namespace) -> int:
    """The whole command at each (arms, rows): time and memory against arms x rows.

    CPU time (process and workers) is the figure that holds on a loaded machine; its
    fitted exponent in arms x rows should be 1 (linear). Memory has a floor (the
    interpreter, numpy, the modules), so its growth is judged per extra arm-row instead:
    the goal keeps per-arm counts, not rows, so the bytes per arm-row stay flat."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for arms, n in sizes:
            folder = Path(tmp) / f"{arms}x{n}"
            folder.mkdir()
            specs = write_corpus(folder, n, arms)
            command = [sys.executable, "-m", "earmark", "compare", *specs, "--quiet"]
            command += ["--normalizer", args.normalizer, "--bootstrap", str(args.bootstrap)]
            command += ["--seed", "1", "--out", str(folder / "out")]
            run = measure(command)
            rows.append((arms, n, run.wall, run.cpu, run.rss))
            shutil.rmtree(folder)
    print(f"earmark compare, whole process, B = {args.bootstrap}, {args.normalizer}")
    print(f"{'arms':>5} {'rows':>9} {'wall s':>8} {'CPU s':>8} {'peak RSS':>10} {'us/arm-row':>11}")
    for arms, n, wall, cpu, rss in rows:
        per = cpu / (arms * n) * 1e6
        print(f"{arms:>5} {n:>9,} {wall:8.1f} {cpu:8.1f} {rss:7.0f} MiB {per:11.2f}")
    cells = [float(arms * n) for arms, n, *_ in rows]
    k_cpu = log_log_slope(cells, [cpu for *_, cpu, _ in rows])
    k_wall = log_log_slope(cells, [wall for *_, wall, _, _ in rows])
    (a0, n0, *_, r0), (a1, n1, *_, r1) = rows[0], rows[-1]
    per_cell = (r1 - r0) * 1024 * 1024 / (a1 * n1 - a0 * n0)
    linear = k_cpu <= 1.1
    print(
        f"goal (issue 25): time linear in arms x rows: CPU ~ (arms x rows)^{k_cpu:.2f}, "
        f"wall ^{k_wall:.2f}  {'met' if linear else 'NOT met'} (exponent <= 1.1, by CPU)"
    )
    k_rss = log_log_slope(cells, [rss for *_, rss in rows])
    print(
        f"goal (issue 25): memory linear in arms x rows: peak RSS ~ (arms x rows)^{k_rss:.2f}, "
        f"{per_cell:.0f} B per extra arm-row ({a0} x {n0:,} -> {a1} x {n1:,})  "
        f"{'met' if k_rss <= 1.1 else 'NOT met'} (exponent <= 1.1; the floor of modules and "
        "interpreter makes it less than 1)"
    )
    return 0


def _sizes(text: str, parser: argparse.ArgumentParser) -> list[tuple[int, int]]:
    """`3x25000,12x25000`: (arms, rows) pairs, each at least 1; anything else is refused."""
    sizes = []
    for size in text.split(","):
        arms, _, rows = size.strip().partition("x")
        if not (arms.isdigit() and rows.isdigit() and int(arms) >= 1 and int(rows) >= 1):
            parser.error(f"--scaling: {size!r} is not ARMSxROWS (e.g. 12x25000)")
        sizes.append((int(arms), int(rows)))
    if len(sizes) < 2:
        parser.error("--scaling needs at least two sizes to fit a growth")
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--arms", type=int, default=12)
    parser.add_argument("--bootstrap", type=int, default=1_000)
    parser.add_argument("--normalizer", default="crude-v1")
    parser.add_argument(
        "--in-process", action="store_true", help="time the compare() call, not the command"
    )
    parser.add_argument(
        "--jobs", type=int, default=None, help="with --in-process: worker processes"
    )
    parser.add_argument(
        "--profile", metavar="FILE", help="with --in-process: write cProfile stats to FILE"
    )
    parser.add_argument(
        "--bootstrap-generator",
        help="draw every interval with this generator (default: the default)",
    )
    parser.add_argument(
        "--corpus",
        metavar="DIR",
        help="write the arm files in DIR, or reuse them when DIR holds this size's files",
    )
    parser.add_argument(
        "--scaling",
        metavar="AxN,...",
        nargs="?",
        const="3x25000,12x25000,12x100000",
        help="time and memory of the whole command at each arms x rows (default "
        "3x25000,12x25000,12x100000) and their growth in arms x rows",
    )
    args = parser.parse_args(argv)
    if args.scaling:
        return scaling(_sizes(args.scaling, parser), args)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        specs = _corpus(Path(args.corpus) if args.corpus else folder, args)
        print(f"{args.arms} x {args.n:,} rows ready in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        if args.in_process:
            result = _in_process(specs, args, folder / "out")
            what = "compare() in this process"
            usage = resource.RUSAGE_SELF
        else:
            result = _whole_process(specs, args, folder / "out")
            what = "earmark compare, whole process"
            usage = resource.RUSAGE_CHILDREN
        elapsed = time.perf_counter() - started
    rss = resource.getrusage(usage).ru_maxrss / 1024
    pairs = sum(p.get("difference") is not None for p in result["pairs"])
    print(
        f"{what}: {args.arms} arms x {result['n_shared']:,} shared utterances, "
        f"B = {args.bootstrap}, {args.normalizer}, {pairs} paired figures: {elapsed:.1f} s "
        f"(peak RSS {rss:.0f} MiB)"
    )
    exact = [round(a["exact_match_vs_reference"]["value"], 4) for a in result["arms"].values()]
    print(f"exact match vs reference arm: {exact}")
    if not args.in_process:
        cpu = resource.getrusage(usage)
        print(f"CPU (process and workers): {cpu.ru_utime + cpu.ru_stime:.1f} s")
        full = args.arms == 12 and args.n == 100_000 and args.bootstrap == 1_000
        mb = rss * 1.048576
        if full:
            print(
                f"goal (issue 25, idle 2-core machine): <= 15 s: {elapsed:.1f} s "
                f"{'met' if elapsed <= 15 else 'NOT met'}; peak RSS <= 600 MB: {mb:.0f} MB "
                f"{'met' if mb <= 600 else 'NOT met'}"
            )
        else:
            print("goals (<= 15 s, peak RSS <= 600 MB) are for 12 x 100k, B = 1,000: not judged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
