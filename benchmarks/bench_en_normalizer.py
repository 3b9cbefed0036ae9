"""English normalisation speed: earmark `en-v1` vs `whisper-normalizer` vs OpenAI's own.

Goals: en-v1 normalises each text >= 5x faster than the `whisper-normalizer` package
(what en-v1 used to call; issue 12), with output identical to OpenAI's
`EnglishTextNormalizer`; and (issue 25) at most ~3 us a text on the bench corpus of
`bench_cli_scoring.py`, the cost at which `--normalizer en-v1` adds at most half to a
`--normalizer none` run of 100,000 pairs. All contenders run in this one process on the
same distinct texts, interleaved chunk by chunk (so machine load hits them alike); each
figure is the sum over chunks of the best of several rounds, per text, memo caches
bypassed. Three corpora: `bench` (`bench_cli_scoring.py`'s pairs: lower-case words, a
number word now and then), `plain` (transcript-like sentences with capitals, commas and
a number now and then) and `numbers` (the differential test's generator: every sentence
full of numbers, currency, contractions, spellings, markup and odd Unicode); for each,
the share of texts en-v1's quick path answers. Run:

    python benchmarks/bench_en_normalizer.py [--texts 5000] [--rounds 5]

Needs `whisper-normalizer` and `openai-whisper` (`pip install --no-deps openai-whisper`)
for their columns; a missing one is reported and left out.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "text"))

from bench_cli_scoring import write_corpus  # noqa: E402
from en_v1_corpus import sentences  # noqa: E402
from whisper_oracle import load_oracle  # noqa: E402

from earmark.text.en_v1 import _quick_view, uncached_view  # noqa: E402

#: Issue 25's budget per text on the bench corpus (200,000 texts in ~0.6 s of CPU).
BENCH_BUDGET_US = 3.0

_COMMON = (
    "the of and to a in that is was he for it with as his on be at by i this had not are "
    "but from or have an they which one you were her all she there would their we him been "
    "has when who will more no if out so said what up its about into than them can only "
    "other new some could time these two may then do first any my now such like our over "
    "man me even most made after also did many before must through back years where much "
    "your way well down should because each just those people how too little state good "
    "very make world still own see men work long get here between both life being under "
    "never day same another know while last might us great old year off come since against "
    "go came right used take three colour centre favourite organise we're don't it's "
    "i'm can't won't they've mr mrs dr uh um okay yeah"
).split()


def plain_sentences(count: int, seed: int = 5) -> list[str]:
    """Transcript-like sentences: common words, some capitals and commas, few numbers."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        words = [rng.choice(_COMMON) for _ in range(rng.randint(6, 20))]
        if rng.random() < 0.15:
            words[rng.randrange(len(words))] = rng.choice(
                ["twenty five", "1990", "$5", "ten percent", "2nd", "one hundred and three"]
            )
        if rng.random() < 0.3:
            words[rng.randrange(len(words))] += ","
        text = " ".join(words)
        out.append(text[0].upper() + text[1:] + rng.choice([".", "?", "!", "."]))
    return out


def bench_texts(pairs: int) -> list[str]:
    """The references and hypotheses of `bench_cli_scoring.py`'s corpus of `pairs` pairs."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pairs.jsonl"
        write_corpus(path, pairs)
        records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    return [text for record in records for text in (record["reference"], record["hypothesis"])]


def _whisper_normalizer() -> Callable[[str], str] | None:
    try:
        from whisper_normalizer.english import EnglishTextNormalizer
    except ImportError:
        return None
    engine = EnglishTextNormalizer()
    return lambda text: " ".join(engine(text).split())  # en-v1's old view


def _best_times(
    contenders: dict[str, Callable[[str], str]], texts: list[str], rounds: int
) -> dict[str, float]:
    """Seconds per text for each contender: per chunk of texts the best of `rounds`.

    The contenders run one after another on each chunk of 100 texts (in rotating order),
    so a burst of load from other processes falls on all of them, not on one.
    """
    chunks = [texts[i : i + 100] for i in range(0, len(texts), 100)]
    best = {name: [float("inf")] * len(chunks) for name in contenders}
    names = list(contenders)
    for round_ in range(rounds):
        for index, chunk in enumerate(chunks):
            shift = (round_ + index) % len(names)
            for name in names[shift:] + names[:shift]:
                function = contenders[name]
                start = time.perf_counter()
                for text in chunk:
                    function(text)
                elapsed = time.perf_counter() - start
                best[name][index] = min(best[name][index], elapsed)
    return {name: sum(times) / len(texts) for name, times in best.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    oracle, where = load_oracle()
    contenders: dict[str, Callable[[str], str]] = {"earmark en-v1": uncached_view}
    package = _whisper_normalizer()
    if package is None:
        print("whisper-normalizer: not installed, left out")
    else:
        contenders["whisper-normalizer"] = package
    if oracle is None:
        print(f"OpenAI EnglishTextNormalizer: {where}, left out")
    else:
        contenders["OpenAI (openai-whisper)"] = lambda text: " ".join(oracle(text).split())

    for corpus, texts in (
        ("bench", bench_texts(args.texts // 2)),
        ("plain", plain_sentences(args.texts)),
        ("numbers", sentences(args.texts, seed=99)),
    ):
        texts = list(dict.fromkeys(texts))  # distinct texts: nothing to memoise
        ours = [uncached_view(text) for text in texts]
        quick = sum(_quick_view(text) is not None for text in texts) / len(texts)
        if oracle is not None:
            diffs = sum(a != " ".join(oracle(t).split()) for a, t in zip(ours, texts))
            print(f"[{corpus}] earmark vs OpenAI: {diffs} differences in {len(texts)} texts")
        if package is not None and oracle is not None:
            wn_diffs = sum(package(t) != " ".join(oracle(t).split()) for t in texts)
            print(f"[{corpus}] whisper-normalizer vs OpenAI: {wn_diffs} differences")
        best = _best_times(contenders, texts, args.rounds)
        mine = best["earmark en-v1"]
        print(
            f"[{corpus}] {len(texts)} distinct texts, {quick:.0%} by the quick path, "
            f"best of {args.rounds} rounds:"
        )
        for name, seconds in best.items():
            ratio = "" if name == "earmark en-v1" else f"  earmark is {seconds / mine:.2f}x faster"
            print(f"  {name:26s} {seconds * 1e6:8.1f} us/text{ratio}")
        if corpus == "bench":
            verdict = "met" if mine * 1e6 <= BENCH_BUDGET_US else "not met"
            print(f"  en-v1 <= {BENCH_BUDGET_US} us a bench text: {mine * 1e6:.2f} us  {verdict}")


if __name__ == "__main__":
    main()
