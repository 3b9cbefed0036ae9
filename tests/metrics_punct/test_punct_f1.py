"""Punctuation F1: hand-computed cases for every rule, the probes, and property laws."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from earmark.errors import EarmarkError
from earmark.metrics import punctuation
from earmark.metrics.punctuation import (
    PROBES,
    MarkTally,
    PunctuationCounts,
    align_content,
    content_characters,
    is_mark,
    mark_type,
    punctuation_alignment,
    punctuation_counts,
    run_punctuation_probes,
    split_punctuation,
)


def figures(ref: str, hyp: str) -> tuple[int, int, int, int]:
    c = punctuation_counts(ref, hyp)
    return c.ref_marks, c.hyp_marks, c.position_matches, c.type_matches


def ops(ref: str, hyp: str) -> list[tuple[str, int | None, int | None]]:
    return [(s.op, s.ref_index, s.hyp_index) for s in align_content(ref, hyp)]


# --- Marks and content -------------------------------------------------------------------


def test_ascii_marks_map_to_full_width() -> None:
    pairs = {",": "，", ".": "。", "?": "？", "!": "！", ":": "：", ";": "；", "(": "（", ")": "）"}
    for ascii_mark, full in pairs.items():
        assert mark_type(ascii_mark) == full
        assert mark_type(full) == full


def test_width_variants_fold_and_enumeration_comma_stays_distinct() -> None:
    assert mark_type("．") == "。"  # full-width full stop → "." → 。
    assert mark_type("｡") == "。"  # half-width ideographic full stop
    assert mark_type("﹐") == "，"  # small comma
    assert mark_type("、") == "、"
    assert mark_type("､") == "、"  # half-width ideographic comma
    assert mark_type("＂") == '"'
    assert mark_type("…") == "…"  # NFKC would give three dots: kept as one mark
    assert mark_type("·") == "·"


def test_what_counts_as_a_mark() -> None:
    for char in "，。、；：？！“”‘’「」《》（）【】·…—-_%@/'\"":
        assert is_mark(char), char
    for char in "好a1$¥~～+=":
        assert not is_mark(char), char


def test_content_is_nfkc_lowercased_after_marks_are_taken_out() -> None:
    assert content_characters("Hello, World!") == "helloworld"
    assert content_characters("ＡＢＣ，ｄｅｆ。") == "abcdef"
    assert content_characters("你 好\u3000世\t界") == "你好世界"
    assert content_characters("⑴好") == "1好"  # NFKC "(1)": the produced brackets drop
    assert content_characters("") == ""
    split = split_punctuation("ＡＢＣ，ｄ")
    assert [(m.boundary, m.type, m.original) for m in split.marks] == [(3, "，", "，")]


def test_marks_attach_to_boundaries_and_ellipsis_is_one_mark_per_character() -> None:
    split = split_punctuation("“好……”他说...")
    assert split.content == "好他说"
    assert [(m.boundary, m.type) for m in split.marks] == [
        (0, "“"),
        (1, "…"),
        (1, "…"),
        (1, "”"),
        (3, "。"),
        (3, "。"),
        (3, "。"),
    ]


# --- Alignment and its tie rule ----------------------------------------------------------


def test_alignment_prefers_diagonal_then_deletion_then_insertion() -> None:
    # Substitution pair rather than a deletion + insertion of equal cost.
    assert ops("ab", "ba") == [("substitute", 0, 0), ("substitute", 1, 1)]
    # At (3, 3) deletion and insertion tie and the diagonal is worse: deletion wins.
    assert ops("的了的", "了的了") == [
        ("insert", None, 0),
        ("match", 0, 1),
        ("match", 1, 2),
        ("delete", 2, None),
    ]
    # Repeated characters: from the end the diagonal is preferred, so the FIRST 的 is
    # the deleted one.
    assert ops("的的好", "的好") == [("delete", 0, None), ("match", 1, 0), ("match", 2, 1)]
    assert ops("", "") == []
    assert ops("ab", "") == [("delete", 0, None), ("delete", 1, None)]
    assert ops("", "ab") == [("insert", None, 0), ("insert", None, 1)]


def test_tie_rule_around_repeated_characters_decides_the_boundary() -> None:
    # The deleted 的 is the first one, so the hypothesis comma lands after the second.
    assert figures("的的，好", "的，好") == (1, 1, 1, 1)
    assert figures("的，的好", "的，好") == (1, 1, 0, 0)
    assert punctuation_alignment("的，的好", "的，好").boundary_map == (1, 2, 3)


def test_projection_across_insertions() -> None:
    alignment = punctuation_alignment("你好。", "你好啊。")
    assert alignment.boundary_map == (0, 1, 2, 2)
    assert alignment.counts.position_matches == 1
    # Marks on both sides of an inserted character land on one reference boundary.
    assert figures("你好。", "你好，啊。") == (1, 2, 1, 1)


def test_projection_across_deletions_takes_the_largest_reference_boundary() -> None:
    # A dropped final particle: the full stop still closes the clause.
    alignment = punctuation_alignment("你好吗。", "你好。")
    assert alignment.boundary_map == (0, 1, 3)
    assert figures("你好吗。", "你好。") == (1, 1, 1, 1)
    # The price of the rule: a mark before a dropped character is projected past it.
    assert punctuation_alignment("好，的我", "好，我").boundary_map == (0, 2, 3)
    assert figures("好，的我", "好，我") == (1, 1, 0, 0)
    # Leading deletion: hypothesis boundary 0 maps after the deleted character.
    assert figures("啊，好", "，好") == (1, 1, 1, 1)


def test_lexical_substitution_keeps_boundaries() -> None:
    assert figures("我们明天去北京，后天回上海。", "我们明天去背景，后天回上海。") == (2, 2, 2, 2)


# --- Counting ----------------------------------------------------------------------------


def test_several_marks_at_one_boundary() -> None:
    c = punctuation_counts("好！？", "好？")
    assert (c.ref_marks, c.hyp_marks, c.position_matches, c.type_matches) == (2, 1, 1, 1)
    assert c.position_precision() == 1.0
    assert c.position_recall() == 0.5
    assert c.position_f1() == pytest.approx(2 / 3)
    # Position counts the marks, type counts per type: ！ min(1,2) + ？ min(1,0).
    assert figures("好？！", "好！！") == (2, 2, 2, 1)


def test_shifted_boundary() -> None:
    c = punctuation_counts("我们走，快点。", "我们，走快点。")
    assert (c.position_matches, c.type_matches) == (1, 1)
    assert c.position_f1() == 0.5
    assert c.type_f1() == 0.5


def test_ascii_and_full_width_score_the_same() -> None:
    reference = "你好，世界！你是谁？"
    assert punctuation_counts(reference, "你好,世界!你是谁?") == punctuation_counts(
        reference, reference
    )
    assert figures("Hi, there.", "Hi，there。") == (2, 2, 2, 2)


def test_enumeration_comma_is_not_a_comma() -> None:
    c = punctuation_counts("甲、乙", "甲，乙")
    assert (c.position_f1(), c.type_f1()) == (1.0, 0.0)
    assert figures("甲、乙", "甲,乙") == (1, 1, 1, 0)


def test_per_type_tallies() -> None:
    c = punctuation_counts("甲、乙、丙，好。", "甲，乙、丙，好！")
    assert c.per_type == (
        ("、", MarkTally(ref=2, hyp=1, matched=1)),
        ("。", MarkTally(ref=1, hyp=0, matched=0)),
        ("！", MarkTally(ref=0, hyp=1, matched=0)),
        ("，", MarkTally(ref=1, hyp=2, matched=1)),
    )
    assert c.tally(",") == MarkTally(1, 2, 1)
    assert c.tally(",").precision() == 0.5
    assert c.tally("、").recall() == 0.5
    assert c.tally("?") == MarkTally()
    assert c.tally("?").f1() is None
    assert (c.position_matches, c.type_matches) == (4, 2)


def test_empty_texts() -> None:
    nothing = punctuation_counts("", "")
    assert nothing == PunctuationCounts.zero()
    assert nothing.position_f1() is None and nothing.type_f1() is None
    assert nothing.null_reason == punctuation.NO_MARKS_REASON
    # No marks on either side of real text: undefined too, not 1.0.
    assert punctuation_counts("你好", "你好").position_f1() is None
    missing = punctuation_counts("你好。", "")
    assert (missing.position_recall(), missing.position_precision()) == (0.0, None)
    assert missing.position_f1() == 0.0 and missing.null_reason is None
    extra = punctuation_counts("", "你好。")
    assert (extra.position_recall(), extra.position_precision(), extra.type_f1()) == (
        None,
        0.0,
        0.0,
    )


def test_corpus_figures_come_from_summed_counts() -> None:
    a = punctuation_counts("好，的。", "好，的。")  # 2 of 2
    b = punctuation_counts("对吗？", "对吗")  # 0 of 1
    total = sum([a, b])
    assert isinstance(total, PunctuationCounts)
    assert (total.ref_marks, total.hyp_marks, total.position_matches) == (3, 2, 2)
    assert total.position_recall() == pytest.approx(2 / 3)  # not the mean of 1.0 and 0.0
    assert total.position_f1() == pytest.approx(0.8)


def test_counts_refuse_inconsistent_values() -> None:
    with pytest.raises(ValueError):
        PunctuationCounts(ref_marks=1)  # per_type does not add up
    with pytest.raises(ValueError):
        PunctuationCounts(1, 1, 0, 1, (("，", MarkTally(1, 1, 1)),))  # type > position
    with pytest.raises(ValueError):
        MarkTally(ref=1, hyp=0, matched=1)


def test_as_dict_is_json_ready() -> None:
    d = punctuation_counts("好，的。", "好。的。").as_dict()
    assert d["position_f1"] == 1.0 and d["type_f1"] == 0.5
    assert d["per_type"] == {
        "。": {"ref": 1, "hyp": 2, "matched": 1, "precision": 0.5, "recall": 1.0, "f1": 2 / 3},
        "，": {"ref": 1, "hyp": 0, "matched": 0, "precision": None, "recall": 0.0, "f1": 0.0},
    }


def test_very_long_pairs_are_refused_with_a_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(punctuation, "MAX_ALIGNMENT_CELLS", 100)
    with pytest.raises(EarmarkError, match="per segment"):
        punctuation_counts("好" * 10, "好" * 10)


# --- Probes ------------------------------------------------------------------------------


def test_all_probes_pass() -> None:
    results = run_punctuation_probes()
    assert [r.name for r in results] == [p.name for p in PROBES]
    assert {
        "identity",
        "no_punctuation",
        "wrong_type",
        "shifted_boundary",
        "ascii_fullwidth",
        "content_identity",
        "lexical_substitution",
    } <= {r.name for r in results}
    failed = [r for r in results if not r.passed]
    assert failed == []
    assert results[0].as_dict()["observed"] == {"position_f1": 1.0, "type_f1": 1.0}


def test_a_broken_probe_is_reported_as_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = punctuation.Probe("bad", "expects too much", "好，", "好。", (("type_f1", 1.0),))
    monkeypatch.setattr(punctuation, "PROBES", (wrong,))
    [result] = run_punctuation_probes()
    assert not result.passed
    assert result.observed == {"type_f1": 0.0}


# --- Property laws -----------------------------------------------------------------------

CONTENT = "的了是我你好天气北京aB1 "
MARKS = "，。、？！,.?!：“”…"
texts = st.text(alphabet=CONTENT + MARKS, max_size=30)
content_only = st.text(alphabet=CONTENT, max_size=12)


def strip_marks(text: str) -> str:
    return "".join(c for c in text if not is_mark(c))


@settings(max_examples=200, deadline=None)
@given(texts)
def test_identity_scores_one_whenever_the_reference_has_marks(text: str) -> None:
    c = punctuation_counts(text, text)
    if c.ref_marks:
        assert c.position_f1() == 1.0 and c.type_f1() == 1.0
    else:
        assert c.position_f1() is None


@settings(max_examples=200, deadline=None)
@given(texts)
def test_removing_all_punctuation_gives_recall_zero(text: str) -> None:
    c = punctuation_counts(text, strip_marks(text))
    assert c.hyp_marks == 0
    if c.ref_marks:
        assert c.position_recall() == 0.0 and c.type_recall() == 0.0


@settings(max_examples=200, deadline=None)
@given(texts, texts, texts, texts)
def test_counts_add(r1: str, h1: str, r2: str, h2: str) -> None:
    a, b = punctuation_counts(r1, h1), punctuation_counts(r2, h2)
    total = a + b
    assert total.ref_marks == a.ref_marks + b.ref_marks
    assert total.hyp_marks == a.hyp_marks + b.hyp_marks
    assert total.position_matches == a.position_matches + b.position_matches
    assert total.type_matches == a.type_matches + b.type_matches
    assert total == b + a == sum([a, b]) == a + b + PunctuationCounts.zero()


@settings(max_examples=200, deadline=None)
@given(texts, texts, st.lists(st.tuples(st.integers(0, 40), content_only), max_size=4))
def test_content_only_changes_never_change_mark_totals(
    ref: str, hyp: str, edits: list[tuple[int, str]]
) -> None:
    before = punctuation_counts(ref, hyp)
    changed = hyp
    for position, replacement in edits:
        # Replace the content characters after `position` (up to the next mark) by new ones.
        cut = min(position, len(changed))
        end = cut
        while end < len(changed) and not is_mark(changed[end]):
            end += 1
        changed = changed[:cut] + replacement + changed[end:]
    after = punctuation_counts(ref, changed)
    assert (after.ref_marks, after.hyp_marks) == (before.ref_marks, before.hyp_marks)
    assert after.type_matches <= after.position_matches <= min(after.ref_marks, after.hyp_marks)


@settings(max_examples=200, deadline=None)
@given(texts, texts)
def test_ascii_full_width_swap_never_changes_counts(ref: str, hyp: str) -> None:
    swapped = hyp.translate(str.maketrans(",.?!:", "，。？！："))
    assert punctuation_counts(ref, swapped) == punctuation_counts(ref, hyp)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="的了是ab", max_size=15), st.text(alphabet="的了是ab", max_size=15))
def test_alignment_is_a_minimum_edit_path(ref: str, hyp: str) -> None:
    steps = align_content(ref, hyp)
    assert sum(s.op != "match" for s in steps) == Levenshtein.distance(ref, hyp)
    assert "".join(ref[s.ref_index] for s in steps if s.ref_index is not None) == ref
    assert "".join(hyp[s.hyp_index] for s in steps if s.hyp_index is not None) == hyp
    for s in steps:
        if s.op in ("match", "substitute"):
            assert s.ref_index is not None and s.hyp_index is not None
            assert (ref[s.ref_index] == hyp[s.hyp_index]) == (s.op == "match")
    assert steps == _reference_alignment(ref, hyp)


def _reference_alignment(ref: str, hyp: str) -> tuple[punctuation.AlignedChar, ...]:
    """A plain-Python oracle for the vectorised DP and the documented backtrace order."""
    n, m = len(ref), len(hyp)
    d = [[i + j if i == 0 or j == 0 else 0 for j in range(m + 1)] for i in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            d[i][j] = min(
                d[i - 1][j - 1] + (ref[i - 1] != hyp[j - 1]), d[i - 1][j] + 1, d[i][j - 1] + 1
            )
    out = []
    i, j = n, m
    while i or j:
        if i and j and d[i][j] == d[i - 1][j - 1] + (ref[i - 1] != hyp[j - 1]):
            op = "match" if ref[i - 1] == hyp[j - 1] else "substitute"
            out.append(punctuation.AlignedChar(op, i - 1, j - 1))  # type: ignore[arg-type]
            i, j = i - 1, j - 1
        elif i and d[i][j] == d[i - 1][j] + 1:
            out.append(punctuation.AlignedChar("delete", i - 1, None))
            i -= 1
        else:
            out.append(punctuation.AlignedChar("insert", None, j - 1))
            j -= 1
    return tuple(reversed(out))
