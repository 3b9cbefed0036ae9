"""crude-delete-v1 by hand-computed cases, read beside crude-v1: the one difference is
that punctuation and symbols are deleted, not turned into spaces (issue 23)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.metrics.alignment import count_errors
from earmark.metrics.tokens import words
from earmark.text import get_normalizer, normalize_text
from earmark.text.invisible import invisible_units


def _norm(name: str, text: str) -> str:
    out = normalize_text(name, text)["normalized"]
    assert out is not None
    return out


def test_is_comparison_only_and_says_so() -> None:
    crude = get_normalizer("crude-delete-v1")
    assert crude.comparison_only is True
    assert "deleted" in crude.description
    assert "not for publishing absolute WER" in crude.description


@pytest.mark.parametrize(
    ("text", "spaced", "deleted"),
    [
        ("Hello, World! ＡＢＣ", "hello world abc", "hello world abc"),
        ("don't $5+3", "don t 5 3", "dont 53"),
        ("well-known snake_case", "well known snake case", "wellknown snakecase"),
        ("fear,féar", "fear féar", "fearféar"),
        ("ok👍yes", "ok yes", "okyes"),
        ("a\x07b", "a b", "a b"),
        ("你好，世界。", "你好 世界", "你好世界"),
    ],
)
def test_beside_crude_v1(text: str, spaced: str, deleted: str) -> None:
    assert _norm("crude-v1", text) == spaced
    assert _norm("crude-delete-v1", text) == deleted


def test_word_counts_differ_as_the_rule_says() -> None:
    # `don't` is two reference words under crude-v1 and one under crude-delete-v1.
    ref, hyp = "I don't know", "I dont know"
    spaced = count_errors(words(_norm("crude-v1", ref)), words(_norm("crude-v1", hyp)))
    deleted = count_errors(
        words(_norm("crude-delete-v1", ref)), words(_norm("crude-delete-v1", hyp))
    )
    # crude-v1: `i don t know` vs `i dont know`: one substitution, one deletion of 4.
    assert (spaced.ref_units, spaced.substitutions, spaced.deletions, spaced.insertions) == (
        4,
        1,
        1,
        0,
    )
    assert (deleted.ref_units, deleted.errors) == (3, 0)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40))
def test_no_punctuation_or_invisible_unit_survives(text: str) -> None:
    import unicodedata

    out = _norm("crude-delete-v1", text)
    assert not [c for c in out if unicodedata.category(c)[0] in "PS"]
    assert invisible_units(out) == []
    assert _norm("crude-delete-v1", out) == out
