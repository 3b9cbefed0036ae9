"""Hallucination flags: hand-computed rows and the repetition-loop rule."""

from __future__ import annotations

from earmark.metrics.hallucination import hallucination_counts, repetition_loop


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
