"""Hallucination flags: hand-computed rows and the repetition-loop rule."""

from __future__ import annotations

from earmark.metrics.hallucination import Loop, find_loop, hallucination_counts, repetition_loop


def test_flags_hand_computed() -> None:
    # rows: silence with output; silence, nothing said; speech, empty output;
    # 2-word reference with 9-word output (runaway); 10-word reference with 12 (not runaway).
    counts = hallucination_counts([0, 0, 5, 2, 10], [4, 0, 0, 9, 12], [False] * 4 + [True])
    assert counts.as_dict() == {
        "rows": 5,
        "no_speech_rows": 2,
        "no_speech_with_output": 1,
        "no_speech_output_rate": 0.5,
        "empty_outputs": 1,
        "empty_output_rate": 1 / 3,
        "repetition_loops": 1,
        "runaway_outputs": 2,  # the silence with 4 words and the 2 → 9 row
    }


def test_counts_add() -> None:
    a = hallucination_counts([0], [1], [False])
    b = hallucination_counts([3], [0], [True])
    assert a + b == hallucination_counts([0, 3], [1, 0], [False, True])


def test_repetition_loop_rule() -> None:
    assert repetition_loop("go go go go".split())
    assert repetition_loop("x a b a b a b a b".split())
    assert not repetition_loop("a b a b a b".split())  # three repeats, not four
    assert not repetition_loop("the cat sat on the mat".split())
    assert repetition_loop(list("哈哈哈哈"))


def test_phrase_loop_of_any_length() -> None:
    # The seed-000 demo case: a six-word phrase 25 times was reported as no loop when the
    # rule stopped at 4-grams.
    demo = ("see you in the next video " * 25).split()
    assert find_loop(demo) == Loop(start=0, period=6, repeats=25)
    assert repetition_loop(demo)
    # Four copies after a lead-in and before a tail: start 3, period 6, 4 whole copies.
    words = "thanks for watching" + " see you in the next video" * 4 + " bye now"
    assert find_loop(words.split()) == Loop(start=3, period=6, repeats=4)
    assert find_loop(words.split()).span == 24  # type: ignore[union-attr]
    # A 12-word sentence repeated 4 times (48 words) is still found.
    sentence = "one two three four five six seven eight nine ten eleven twelve ".split()
    assert find_loop(sentence * 4) == Loop(start=0, period=12, repeats=4)
    assert find_loop(sentence * 3) is None  # three copies are not a loop


def test_character_loops_for_unsegmented_scripts() -> None:
    # 谢谢观看 ("thanks for watching") four times: period 4 in characters.
    assert find_loop(list("谢谢观看谢谢观看谢谢观看谢谢观看")) == Loop(0, 4, 4)
    # The demo's zh-07 output in characters: "theendof" (8 characters) four times, then
    # "theend": the old 4-unit cap missed it because, in characters, the phrase is 8 long.
    chars = list("thisistheendoftheendoftheendoftheendoftheend")
    assert find_loop(chars) == Loop(start=6, period=8, repeats=4)
    assert find_loop(chars, max_n=4) is None
    # An ordinary sentence with repeated characters but no back-to-back copies.
    assert find_loop(list("我们今天去北京，我们明天去上海")) is None


def test_shortest_period_and_run_to_the_end() -> None:
    # "a a a a a a a a" is period 1 (8 copies), not period 2 (4 copies).
    assert find_loop(["a"] * 8) == Loop(0, 1, 8)
    # A partial copy at the end does not count as a copy.
    assert find_loop("a b c a b c a b c a b c a b".split()) == Loop(0, 3, 4)
    assert find_loop([]) is None
    assert find_loop(["a", "a", "a"]) is None
    assert find_loop(["a"] * 3, min_repeats=3) == Loop(0, 1, 3)


def test_loop_agrees_with_brute_force() -> None:
    # Property: find_loop finds a loop exactly when some block repeats min_repeats times
    # back to back (checked by brute force over every start and period).
    import random

    def brute(tokens: list[str], k: int) -> bool:
        n_max = len(tokens) // k
        return any(
            all(tokens[s + j * n : s + (j + 1) * n] == tokens[s : s + n] for j in range(k))
            for n in range(1, n_max + 1)
            for s in range(len(tokens) - k * n + 1)
        )

    rng = random.Random(7)
    for _ in range(400):
        alphabet = "ab" if rng.random() < 0.5 else "abc"
        tokens = [rng.choice(alphabet) for _ in range(rng.randint(0, 24))]
        for k in (2, 3, 4):
            assert (find_loop(tokens, min_repeats=k) is not None) == brute(tokens, k), tokens


def test_long_outputs_stay_fast() -> None:
    import time

    rng = __import__("random").Random(1)
    vocab = [f"w{i}" for i in range(50)]
    tokens = [rng.choice(vocab) for _ in range(20_000)]
    started = time.perf_counter()
    assert find_loop(tokens) is None
    assert time.perf_counter() - started < 5.0
