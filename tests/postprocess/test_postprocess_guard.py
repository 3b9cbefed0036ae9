"""The lexical guard: punctuation may change, words may not."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from earmark.errors import EarmarkError
from earmark.postprocess.guard import CONTENT_CHANGED, LexicalGuard, parse_substitution

SOURCE_1779 = "特朗普与土耳其总统雷杰普、塔伊普、埃尔多安通话后发表了声明"
CANDIDATE_1779 = "特朗普与土耳其总统雷杰普·塔伊普·埃尔多安通话后发表了声明"


def test_adding_and_changing_punctuation_is_accepted() -> None:
    guard = LexicalGuard()
    assert guard.check("你好世界", "你好，世界。").accepted
    assert guard.check("hello world", "Hello, world!").accepted  # case and spaces are not content
    assert guard.check("你好,世界", "你好，世界").accepted


def test_changing_a_character_is_rejected_with_where() -> None:
    verdict = LexicalGuard().check("特朗普与土耳其总统", "特朗谱与土耳其总统。")
    assert not verdict.accepted
    assert verdict.reason == CONTENT_CHANGED
    assert verdict.detail["first_difference"] == 2
    assert verdict.detail["source_excerpt"].startswith("特朗普")
    assert verdict.detail["candidate_excerpt"].startswith("特朗谱")


def test_dropping_or_adding_content_is_rejected() -> None:
    guard = LexicalGuard()
    assert not guard.check("今天天气很好", "今天天气好。").accepted
    assert not guard.check("今天天气很好", "今天天气很好啊。").accepted
    assert not guard.check("今天天气很好", "").accepted
    assert guard.check("", "").accepted


def test_seed_001_failure_case_depends_on_the_guard_marks() -> None:
    # 、 and · are both punctuation, so the default content guard accepts the swap ...
    assert LexicalGuard().check(SOURCE_1779, CANDIDATE_1779).accepted
    # ... a guard that treats them as content (seed 001's shipped validator) rejects it ...
    strict = LexicalGuard.from_options(content_marks="、·")
    verdict = strict.check(SOURCE_1779, CANDIDATE_1779)
    assert (verdict.accepted, verdict.reason) == (False, CONTENT_CHANGED)
    assert verdict.detail["source_excerpt"] == "土耳其总统雷杰普、塔伊普、埃尔多"
    assert verdict.detail["candidate_excerpt"] == "土耳其总统雷杰普·塔伊普·埃尔多"
    # ... and an allowed substitution rescues it.
    rescued = LexicalGuard.from_options(["、=·"], content_marks="、·")
    assert rescued.check(SOURCE_1779, CANDIDATE_1779).accepted
    assert not rescued.changes_content


def test_content_substitution_is_flagged_as_changing_content() -> None:
    guard = LexicalGuard.from_options(["里=裡"])
    assert guard.check("我们在这里", "我们在这裡。").accepted
    assert guard.changes_content
    assert guard.to_dict()["substitutions"] == ["里=裡"]


@pytest.mark.parametrize("bad", ["、", "=·", "、=", "a=a"])
def test_bad_substitutions_are_refused(bad: str) -> None:
    with pytest.raises(EarmarkError):
        parse_substitution(bad)


def test_guard_marks_must_be_marks() -> None:
    with pytest.raises(EarmarkError, match="not a punctuation mark"):
        LexicalGuard.from_options(content_marks="a")


@given(
    st.text(alphabet="你好世界天气很abc ", max_size=20),
    st.lists(st.sampled_from("，。！？、,.!?"), max_size=5),
    st.randoms(),
)
def test_inserting_marks_anywhere_is_always_accepted(text: str, marks: list[str], rnd) -> None:
    candidate = list(text)
    for mark in marks:
        candidate.insert(rnd.randint(0, len(candidate)), mark)
    assert LexicalGuard().check(text, "".join(candidate)).accepted
