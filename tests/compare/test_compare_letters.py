"""MAPSSWE's evaluation letters are `metrics.alignment.align`'s columns, one letter each:
the letters compare segments (`comparison.paired.evaluation_letters`) read rapidfuzz's
opcodes as tuples; `align` reads them block by block, the oracle."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.comparison.paired import evaluation_letters
from earmark.metrics.alignment import align

_KIND = {"equal": "C", "substitute": "S", "delete": "D", "insert": "I"}

_WORDS = st.lists(st.sampled_from(["a", "b", "c", "dd", "é"]), max_size=12).map(" ".join)


def _oracle(reference: str, hypothesis: str, unit: str) -> str:
    ref, hyp = (
        (reference.split(), hypothesis.split())
        if unit == "word"
        else (list(reference), list(hypothesis))
    )
    return "".join(_KIND[op.kind] for op in align(ref, hyp).ops)


@settings(max_examples=500, deadline=None)
@given(_WORDS, _WORDS, st.sampled_from(["word", "char"]))
def test_letters_are_the_alignment_columns(reference: str, hypothesis: str, unit: str) -> None:
    assert evaluation_letters(reference, hypothesis, unit) == _oracle(reference, hypothesis, unit)


def test_letters_hand_cases() -> None:
    assert evaluation_letters("a b c", "a x c d", "word") == "CSCI"
    assert evaluation_letters("a b c", "a c", "word") == "CDC"
    assert evaluation_letters("ab", "ab", "char") == "CC"
    assert evaluation_letters("", "x", "char") == "I"
