"""Alignment and S/D/I counts: hand cases, the documented tie rule, laws, and jiwer as oracle."""

from __future__ import annotations

import random

import jiwer
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.metrics import (
    AlignedOp,
    ErrorCounts,
    align,
    count_errors,
    count_errors_array,
    count_errors_many,
)


def ec(s: int, d: int, i: int, h: int) -> ErrorCounts:
    return ErrorCounts(substitutions=s, deletions=d, insertions=i, hits=h)


def kinds(ref: str, hyp: str) -> list[tuple[str, int | None, int | None]]:
    return [(op.kind, op.ref_index, op.hyp_index) for op in align(ref.split(), hyp.split()).ops]


# --- hand-computed cases -------------------------------------------------------------


@pytest.mark.parametrize(
    ("ref", "hyp", "expected"),
    [
        ("the cat sat on the mat", "the cat sat on the mat", ec(0, 0, 0, 6)),
        ("the cat sat", "the bat sat", ec(1, 0, 0, 2)),
        ("the cat sat", "the sat", ec(0, 1, 0, 2)),
        ("the cat sat", "the cat sat down", ec(0, 0, 1, 3)),
        # Two minimum paths of 4 edits: S,=,D,=,I,I (2 hits) and S,=,I,S,S (1 hit); the
        # tie rule (substitution before insertion, walking back) takes the second.
        ("a b c d", "x b d e f", ec(3, 0, 1, 1)),
        ("", "", ec(0, 0, 0, 0)),
        ("", "hello world", ec(0, 0, 2, 0)),
        ("hello world", "", ec(0, 2, 0, 0)),
        ("a b", "b a", ec(0, 1, 1, 1)),
        ("a a", "a", ec(0, 1, 0, 1)),
        ("a b c", "c b a", ec(2, 0, 0, 1)),
    ],
)
def test_count_errors_hand_cases(ref: str, hyp: str, expected: ErrorCounts) -> None:
    assert count_errors(ref.split(), hyp.split()) == expected
    assert align(ref.split(), hyp.split()).counts == expected


def test_count_errors_on_strings_counts_code_points() -> None:
    # 今天天气好 -> 今天天汽好啊: one substitution (气→汽), one insertion.
    assert count_errors("今天天气好", "今天天汽好啊") == ec(1, 0, 1, 4)
    assert count_errors("a b", "a  b") == ec(0, 0, 1, 3)


def test_align_columns_hand_case() -> None:
    got = align("the cat sat".split(), "a cat sat down".split()).ops
    assert got == (
        AlignedOp("substitute", "the", "a", 0, 0),
        AlignedOp("equal", "cat", "cat", 1, 1),
        AlignedOp("equal", "sat", "sat", 2, 2),
        AlignedOp("insert", None, "down", None, 3),
    )


def test_align_empty_sides() -> None:
    assert align([], []).ops == ()
    assert align([], ["x", "y"]).ops == (
        AlignedOp("insert", None, "x", None, 0),
        AlignedOp("insert", None, "y", None, 1),
    )
    assert [op.kind for op in align(["x", "y"], []).ops] == ["delete", "delete"]


# --- the documented tie rule ----------------------------------------------------------


def test_tie_cases_follow_the_documented_rule() -> None:
    # Two swapped words: insert b, keep a, delete b (not two substitutions).
    assert kinds("a b", "b a") == [("insert", None, 0), ("equal", 0, 1), ("delete", 1, None)]
    # A repeated word: the common prefix is matched first, the second copy is deleted.
    assert kinds("a a", "a") == [("equal", 0, 0), ("delete", 1, None)]
    assert kinds("a", "a a") == [("equal", 0, 0), ("insert", None, 1)]
    # Reversal of three: substitutions at both ends, the middle kept.
    assert [k for k, _, _ in kinds("a b c", "c b a")] == ["substitute", "equal", "substitute"]
    # Substitution is preferred to insertion walking back: "a" vs "c b c" after the
    # common suffix.
    assert [k for k, _, _ in kinds("a b", "c b c b")] == [
        "insert",
        "insert",
        "substitute",
        "equal",
    ]


def reference_columns(a: list[str], b: list[str]) -> list[tuple[str, int | None, int | None]]:
    """The tie rule of alignment.py written as a plain dynamic program."""
    p = 0
    while p < len(a) and p < len(b) and a[p] == b[p]:
        p += 1
    s = 0
    while s < len(a) - p and s < len(b) - p and a[len(a) - 1 - s] == b[len(b) - 1 - s]:
        s += 1
    x, y = a[p : len(a) - s], b[p : len(b) - s]
    n, m = len(x), len(y)
    d = [[i + j if i == 0 or j == 0 else 0 for j in range(m + 1)] for i in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            step = d[i - 1][j - 1] + (x[i - 1] != y[j - 1])
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, step)
    cols: list[tuple[str, int | None, int | None]] = []
    i, j = n, m
    while i or j:
        diag_ok = i and j and d[i][j] == d[i - 1][j - 1] + (x[i - 1] != y[j - 1])
        if i and d[i][j] == d[i - 1][j] + 1:  # deletion
            i -= 1
            cols.append(("delete", i + p, None))
        elif diag_ok and x[i - 1] != y[j - 1]:  # substitution
            i, j = i - 1, j - 1
            cols.append(("substitute", i + p, j + p))
        elif j and d[i][j] == d[i][j - 1] + 1:  # insertion
            j -= 1
            cols.append(("insert", None, j + p))
        else:  # match
            i, j = i - 1, j - 1
            cols.append(("equal", i + p, j + p))
    prefix = [("equal", k, k) for k in range(p)]
    suffix = [("equal", len(a) - s + k, len(b) - s + k) for k in range(s)]
    return prefix + cols[::-1] + suffix


@pytest.mark.parametrize(("alphabet", "max_len", "n"), [("ab", 9, 1500), ("abcd", 14, 800)])
def test_tie_rule_matches_a_plain_dynamic_program(alphabet: str, max_len: int, n: int) -> None:
    rng = random.Random(7)
    for _ in range(n):
        a = rng.choices(alphabet, k=rng.randint(0, max_len))
        b = rng.choices(alphabet, k=rng.randint(0, max_len))
        got = [(op.kind, op.ref_index, op.hyp_index) for op in align(a, b).ops]
        assert got == reference_columns(a, b), (a, b)


def test_tie_rule_holds_beyond_one_machine_word() -> None:
    # rapidfuzz's bit-parallel matrix spans several 64-bit words here.
    rng = random.Random(3)
    for _ in range(20):
        a = rng.choices("abc", k=rng.randint(60, 140))
        b = rng.choices("abc", k=rng.randint(60, 140))
        got = [(op.kind, op.ref_index, op.hyp_index) for op in align(a, b).ops]
        assert got == reference_columns(a, b)


# --- laws ------------------------------------------------------------------------------

tokens = st.lists(st.sampled_from(["a", "b", "c", "dd", "我", "é"]), max_size=14)


@settings(max_examples=300, deadline=None)
@given(tokens)
def test_identity_scores_zero(x: list[str]) -> None:
    assert count_errors(x, x) == ec(0, 0, 0, len(x))


@settings(max_examples=300, deadline=None)
@given(tokens, tokens)
def test_unit_laws_and_align_agrees(ref: list[str], hyp: list[str]) -> None:
    counts = count_errors(ref, hyp)
    assert counts.ref_units == len(ref)  # S + D + C = N_ref
    assert counts.hyp_units == len(hyp)  # S + I + C = N_hyp
    alignment = align(ref, hyp)
    assert alignment.counts == counts
    assert [op.ref for op in alignment.ops if op.ref is not None] == ref
    assert [op.hyp for op in alignment.ops if op.hyp is not None] == hyp
    for op in alignment.ops:
        assert (op.kind == "equal") == (op.ref == op.hyp)


@settings(max_examples=300, deadline=None)
@given(tokens, tokens)
def test_swapping_sides_keeps_the_distance(ref: list[str], hyp: list[str]) -> None:
    forward, backward = count_errors(ref, hyp), count_errors(hyp, ref)
    assert forward.errors == backward.errors
    assert forward.deletions - forward.insertions == backward.insertions - backward.deletions


def test_swapping_sides_mirrors_the_split_when_the_path_is_unique() -> None:
    assert count_errors(["a", "b", "c"], ["a", "x"]) == ec(1, 1, 0, 1)
    assert count_errors(["a", "x"], ["a", "b", "c"]) == ec(1, 0, 1, 1)


def test_swapping_sides_can_change_the_split_on_ties() -> None:
    # Known and accepted: the tie rule is not symmetric, so neither is jiwer's split.
    ref, hyp = list("cabcaa"), list("bcbbbcb")
    assert count_errors(ref, hyp) == ec(2, 1, 2, 3)
    assert count_errors(hyp, ref) == ec(4, 1, 0, 2)
    expected = jiwer.process_characters("".join(hyp), "".join(ref))
    assert (expected.substitutions, expected.deletions, expected.insertions) == (4, 1, 0)


# --- batch path ------------------------------------------------------------------------


def test_batch_paths_equal_single_calls() -> None:
    rng = random.Random(11)
    vocab = ["alpha", "beta", "gamma", "delta", "東京", "x"]
    texts = [" ".join(rng.choices(vocab, k=rng.randint(0, 8))) for _ in range(400)]
    pairs = list(zip(texts[:200], texts[200:], strict=True))
    pairs += [("a b", "a b"), ("", ""), ("a  b", "a b")]
    words = count_errors_array(pairs, units="words")
    chars = count_errors_array(pairs)
    assert words.dtype == np.int64 and words.shape == (len(pairs), 4)
    for row_w, row_c, (r, h) in zip(words.tolist(), chars.tolist(), pairs, strict=True):
        w = count_errors(r.split(), h.split())
        c = count_errors(r, h)
        assert row_w == [w.substitutions, w.deletions, w.insertions, w.hits]
        assert row_c == [c.substitutions, c.deletions, c.insertions, c.hits]
    assert count_errors_many(pairs, units="words") == [
        count_errors(r.split(), h.split()) for r, h in pairs
    ]


def test_batch_of_nothing() -> None:
    assert count_errors_array([]).shape == (0, 4)
    assert count_errors_many([]) == []
    with pytest.raises(ValueError):
        count_errors_array([], units="chars")  # type: ignore[arg-type]


# --- jiwer as oracle -------------------------------------------------------------------


def random_corpus(seed: int, n: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    vocab = ["the", "a", "cat", "sat", "on", "mat", "an", "tá", "sé", "我们", "北京", "x"]
    pairs = []
    for k in range(n):
        ref = rng.choices(vocab, k=rng.randint(0, 12) if k % 10 else 0)
        hyp = [w for w in ref if rng.random() > 0.15]
        for _ in range(rng.randint(0, 3)):
            hyp.insert(rng.randint(0, len(hyp)), rng.choice(vocab))
        hyp = [rng.choice(vocab) if rng.random() < 0.15 else w for w in hyp]
        if k % 13 == 0:
            hyp = []
        pairs.append((" ".join(ref), " ".join(hyp)))
    return pairs


def test_word_counts_equal_jiwer_per_pair_and_in_total() -> None:
    pairs = random_corpus(seed=1, n=400)
    ours = count_errors_array(pairs, units="words")
    for (ref, hyp), row in zip(pairs, ours.tolist(), strict=True):
        out = jiwer.process_words(ref, hyp)
        assert row == [out.substitutions, out.deletions, out.insertions, out.hits], (ref, hyp)
    total = jiwer.process_words([r for r, _ in pairs], [h for _, h in pairs])
    expected = [total.substitutions, total.deletions, total.insertions, total.hits]
    assert ours.sum(axis=0).tolist() == expected


def test_char_counts_equal_jiwer_per_pair_and_in_total() -> None:
    pairs = random_corpus(seed=2, n=400)
    ours = count_errors_array(pairs)
    for (ref, hyp), row in zip(pairs, ours.tolist(), strict=True):
        out = jiwer.process_characters(ref, hyp)
        assert row == [out.substitutions, out.deletions, out.insertions, out.hits], (ref, hyp)
    total = jiwer.process_characters([r for r, _ in pairs], [h for _, h in pairs])
    expected = [total.substitutions, total.deletions, total.insertions, total.hits]
    assert ours.sum(axis=0).tolist() == expected
