"""`earmark score` as the user runs it, against its peers, whole processes, in one run.

    python benchmarks/bench_cli_scoring.py                      # 100,000 pairs, median of 3
    python benchmarks/bench_cli_scoring.py --pairs 20000 --repeats 1
    python benchmarks/bench_cli_scoring.py --scaling            # 10k / 100k / 1M, the slope

The corpus: N distinct random pairs (seeded), ~15 words each with ~10% word errors, in a
JSONL file of {id, reference, hypothesis}, and the same pairs as sclite trn files. Every
command is a fresh process started by this script; its wall time is measured around it,
its CPU time (user + system) and peak RSS are its own (`wait4`). CPU ratios hold on a
loaded machine, wall ratios only on an idle one: both are printed. The commands run
alternately (A B C ..., A B C ..., ...), so a load spike hits them alike, and each figure
is the median of `--repeats` runs. earmark's bytecode is compiled once before timing
(into a private PYTHONPYCACHEPREFIX), as an installed package's is.

Peers:
- the *limit script*: orjson per line, words mapped to integers, word S/D/I from
  `rapidfuzz.distance.Levenshtein.editops` and the character distance from
  `Levenshtein.distance`: the least work an exact WER+CER scorer does in Python;
- jiwer: json per line, `process_words` + `process_characters`;
- jiwer fed by OpenAI's own `EnglishTextNormalizer` (openai-whisper's file, loaded without
  torch), the peer of `--normalizer en-v1`; skipped when openai-whisper is not installed;
- `sctk sclite -r ref.trn trn -h hyp.trn trn -i rm -o sum` on the same pairs as trn;
  skipped when sctk is not installed.

earmark runs: `--normalizer none --bootstrap 0`, `--normalizer none` (the default 10,000
resamples: CIs on every rate), `--normalizer en-v1 --bootstrap 0`, the trn files with
`--format trn`, a one-pair file (beside `python -c pass`, the interpreter's own start-up
on the host: the floor no Python command starts below), and 10,000 trn rows whose ids
carry no `-` (each its own speaker) beside the same rows under one speaker, both with the
default resamples (a speaker's block costs what its intervals cost). With openai-whisper
installed, en-v1 and jiwer fed by OpenAI's normaliser also run on the corpus's first 10k
pairs (the goal there, where start-up weighs, is 5x). Every run writes every output
(predictions.jsonl, results.json, results.md, the error analysis). After the timed runs,
the 10,000-resample run is made once more on one CPU (affinity), untimed: its figures must
be those the run on every core wrote.

The goals of issue 25 are printed with their measured ratio and "met" or "NOT met".
`--scaling` scores 10k, 100k and 1M pairs (`--normalizer none --bootstrap 0`) and reports
the time per pair, the fitted exponent of time in pairs (1.0 = linear) and peak RSS.
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

LIMIT_SCRIPT = r"""
import json, sys
import orjson
from rapidfuzz.distance import Levenshtein
ids = {}
s = d = i = n = chars = char_errors = 0
with open(sys.argv[1], "rb") as handle:
    for line in handle:
        if not line.strip():
            continue
        record = orjson.loads(line)
        ref, hyp = record["reference"], record["hypothesis"]
        a = [ids.setdefault(w, len(ids)) for w in ref.split()]
        b = [ids.setdefault(w, len(ids)) for w in hyp.split()]
        for tag, _, _ in Levenshtein.editops(a, b).as_list():
            if tag == "replace":
                s += 1
            elif tag == "delete":
                d += 1
            else:
                i += 1
        n += len(a)
        char_errors += Levenshtein.distance(ref, hyp)
        chars += len(ref)
print(json.dumps({"wer": (s + d + i) / n, "cer": char_errors / chars, "sdi": [s, d, i]}))
"""

JIWER_OPENAI_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[2])
from whisper_oracle import load_oracle
import jiwer
normalize, where = load_oracle()
refs, hyps = [], []
with open(sys.argv[1], encoding="utf-8") as handle:
    for line in handle:
        if line.strip():
            record = json.loads(line)
            refs.append(normalize(record["reference"]))
            hyps.append(normalize(record["hypothesis"]))
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


def write_trn(data: Path, ref: Path, hyp: Path) -> None:
    """The JSONL pairs as sclite trn files (`text (id)`), ids in sclite's `rm` form."""
    with (
        open(data, encoding="utf-8") as source,
        open(ref, "w", encoding="utf-8") as r,
        open(hyp, "w", encoding="utf-8") as h,
    ):
        for line in source:
            record = json.loads(line)
            ident = "spk-" + record["id"]
            r.write(f"{record['reference']} ({ident})\n")
            h.write(f"{record['hypothesis']} ({ident})\n")


def write_speakers(data: Path, pairs: int, folder: Path) -> None:
    """The first `pairs` rows as trn files twice: ids without `-`, so each utterance is
    its own speaker (`speakers-*.trn`), and ids `spk-ID`, one speaker for all
    (`one-speaker-*.trn`). A JSONL `speaker` key is not read as a speaker, so trn it is."""
    with (
        open(data, encoding="utf-8") as source,
        open(folder / "speakers-ref.trn", "w", encoding="utf-8") as sr,
        open(folder / "speakers-hyp.trn", "w", encoding="utf-8") as sh,
        open(folder / "one-speaker-ref.trn", "w", encoding="utf-8") as orf,
        open(folder / "one-speaker-hyp.trn", "w", encoding="utf-8") as oh,
    ):
        for _, line in zip(range(pairs), source):
            record = json.loads(line)
            ident, ref, hyp = record["id"], record["reference"], record["hypothesis"]
            sr.write(f"{ref} ({ident})\n")
            sh.write(f"{hyp} ({ident})\n")
            orf.write(f"{ref} (spk-{ident})\n")
            oh.write(f"{hyp} (spk-{ident})\n")


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


class Measured:
    """One fresh process: wall and CPU seconds, peak RSS (MiB), stdout."""

    def __init__(self, wall: float, cpu: float, rss: float, out: str) -> None:
        self.wall, self.cpu, self.rss, self.out = wall, cpu, rss, out


def measure(argv: list[str]) -> Measured:
    """Run `argv` once as a fresh process and measure it."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=CHILD_ENV
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    out = proc.stdout.read() if proc.stdout else ""
    err = proc.stderr.read() if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({code}):\n{err[-2000:]}")
    return Measured(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out)


TESTS = Path(__file__).resolve().parents[1] / "tests"


def commands(work: Path, pairs: int) -> dict[str, list[str]]:
    """Every timed command by name; the files they read are written here."""
    data = work / "pairs.jsonl"
    write_corpus(data, pairs)
    write_trn(data, work / "ref.trn", work / "hyp.trn")
    write_corpus(work / "one.jsonl", 1)
    speakers = min(pairs, 10_000)
    write_speakers(data, speakers, work)
    (work / "limit.py").write_text(LIMIT_SCRIPT, "utf-8")
    (work / "jiwer_peer.py").write_text(JIWER_SCRIPT, "utf-8")
    (work / "jiwer_openai.py").write_text(JIWER_OPENAI_SCRIPT, "utf-8")
    py = sys.executable
    score = [py, "-m", "earmark", "score", "--quiet"]
    none0 = ["--normalizer", "none", "--bootstrap", "0"]
    cmds = {
        "limit": [py, str(work / "limit.py"), str(data)],
        "jiwer": [py, str(work / "jiwer_peer.py"), str(data)],
        "b0": [*score, str(data), *none0, "--out", str(work / "b0")],
        "b10k": [*score, str(data), "--normalizer", "none", "--out", str(work / "b10k")],
        "en": [*score, str(data), "--normalizer", "en-v1", "--bootstrap", "0"]
        + ["--out", str(work / "en")],
        "trn": [*score, str(work / "hyp.trn"), "--refs", str(work / "ref.trn")]
        + ["--format", "trn", *none0, "--out", str(work / "trn")],
        "one": [*score, str(work / "one.jsonl"), *none0, "--out", str(work / "one")],
        # The interpreter's own start-up on this host (site-packages' .pth files included):
        # the floor under the one-pair figure, which no Python program starts below.
        "floor": [py, "-c", "pass"],
        # Per-speaker blocks cost what their intervals cost: both with the default resamples.
        "speakers": [*score, str(work / "speakers-hyp.trn"), "--refs"]
        + [str(work / "speakers-ref.trn"), "--format", "trn", "--normalizer", "none"]
        + ["--out", str(work / "spk")],
        "one-speaker": [*score, str(work / "one-speaker-hyp.trn"), "--refs"]
        + [str(work / "one-speaker-ref.trn"), "--format", "trn", "--normalizer", "none"]
        + ["--out", str(work / "onespk")],
    }
    if _has_openai_normalizer():
        cmds["jiwer+openai"] = [py, str(work / "jiwer_openai.py"), str(data), str(TESTS / "text")]
    if _has_openai_normalizer() and pairs > 10_000:
        # en-v1's second goal, at 10k pairs, where start-up weighs: the corpus's first 10k.
        small = work / "pairs-10k.jsonl"
        with open(data, encoding="utf-8") as whole:
            small.write_text("".join(line for _, line in zip(range(10_000), whole)), "utf-8")
        cmds["en-10k"] = [*score, str(small), "--normalizer", "en-v1", "--bootstrap", "0"]
        cmds["en-10k"] += ["--out", str(work / "en-10k")]
        cmds["jiwer+openai-10k"] = [py, str(work / "jiwer_openai.py"), str(small)]
        cmds["jiwer+openai-10k"].append(str(TESTS / "text"))
    if shutil.which("sctk"):
        cmds["sclite"] = ["sctk", "sclite", "-r", str(work / "ref.trn"), "trn"]
        cmds["sclite"] += ["-h", str(work / "hyp.trn"), "trn", "-i", "rm", "-o", "sum", "stdout"]
    return cmds


def _has_openai_normalizer() -> bool:
    sys.path.insert(0, str(TESTS / "text"))
    try:
        from whisper_oracle import normalizers_folder
    finally:
        sys.path.pop(0)
    return normalizers_folder() is not None


LABELS = {
    "limit": "limit script (orjson, word ids, rapidfuzz editops + distance)",
    "jiwer": "jiwer (read JSONL, process_words + process_characters)",
    "jiwer+openai": "jiwer fed by OpenAI's EnglishTextNormalizer",
    "en-10k": "earmark score --normalizer en-v1 --bootstrap 0, the first 10k pairs",
    "jiwer+openai-10k": "jiwer fed by OpenAI's EnglishTextNormalizer, the first 10k pairs",
    "sclite": "sctk sclite -i rm -o sum (same pairs as trn)",
    "b0": "earmark score --normalizer none --bootstrap 0",
    "b10k": "earmark score --normalizer none (10,000 resamples)",
    "en": "earmark score --normalizer en-v1 --bootstrap 0",
    "trn": "earmark score --format trn (same pairs) --bootstrap 0",
    "one": "earmark score, a one-pair file",
    "floor": "python -c pass (the interpreter's floor on this host)",
    "speakers": "earmark score, 10k trn rows, each its own speaker, 10,000 resamples",
    "one-speaker": "earmark score, the same 10k trn rows, one speaker, 10,000 resamples",
}


def compare(pairs: int, repeats: int, keep: bool) -> None:
    work = Path(tempfile.mkdtemp(prefix="earmark-bench-"))
    try:
        cmds = commands(work, pairs)
        compiled = compile_ahead(work)
        # One untimed run first: the first earmark process after compiling reads every
        # module and shared library from disk, which no later run (and no user's second
        # command) pays; timed, it charged the first row ~1 s.
        measure(cmds["one"])
        runs: dict[str, list[Measured]] = {name: [] for name in cmds}
        for _ in range(repeats):
            for name, argv in cmds.items():
                runs[name].append(measure(argv))
        _check_same_numbers(work)
        one_core = _one_core_same(cmds["b10k"], work)
        wall = {n: statistics.median(m.wall for m in ms) for n, ms in runs.items()}
        cpu = {n: statistics.median(m.cpu for m in ms) for n, ms in runs.items()}
        rss = {n: max(m.rss for m in ms) for n, ms in runs.items()}
        print(f"{pairs:,} distinct pairs (~15 words, ~10% WER); median of {repeats}, alternated")
        print(f"host: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the end")
        print(compiled)
        header = f"{'command':62} {'wall s':>8} {'CPU s':>8} {'peak RSS':>10}"
        print(header)
        print("-" * len(header))
        for name in cmds:
            print(f"{LABELS[name]:62} {wall[name]:8.2f} {cpu[name]:8.2f} {rss[name]:7.0f} MiB")
        print()
        print("goals (issue 25; ratio = peer / earmark, so above 1 is faster than the peer):")
        for line in goal_lines(wall, cpu, rss):
            print("  " + line)
        print("  " + one_core)
    finally:
        if keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def goal_lines(wall: dict[str, float], cpu: dict[str, float], rss: dict[str, float]) -> list[str]:
    """Each goal of issue 25 with its measured ratio, wall and CPU, and its verdict."""
    lines = []

    def against(peer: str, ours: str, at_least: float, what: str) -> None:
        if peer not in wall:
            lines.append(f"{what}: peer not installed, not measured")
            return
        w, c = wall[peer] / wall[ours], cpu[peer] / cpu[ours]
        lines.append(
            f"{what}: wall {w:.2f}x, CPU {c:.2f}x  {_verdict(c >= at_least)} (by CPU; "
            f"wall {_verdict(w >= at_least)})"
        )

    limit = cpu["b0"] / cpu["limit"]
    lines.append(
        f"--bootstrap 0 within 1.5x of the limit script's CPU: {limit:.2f}x its CPU  "
        f"{_verdict(limit <= 1.5)} (wall {wall['b0'] / wall['limit']:.2f}x)"
    )
    against("jiwer", "b0", 10, "--bootstrap 0 >= 10x jiwer")
    lines.append(
        f"one-pair file under 0.12 s CPU: {cpu['one']:.3f} s  {_verdict(cpu['one'] < 0.12)}"
    )
    lines.append(
        f"  beside it, python -c pass: {cpu['floor']:.3f} s CPU (the interpreter's floor "
        f"here); earmark's own share of the one-pair file: {cpu['one'] - cpu['floor']:.3f} s"
    )
    against("jiwer", "b10k", 5, "10,000 resamples >= 5x jiwer")
    against("jiwer+openai", "en", 10, "en-v1 >= 10x jiwer fed by OpenAI's normaliser")
    if "en-10k" in wall:
        against("jiwer+openai-10k", "en-10k", 5, "en-v1 >= 5x jiwer+OpenAI at 10k pairs")
    extra = cpu["en"] / cpu["b0"] - 1
    lines.append(
        f"en-v1 adds at most 50% to the none run: +{extra:.0%} CPU  {_verdict(extra <= 0.5)}"
    )
    trn_cpu, trn_rss = cpu["trn"] / cpu["b0"], rss["trn"] / rss["b0"]
    lines.append(
        f"--format trn within 1.2x of JSONL: CPU {trn_cpu:.2f}x, memory {trn_rss:.2f}x  "
        f"{_verdict(trn_cpu <= 1.2 and trn_rss <= 1.2)}"
    )
    spk = cpu["speakers"] / cpu["one-speaker"]
    lines.append(
        f"10,000 one-utterance speakers no slower than 1.5x one speaker: {spk:.2f}x CPU  "
        f"{_verdict(spk <= 1.5)}"
    )
    if "sclite" in wall:
        lines.append(
            f"vs sctk sclite (trn): wall {wall['sclite'] / wall['trn']:.2f}x, "
            f"CPU {cpu['sclite'] / cpu['trn']:.2f}x (reported, no goal)"
        )
    return lines


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


def _one_core_same(argv: list[str], work: Path) -> str:
    """The 10,000-resample run again (untimed) with the process held to one CPU: its
    figures (every interval of every scope) must be the ones the run on every core wrote,
    since the resample blocks' streams do not depend on how many threads draw them."""
    if not hasattr(os, "sched_setaffinity"):
        return "10,000 resamples, one core vs all: not measured (no CPU affinity here)"
    out = work / "b10k-one-core"
    again = [*argv[: argv.index("--out")], "--out", str(out)]
    first = min(os.sched_getaffinity(0))
    subprocess.run(
        again,
        env=CHILD_ENV,
        check=True,
        capture_output=True,
        preexec_fn=lambda: os.sched_setaffinity(0, {first}),
    )
    arms = [
        json.loads((folder / "results.json").read_text("utf-8"))["arms"]
        for folder in (work / "b10k", out)
    ]
    same = arms[0] == arms[1]
    return (
        f"10,000 resamples on one core give the figures of {len(os.sched_getaffinity(0))} "
        f"cores: {'identical' if same else 'DIFFERENT'}  {_verdict(same)}"
    )


def log_log_slope(xs: list[float], ys: list[float]) -> float:
    """The least-squares slope of log y on log x: how a cost grows with a size (1.0 is
    linear)."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum(
        (a - mx) ** 2 for a in lx
    )


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
            runs = [measure(argv) for _ in range(repeats)]
            wall = statistics.median(m.wall for m in runs)
            peak = max(m.rss for m in runs)
            rows.append((n, wall, peak))
            data.unlink()
        print(f"earmark score --normalizer none --bootstrap {bootstrap}; median of {repeats}")
        print(f"{'pairs':>10} {'wall s':>8} {'us/pair':>8} {'peak RSS':>10}")
        for n, wall, peak in rows:
            print(f"{n:>10,} {wall:8.2f} {wall / n * 1e6:8.1f} {peak:7.0f} MiB")
        slope = log_log_slope([n for n, _, _ in rows], [w for _, w, _ in rows])
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
