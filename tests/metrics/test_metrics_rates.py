"""Micro/macro/sentence rates and the summary: hand cases and aggregation laws."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.metrics import (
    ErrorCounts,
    macro_rate,
    micro_rate,
    sentence_error_rate,
    summarize,
)

A = ErrorCounts(substitutions=1, hits=1)  # rate 0.5
B = ErrorCounts(hits=8)  # rate 0.0
EMPTY_REF_HIT = ErrorCounts(insertions=3)  # empty reference, non-empty hypothesis
SILENCE = ErrorCounts()  # both empty


def test_micro_is_summed_counts_not_mean_of_rates() -> None:
    assert micro_rate([A, B]) == pytest.approx(1 / 10)
    assert macro_rate([A, B]) == pytest.approx(0.25)


def test_empty_reference_conventions() -> None:
    assert micro_rate([EMPTY_REF_HIT]) is None
    assert micro_rate([EMPTY_REF_HIT, A]) == pytest.approx(4 / 2)
    assert macro_rate([EMPTY_REF_HIT, SILENCE]) == pytest.approx(0.5)
    assert micro_rate([]) is None
    assert macro_rate([]) is None
    assert sentence_error_rate([]) is None


def test_sentence_error_rate() -> None:
    assert sentence_error_rate([A, B, SILENCE, EMPTY_REF_HIT]) == pytest.approx(0.5)


def test_rates_accept_one_shot_iterators() -> None:
    assert micro_rate(iter([A, B])) == pytest.approx(0.1)
    assert macro_rate(c for c in [A, B]) == pytest.approx(0.25)


def test_summary_micro() -> None:
    s = summarize([A, B, ErrorCounts(deletions=1, insertions=1, hits=2)])
    assert s.aggregate == "micro"
    assert s.label == "micro (corpus) rate"
    assert s.totals == ErrorCounts(substitutions=1, deletions=1, insertions=1, hits=11)
    assert s.value == pytest.approx(3 / 13)
    assert s.n_utterances == 3
    assert s.mer == pytest.approx(3 / 14)
    assert s.wil == pytest.approx(1 - (11 / 13) * (11 / 13))
    assert s.ser == pytest.approx(2 / 3)
    assert s.reason is None


def test_summary_macro_is_labelled() -> None:
    s = summarize([A, B], aggregate="macro")
    assert s.value == pytest.approx(0.25)
    assert s.label == "macro mean of per-utterance rates"
    assert s.totals == A + B


def test_summary_none_carries_a_reason() -> None:
    assert summarize([]).value is None
    assert summarize([]).reason == "no utterances"
    assert summarize([]).ser is None
    only_insertions = summarize([EMPTY_REF_HIT])
    assert only_insertions.value is None
    assert only_insertions.reason is not None and "reference" in only_insertions.reason
    assert summarize([EMPTY_REF_HIT], aggregate="macro").value == 1.0
    with pytest.raises(ValueError):
        summarize([A], aggregate="mean")  # type: ignore[arg-type]


counts = st.builds(
    ErrorCounts,
    substitutions=st.integers(0, 20),
    deletions=st.integers(0, 20),
    insertions=st.integers(0, 20),
    hits=st.integers(0, 50),
)
corpora = st.lists(counts, max_size=30)


@settings(max_examples=200, deadline=None)
@given(corpora, corpora)
def test_micro_rate_of_a_union_is_the_rate_of_summed_counts(x: list, y: list) -> None:
    whole = micro_rate(x + y)
    summed = (sum(x, ErrorCounts.zero()) + sum(y, ErrorCounts.zero())).error_rate()
    assert whole == summed


@settings(max_examples=200, deadline=None)
@given(corpora, st.randoms(use_true_random=False))
def test_rates_do_not_depend_on_order(x: list, rng) -> None:  # type: ignore[no-untyped-def]
    shuffled = list(x)
    rng.shuffle(shuffled)
    assert micro_rate(shuffled) == micro_rate(x)
    assert sentence_error_rate(shuffled) == sentence_error_rate(x)
    if x:
        assert macro_rate(shuffled) == pytest.approx(macro_rate(x))
    assert summarize(shuffled).totals == summarize(x).totals


@settings(max_examples=200, deadline=None)
@given(corpora)
def test_summary_agrees_with_the_single_functions(x: list) -> None:
    assert summarize(x).value == micro_rate(x)
    assert summarize(x, "macro").value == macro_rate(x)
    assert summarize(x).ser == sentence_error_rate(x)
