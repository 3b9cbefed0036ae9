"""The front door `import earmark`: `wer`, `cer` and `score` on lists of strings.

Pinned three ways: hand-computed cases, jiwer as an oracle (hand and random cases), and
the CLI itself (the same pairs written to JSONL and scored by `earmark score` give the
same rates, intervals and counts). Plus: the docstring examples run, `import earmark`
stays lazy and light, and three pairs are scored in a fresh process in under a second.
"""

from __future__ import annotations

import doctest
import inspect
import json
import random
import subprocess
import sys
from pathlib import Path

import jiwer
import pytest

import earmark
from cli_process import earmark as earmark_cli
from earmark.errors import EarmarkError
from earmark.metrics.counts import ErrorCounts
from earmark.results import Estimate, MetricResult

REFS = ["a b c", "hello world", "the cat"]
HYPS = ["a x c", "hello", "the cat sat"]


# --- hand-computed -------------------------------------------------------------------


def test_three_pairs_by_hand() -> None:
    # a b c / a x c: S=1 H=2; hello world / hello: D=1 H=1; the cat / the cat sat: I=1 H=2
    s = earmark.score(REFS, HYPS, bootstrap=0)
    assert s.counts == ErrorCounts(substitutions=1, deletions=1, insertions=1, hits=5)
    assert s.wer == 3 / 7 == earmark.wer(REFS, HYPS)
    # characters (a space is one): 1 S, "hello world"->"hello" 6 D, " sat" 4 I, N_ref 5+11+7
    assert s.metrics["cer"].counts == ErrorCounts(
        substitutions=1, deletions=6, insertions=4, hits=16
    )
    assert s.cer == 11 / 23 == earmark.cer(REFS, HYPS)
    assert (s.headline, s.view, s.normalizer, s.n_utterances) == ("wer", "raw", "none", 3)
    assert s.ci is None and s.bootstrap == 0
    assert all(isinstance(m, MetricResult) for m in s.metrics.values())


def test_single_strings_and_one_element_lists_agree() -> None:
    assert earmark.cer("kitten", "sitting") == 3 / 6
    assert earmark.wer("the cat sat", "the cat sat on") == 1 / 3
    assert earmark.score("the cat sat", ["the cat sat on"], bootstrap=0).to_dict() == (
        earmark.score(["the cat sat"], "the cat sat on", bootstrap=0).to_dict()
    )


def test_identity_scores_zero_and_counts_obey_the_laws() -> None:
    s = earmark.score(REFS, REFS, bootstrap=200)
    assert s.wer == 0.0 and s.cer == 0.0 and s.ci == (0.0, 0.0)
    for estimate in earmark.score(REFS, HYPS, bootstrap=0).metrics.values():
        c = estimate.counts
        assert c.substitutions + c.deletions + c.hits == c.ref_units
        assert c.substitutions + c.insertions + c.hits == c.hyp_units


def test_normalisers_apply_to_both_sides() -> None:
    assert earmark.wer("Hello, World!", "hello world") == 1.0
    assert earmark.wer("Hello, World!", "hello world", normalizer="en-v1") == 0.0
    assert earmark.cer(["我爱北京"], ["我爱南京"], normalizer="zh-eval-v1") == 0.25
    # `auto` picks zh-eval-v1 for Mandarin: characters are the headline unit
    s = earmark.score(["我爱北京"], ["我爱南京"], normalizer="auto", language="zh", bootstrap=0)
    assert (s.normalizer, s.headline, s.wer, s.cer) == ("zh-eval-v1", "cer", None, 0.25)
    assert s.counts == ErrorCounts(substitutions=1, hits=3)


def test_bootstrap_interval_is_the_seeded_percentile_interval() -> None:
    s = earmark.score(REFS, HYPS, bootstrap=1000)
    assert s.ci == s.metrics["wer"].ci == (1 / 3, 0.5)
    assert s.estimate == Estimate(3 / 7, (1 / 3, 0.5), 0.95, "percentile")
    assert s.metrics["cer"].ci is not None
    assert (s.bootstrap, s.seed, s.level) == (1000, 20260926, 0.95)
    assert earmark.score(REFS, HYPS, bootstrap=1000, seed=7).seed == 7


def test_to_dict_is_plain_json() -> None:
    d = earmark.score(REFS, HYPS, bootstrap=1000).to_dict()
    assert json.loads(json.dumps(d)) == d
    wer = d["metrics"]["wer"]  # results.json's shape of a metric
    assert {k: wer[k] for k in ("value", "ci95", "substitutions", "deletions", "insertions")} == {
        "value": 3 / 7,
        "ci95": [1 / 3, 0.5],
        "substitutions": 1,
        "deletions": 1,
        "insertions": 1,
    }
    assert (wer["hits"], wer["ref_units"], wer["hyp_units"], wer["n_scored"]) == (5, 7, 7, 3)
    # MER = E / (E + H) = 3/8; every sentence has an error; per-utterance 1/3, 1/2, 1/2
    assert (wer["mer"], wer["ser"], wer["median_per_utterance"]) == (3 / 8, 1.0, 0.5)
    assert d["bootstrap"] == {"resamples": 1000, "seed": 20260926, "level": 0.95}


def test_result_is_frozen() -> None:
    s = earmark.score(REFS, HYPS, bootstrap=0)
    with pytest.raises(AttributeError):
        s.normalizer = "en-v1"  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.metrics["wer"] = s.metrics["cer"]  # type: ignore[index]


@pytest.mark.parametrize(
    ("refs", "hyps", "field", "hint"),
    [
        (["a", "b"], ["a"], "hypotheses", "one hypothesis per reference"),
        ([], [], "references", "at least one reference"),
        (["a", "b"], ["a", None], "hypotheses[1]", "replace None"),
        ([b"a"], ["a"], "references[0]", "decode bytes"),
        (42, ["a"], "references", None),
    ],
)
def test_bad_inputs_are_earmark_errors(
    refs: object, hyps: object, field: str, hint: str | None
) -> None:
    with pytest.raises(EarmarkError) as caught:
        earmark.wer(refs, hyps)  # type: ignore[arg-type]
    assert caught.value.field == field
    if hint is not None:
        assert caught.value.hint is not None and hint in caught.value.hint


def test_a_rate_that_does_not_exist_is_an_error_not_a_number() -> None:
    with pytest.raises(EarmarkError, match="does not count") as caught:
        earmark.wer(["我爱北京"], ["我爱南京"], normalizer="zh-eval-v1")
    assert caught.value.hint is not None and "earmark.cer" in caught.value.hint
    with pytest.raises(EarmarkError, match="undefined"):
        earmark.wer([""], ["x"])
    assert earmark.score([""], ["x"], bootstrap=0).counts == ErrorCounts(insertions=1)
    with pytest.raises(EarmarkError, match="unknown|normali"):
        earmark.wer("a", "a", normalizer="no-such-normaliser")
    with pytest.raises(EarmarkError, match="bootstrap"):
        earmark.score("a", "a", bootstrap=-1)


# --- jiwer as the oracle -------------------------------------------------------------

HAND = [
    (["a b c"], ["a b c"]),
    (["a b c"], [""]),
    (["a b c d e"], ["a c e f"]),
    (["one two three", "four five"], ["one too three", "for five six"]),
    (["the quick brown fox"], ["quick the brown fox jumps"]),
]


@pytest.mark.parametrize(("refs", "hyps"), HAND)
def test_jiwer_agrees_on_hand_cases(refs: list[str], hyps: list[str]) -> None:
    _same_as_jiwer(refs, hyps)


def test_jiwer_agrees_on_random_corpora() -> None:
    rng = random.Random(13)
    vocab = ["a", "b", "c", "ab", "ba", "cat"]
    for _ in range(300):
        n = rng.randint(1, 5)
        refs = [" ".join(rng.choices(vocab, k=rng.randint(1, 7))) for _ in range(n)]
        hyps = [" ".join(rng.choices(vocab, k=rng.randint(0, 7))) for _ in range(n)]
        _same_as_jiwer(refs, hyps)


def _same_as_jiwer(refs: list[str], hyps: list[str]) -> None:
    s = earmark.score(refs, hyps, bootstrap=0)
    words = jiwer.process_words(refs, hyps)
    chars = jiwer.process_characters(refs, hyps)
    assert s.wer == jiwer.wer(refs, hyps) == earmark.wer(refs, hyps)
    assert s.cer == jiwer.cer(refs, hyps) == earmark.cer(refs, hyps)
    # Equally short alignments may split errors differently; the totals are the distance.
    for counts, theirs in ((s.metrics["wer"].counts, words), (s.metrics["cer"].counts, chars)):
        assert counts.errors == theirs.substitutions + theirs.deletions + theirs.insertions
        assert counts.ref_units == theirs.hits + theirs.substitutions + theirs.deletions


# --- the CLI gives the same figures --------------------------------------------------

CLI_CASES = {
    "none": (REFS + ["the end", "x y z w"], HYPS + ["the end", "x z w v"], "none", None),
    "en-v1": (
        ["Hello, World!", "It's 5 o'clock.", "Good morning, Dave."],
        ["hello world", "its five o clock", "good morning dave"],
        "en-v1",
        "en",
    ),
    "auto-zh": (
        ["我爱北京", "今天天气很好", "你好"],
        ["我爱南京", "今天天气好", "你好吗"],
        "auto",
        "zh",
    ),
}


@pytest.mark.parametrize("case", sorted(CLI_CASES))
def test_equals_earmark_score_on_the_same_pairs(case: str, tmp_path: Path) -> None:
    refs, hyps, normalizer, language = CLI_CASES[case]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        "".join(
            json.dumps({"id": str(i), "reference": r, "hypothesis": h}, ensure_ascii=False) + "\n"
            for i, (r, h) in enumerate(zip(refs, hyps, strict=True), start=1)
        ),
        "utf-8",
    )
    args = ["score", str(pairs), "--normalizer", normalizer, "--bootstrap", "500"]
    args += ["--language", language] if language else []
    done = earmark_cli(*args, "--out", str(tmp_path / "out"), "--quiet")
    assert done.returncode == 0, done.stderr
    block = json.loads((tmp_path / "out" / "results.json").read_text("utf-8"))["arms"]["pairs"][
        "overall"
    ]
    ours = earmark.score(refs, hyps, normalizer=normalizer, language=language, bootstrap=500)
    assert ours.view == block["primary_view"] and ours.normalizer == block["normalizer"]["name"]
    assert ours.n_utterances == block["n_utterances"] == len(refs)
    figures = block["views"][ours.view]
    assert set(ours.metrics) == {m for m in ("wer", "cer", "mixed_er") if m in figures}
    for name, estimate in ours.metrics.items():
        theirs = figures[name]
        assert estimate.value == theirs["value"]
        assert estimate.ci is not None and list(estimate.ci) == theirs["ci95"]
        assert estimate.counts.as_dict() == {k: theirs[k] for k in estimate.counts.as_dict()}
        assert ours.to_dict()["metrics"][name] == theirs  # every key, exactly


# --- documentation, laziness, speed --------------------------------------------------


@pytest.mark.parametrize("module", ["earmark", "earmark.api.pairs", "earmark.api.scoring"])
def test_docstring_examples_run(module: str) -> None:
    # The verbs are plain functions now (no package shares their names), so doctest's walk
    # of the namespace sees nothing grow while it unwraps them.
    import earmark

    for name in ("run", "compare", "report"):
        assert callable(getattr(earmark, name))
    result = doctest.testmod(
        sys.modules[module] if module in sys.modules else __import__(module, fromlist=["_"])
    )
    assert result.failed == 0
    if module != "earmark.api.scoring":
        assert result.attempted > 0


HEAVY = (
    "torch",
    "transformers",
    "ctranslate2",
    "ray",
    "pandas",
    "scipy",
    "pyarrow",
    "faster_whisper",
    "sklearn",
    "matplotlib",
)


def _modules_after(code: str) -> set[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_earmark_imports_no_front_door_yet() -> None:
    mods = _modules_after("import earmark")
    assert "earmark.api.pairs" not in mods and "numpy" not in mods


def test_scoring_strings_imports_nothing_heavy() -> None:
    mods = _modules_after('import earmark\nassert earmark.wer(["a b"], ["a c"]) == 0.5')
    assert "earmark.scoring.scorer" in mods  # the real scoring path ran
    assert not [m for m in HEAVY if m in mods]
    assert "earmark.api.scoring" not in mods and "earmark.api.running" not in mods


def test_run_compare_report_are_the_verbs_beside_their_renamed_packages() -> None:
    import earmark.execution.runner as runner
    import earmark.render.html as html
    from earmark.api import comparing, rendering, running

    for name, module in (("run", running), ("compare", comparing), ("report", rendering)):
        function = getattr(earmark, name)
        assert function is getattr(module, name)
        assert inspect.getdoc(function)
    assert earmark.execution.runner is runner and earmark.render.html is html
    assert sorted(earmark.__all__) == sorted(dir(earmark))


#: The README's "Python quick start" (kept here until README.md carries it; its docs test
#: then runs it there): each commented line's value is exactly its comment's first part.
QUICK_START = """\
import earmark

refs = ["the cat sat on the mat", "hello world"]
hyps = ["the cat sat on a mat", "hello"]
earmark.wer(refs, hyps)  # 0.25: 1 substitution + 1 deletion of 8 words
earmark.cer(refs, hyps)  # 0.2727272727272727: 9 character edits of 33
s = earmark.score(refs, hyps, bootstrap=1000)  # what `earmark score` writes, typed
s.wer, s.ci  # (0.25, (0.16666666666666666, 0.5)): micro WER, 95% bootstrap CI
s.counts  # ErrorCounts(substitutions=1, deletions=1, insertions=0, hits=6)
earmark.wer("It is 5 pm.", "it is five pm", normalizer="en-v1")  # 0.0
"""


def test_quick_start_numbers_are_exact() -> None:
    namespace: dict[str, object] = {}
    checked = 0
    for line in QUICK_START.splitlines():
        code, _, comment = line.partition("  # ")
        if comment and not code.lstrip().startswith(("s =", "import")):
            assert repr(eval(code, namespace)) == comment.split(": ")[0], line
            checked += 1
        else:
            exec(code, namespace)
    assert checked == 5
