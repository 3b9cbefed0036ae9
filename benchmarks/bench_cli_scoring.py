"""`earmark score` as the user runs it, against jiwer, whole processes, in one run.

    python benchmarks/bench_cli_scoring.py                      # 100,000 pairs, median of 3
    python benchmarks/bench_cli_scoring.py --pairs 20000 --repeats 1
    python benchmarks/bench_cli_scoring.py --scaling            # 10k / 100k / 1M, the slope

The corpus: N distinct random pairs (seeded), ~15 words each with ~10% word errors, in a
JSONL file of {id, reference, hypothesis}. Every command is a fresh process started by
this script; its wall time is measured around it and its peak RSS is its own (`wait4`).
The commands run alternately (A B C D, A B C D, ...), so a load spike on a shared host
hits them alike, and each figure is the median of `--repeats` runs. earmark's bytecode is
compiled once before timing (into a private PYTHONPYCACHEPREFIX), as an installed package's
is, so a host with PYTHONDONTWRITEBYTECODE=1 does not charge earmark a recompile per run
that jiwer (installed, compiled) never pays:

- jiwer: read the JSONL (json per line), `process_words` + `process_characters`;
- `earmark score FILE --normalizer none --bootstrap 0 --out D` (every view,
  predictions.jsonl, results.json, results.md, error analysis);
- `earmark score FILE --normalizer none --out D` (default 10,000 resamples: CIs on
  every reported rate);
- `earmark score FILE --normalizer en-v1 --out D` (default resamples too).

Goals (issue 12), as ratios against jiwer measured in the same run: the first earmark
row at >= 5x jiwer's throughput, the second no slower than jiwer, peak RSS below jiwer's.
`--scaling` scores 10k, 100k and 1M pairs (`--normalizer none --bootstrap 0`) and reports
the time per pair, the fitted exponent of time in pairs (1.0 = linear), peak RSS and the
peak RSS each extra pair adds. `earmark score` streams the file (2,000 rows at a time,
`earmark.scoring.scorer.CorpusScorer`): what grows with the corpus is each row's counts
and codes (~100 B), an 8-byte digest of its id (for repeated ids and the bootstrap's
clusters; the file is read again only if two digests match), the error analysis's edit
tallies, which grow with the distinct (reference, hypothesis) word pairs and inserted and
deleted words (this corpus's random vocabulary makes nearly every substitution a new
pair: ~200 B a row; real transcripts repeat their confusions), and, while the figures
are computed at the end, a few corpus-sized arrays (~60 B a row).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

JIWER_SCRIPT = r"""
import json, sys
import jiwer
refs, hyps = [], []
with open(sys.argv[1], encoding="utf-8") as handle:
    for line in handle:
        if line.strip():
            record = json.loads(line)
            refs.append(record["reference"])
            hyps.append(record["hypothesis"])
w = jiwer.process_words(refs, hyps)
c = jiwer.process_characters(refs, hyps)
print(json.dumps({"wer": w.wer, "cer": c.cer}))
"""

WORDS = (
    "the a of and to in is was that for it with as his on be at by had are but from or have an "
    "they which one you were her all she there would their we him been has when who will more "
    "no if out so said what up its about into than them can only other new some could time "
    "these two may then do first any my now such like our over man me even most made after "
    "also did many before must through back years where much your way well down should because "
    "each just those people how too little state good very make world still own see men work "
    "long get here between both life being under never day same another know while last might "
    "us great old year off come since against go came right used take three"
).split()


def write_corpus(path: Path, pairs: int, seed: int = 2026) -> None:
    """`pairs` distinct pairs (~15 words, ~10% WER), the same file for the same seed."""
    rng = random.Random(seed)
    # ~2,700 lower-case words, no digits (numbers would send en-v1 down its slow path on
    # nearly every text, which real English transcripts do not).
    syllables = "ka lo mi ren tas vo ul pen dri so ber gan fi tor mel ash quo lin".split()
    vocab = (
        WORDS
        + sorted(
            {
                a + b + c
                for a in syllables
                for b in syllables
                for c in ("", "s", "er", "ing", "ed", "ly", "al", "en")
            }
        )[:2_500]
    )
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(pairs):
            ref = [rng.choice(vocab) for _ in range(rng.randint(11, 19))]
            hyp: list[str] = []
            for word in ref:
                roll = rng.random()
                if roll < 0.03:
                    continue  # deletion
                hyp.append(rng.choice(vocab) if roll < 0.09 else word)  # substitution
                if rng.random() < 0.015:
                    hyp.append(rng.choice(vocab))  # insertion
            record = {"id": f"utt{i:07d}", "reference": " ".join(ref), "hypothesis": " ".join(hyp)}
            handle.write(json.dumps(record) + "\n")


#: The environment of every timed process (see `compile_ahead`); None: this process's own.
CHILD_ENV: dict[str, str] | None = None


def compile_ahead(work: Path) -> str:
    """Compile earmark's bytecode before timing, as an installed package already has it.

    jiwer and numpy come from site-packages with their `__pycache__` written at install;
    an editable checkout run with PYTHONDONTWRITEBYTECODE=1 (as on the measuring host)
    recompiles earmark's ~100 modules from source in every process (~55 ms each run),
    a cost no installed user pays. The bytecode goes to a private prefix under `work`
    (PYTHONPYCACHEPREFIX), never into the checkout. Returns a line saying what was done.
    """
    global CHILD_ENV
    import earmark

    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    package = Path(earmark.__file__).parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], env=env, check=True)
    CHILD_ENV = env
    return f"bytecode: earmark compiled ahead into {env['PYTHONPYCACHEPREFIX']} (as installed)"


def run_process(argv: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MiB, stdout) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=CHILD_ENV
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    out = proc.stdout.read() if proc.stdout else ""
    err = proc.stderr.read() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{err[-2000:]}")
    return wall, usage.ru_maxrss / 1024, out


def commands(data: Path, work: Path, jiwer_script: Path) -> dict[str, list[str]]:
    earmark = [sys.executable, "-m", "earmark", "score", str(data), "--quiet"]
    return {
        "jiwer (read JSONL, process_words + process_characters)": [
            sys.executable,
            str(jiwer_script),
            str(data),
        ],
        "earmark score --normalizer none --bootstrap 0": earmark
        + ["--normalizer", "none", "--bootstrap", "0", "--out", str(work / "b0")],
        "earmark score --normalizer none (10,000 resamples)": earmark
        + ["--normalizer", "none", "--out", str(work / "b10k")],
        "earmark score --normalizer en-v1 (10,000 resamples)": earmark
        + ["--normalizer", "en-v1", "--out", str(work / "en")],
    }


def compare(pairs: int, repeats: int, keep: bool) -> None:
    work = Path(tempfile.mkdtemp(prefix="earmark-bench-"))
    try:
        data = work / "pairs.jsonl"
        write_corpus(data, pairs)
        jiwer_script = work / "peer_jiwer.py"
        jiwer_script.write_text(JIWER_SCRIPT, "utf-8")
        cmds = commands(data, work, jiwer_script)
        compiled = compile_ahead(work)
        walls: dict[str, list[float]] = {name: [] for name in cmds}
        rss: dict[str, list[float]] = {name: [] for name in cmds}
        for _ in range(repeats):
            for name, argv in cmds.items():
                wall, peak, _ = run_process(argv)
                walls[name].append(wall)
                rss[name].append(peak)
        _check_same_numbers(work)
        print(f"{pairs:,} distinct pairs (~15 words, ~10% WER); median of {repeats}, alternated")
        print(f"host: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the end")
        print(compiled)
        jiwer_name = next(iter(cmds))
        base = statistics.median(walls[jiwer_name])
        base_rss = max(rss[jiwer_name])
        header = f"{'command':56} {'wall s':>8} {'vs jiwer':>9} {'peak RSS':>10}"
        print(header)
        print("-" * len(header))
        for name in cmds:
            wall = statistics.median(walls[name])
            print(
                f"{name:56} {wall:8.2f} {base / wall:8.2f}x {max(rss[name]):7.0f} MiB"
                + ("" if name == jiwer_name else f" ({max(rss[name]) / base_rss:.2f} of jiwer)")
            )
        names = list(cmds)
        print()
        print("goals (throughput = jiwer wall / earmark wall):")
        b0 = base / statistics.median(walls[names[1]])
        b10k = base / statistics.median(walls[names[2]])
        print(
            f"  --bootstrap 0 at >= 5x jiwer:             {b0:.2f}x  {'met' if b0 >= 5 else 'NOT met'}"
        )
        print(
            f"  10,000 resamples no slower than jiwer:    {b10k:.2f}x  {'met' if b10k >= 1 else 'NOT met'}"
        )
        worst = max(max(rss[n]) for n in names[1:])
        print(
            f"  peak RSS below jiwer's ({base_rss:.0f} MiB):        {worst:.0f} MiB  "
            f"{'met' if worst < base_rss else 'NOT met'}"
        )
    finally:
        if keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def _check_same_numbers(work: Path) -> None:
    """The figures the runs wrote agree with each other (same counts, resampled or not)."""
    values = []
    for out in ("b0", "b10k"):
        results = json.loads((work / out / "results.json").read_text("utf-8"))
        arm = next(iter(results["arms"].values()))
        raw = arm["overall"]["views"]["raw"]
        values.append((raw["wer"]["value"], raw["cer"]["value"]))
    if values[0] != values[1]:
        raise SystemExit(f"the two runs disagree: {values}")


def scaling(sizes: list[int], repeats: int, bootstrap: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="earmark-scaling-"))
    try:
        rows = []
        print(compile_ahead(work))
        for n in sizes:
            data = work / f"pairs{n}.jsonl"
            write_corpus(data, n)
            argv = [sys.executable, "-m", "earmark", "score", str(data), "--quiet"]
            argv += [
                "--normalizer",
                "none",
                "--bootstrap",
                str(bootstrap),
                "--out",
                str(work / "o"),
            ]
            runs = [run_process(argv)[:2] for _ in range(repeats)]
            wall = statistics.median(w for w, _ in runs)
            peak = max(p for _, p in runs)
            rows.append((n, wall, peak))
            data.unlink()
        print(f"earmark score --normalizer none --bootstrap {bootstrap}; median of {repeats}")
        print(f"{'pairs':>10} {'wall s':>8} {'us/pair':>8} {'peak RSS':>10}")
        for n, wall, peak in rows:
            print(f"{n:>10,} {wall:8.2f} {wall / n * 1e6:8.1f} {peak:7.0f} MiB")
        xs = [math.log(n) for n, _, _ in rows]
        ys = [math.log(w) for _, w, _ in rows]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        print(f"time ~ pairs^{slope:.2f} (log-log least squares; 1.00 = linear)")
        if len(rows) >= 2:
            (n0, _, r0), (n1, _, r1) = rows[-2], rows[-1]
            print(
                f"peak RSS per extra pair, {n0:,} -> {n1:,}: {(r1 - r0) * 1024 * 1024 / (n1 - n0):.0f} B"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scaling", action="store_true", help="10k / 100k / 1M pairs")
    parser.add_argument("--sizes", default="10000,100000,1000000", help="with --scaling")
    parser.add_argument("--bootstrap", type=int, default=0, help="resamples, with --scaling")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    if args.scaling:
        scaling([int(s) for s in args.sizes.split(",")], args.repeats, args.bootstrap)
    else:
        compare(args.pairs, args.repeats, args.keep)


if __name__ == "__main__":
    main()
