"""Critical tokens: exact extraction lists in Chinese, English and Irish, and exact matching."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.metrics.critical_tokens import (
    CATEGORIES,
    CategoryCounts,
    CriticalTokenCounts,
    critical_token_counts,
    extract_critical_tokens,
)


def tokens(text: str, language: str) -> list[tuple[str, str]]:
    return [(t.category, t.text) for t in extract_critical_tokens(text, language)]


def test_chinese_tokens() -> None:
    text = (
        "二零二六年三月五日下午三点半，三百五十个人花了两千块钱，百分之五十的人用iPhone和"
        "WeChat。订单号A12-345，网址https://example.com/a?b=1。邮箱user.name@mail.cn，"
        "变量snake_case和user.name，¥100，€3.50，$25，50%，25元，五十块，12.5kg，"
        "电话138-0013-8000，版本1.2.3，2026和二零二六。"
    )
    assert tokens(text, "zh") == [
        ("date", "二零二六年三月五日"),
        ("time", "下午三点半"),
        ("number", "三百五十"),
        ("currency", "两千块钱"),
        ("percentage", "百分之五十"),
        ("latin", "iPhone"),
        ("latin", "WeChat"),
        ("id", "A12-345"),
        ("url", "https://example.com/a?b=1"),
        ("email", "user.name@mail.cn"),
        ("latin", "snake_case"),
        ("latin", "user.name"),
        ("currency", "¥100"),
        ("currency", "€3.50"),
        ("currency", "$25"),
        ("percentage", "50%"),
        ("currency", "25元"),
        ("currency", "五十块"),
        ("id", "12.5kg"),
        ("id", "138-0013-8000"),
        ("id", "1.2.3"),
        ("number", "2026"),
        ("number", "二零二六"),
    ]


def test_chinese_dates_times_and_numerals() -> None:
    assert tokens("2024年3月5日，3月8号，九月，星期三，3月", "zh") == [
        ("date", "2024年3月5日"),
        ("date", "3月8号"),
        ("date", "九月"),
        ("date", "星期三"),
        ("date", "3月"),
    ]
    assert tokens("10:30开会，3点到，晚上八点，三点五十分，三点五", "zh") == [
        ("time", "10:30"),
        ("time", "3点"),
        ("time", "晚上八点"),
        ("time", "三点五十分"),
        ("number", "三点五"),  # no minutes, no period of day: the decimal 3.5
    ]


def test_chinese_words_made_of_numeral_characters_are_not_numbers() -> None:
    for word in ("一起去", "十分好", "万一下雨", "一点点", "三个人", "一块去", "统一"):
        assert tokens(word, "zh") == [], word
    assert tokens("一万一和七八个和第十一", "zh") == [
        ("number", "一万一"),
        ("number", "七八"),
        ("number", "十一"),
    ]


def test_english_tokens() -> None:
    text = (
        "On March 3, 2024 at 10:30 am I paid $25 and €3.50 (50% off) for 1,000 iPhones; "
        "see www.example.org or mail bob@x.com, order A12-345, e.g. user.name and snake_case. "
        "The 3rd of May at 3pm cost 25 dollars, 7 percent more than the 2nd, on 2024-03-05."
    )
    assert tokens(text, "en") == [
        ("date", "March 3, 2024"),
        ("time", "10:30 am"),
        ("currency", "$25"),
        ("currency", "€3.50"),
        ("percentage", "50%"),
        ("number", "1,000"),
        ("latin", "iPhones"),
        ("url", "www.example.org"),
        ("email", "bob@x.com"),
        ("id", "A12-345"),
        ("latin", "user.name"),
        ("latin", "snake_case"),
        ("date", "3rd of May"),
        ("time", "3pm"),
        ("currency", "25 dollars"),
        ("percentage", "7 percent"),
        ("number", "2nd"),
        ("date", "2024-03-05"),
    ]


def test_english_month_names_need_a_word_boundary() -> None:
    assert tokens("Omar 2024 and May 5", "en") == [("number", "2024"), ("date", "May 5")]


def test_irish_tokens() -> None:
    text = (
        "Ar an 3 Márta 2024 ag 5 a chlog, d'íoc mé €5 agus 10 euro; 50 faoin gcéad; "
        "an 1ú lá de Mheán Fómhair; i mBaile Átha Cliath, ár nAthair, muintir hÉireann; "
        "user_name, 2 Nollaig."
    )
    assert tokens(text, "ga") == [
        ("date", "3 Márta 2024"),
        ("time", "5 a chlog"),
        ("currency", "€5"),
        ("currency", "10 euro"),
        ("percentage", "50 faoin gcéad"),
        ("date", "1ú lá de Mheán Fómhair"),
        ("latin", "user_name"),  # code-like; nAthair and hÉireann are not camel case
        ("date", "2 Nollaig"),
    ]


def test_decomposed_fadas_are_composed_before_matching() -> None:
    assert tokens("3 Ma\u0301rta", "ga") == [("date", "3 Márta")]


def test_token_spans_and_keys() -> None:
    [token] = extract_critical_tokens("年份２０２６。", "zh")
    assert (token.category, token.text, token.key, token.start, token.end) == (
        "number",
        "２０２６",
        "2026",
        2,
        6,
    )
    [spaced] = extract_critical_tokens("on 3  March", "en")
    assert spaced.key == "3 March"


def test_language_tags() -> None:
    assert tokens("打开Chrome", "zh-CN") == [("latin", "Chrome")]
    assert tokens("打开Chrome", "cmn_Hans") == [("latin", "Chrome")]
    assert tokens("open Chrome", "en") == []  # plain words are not critical in English
    assert tokens("open iPhone", "en-GB") == [("latin", "iPhone")]
    assert tokens("oscail iPhone", "ga") == []


# --- Counting ----------------------------------------------------------------------------


def test_numerals_are_never_converted() -> None:
    c = critical_token_counts("2026年有1,000人", "二零二六年有1000人", "zh")
    assert (c["date"].ref, c["date"].hyp, c["date"].matched) == (1, 1, 0)
    assert c["date"].lost == ("2026年",) and c["date"].spurious == ("二零二六年",)
    assert c["number"].lost == ("1,000",) and c["number"].spurious == ("1000",)
    assert c["number"].recall() == 0.0
    plain = critical_token_counts("2026", "二零二六", "zh")["number"]
    assert (plain.ref, plain.hyp, plain.matched) == (1, 1, 0)


def test_width_folded_forms_match() -> None:
    assert critical_token_counts("２０２６", "2026", "zh")["number"].matched == 1


def test_multiset_matching_and_lost_lists() -> None:
    c = critical_token_counts("3 and 3 and 3 and 7", "3 and 3 and 8", "en")["number"]
    assert (c.ref, c.hyp, c.matched) == (4, 3, 2)
    assert c.lost == ("3", "7")
    assert c.spurious == ("8",)
    assert c.recall() == 0.5
    assert c.precision() == pytest.approx(2 / 3)


def test_category_change_is_a_loss_in_both_categories() -> None:
    c = critical_token_counts("价格25元", "价格25", "zh")
    assert c["currency"].lost == ("25元",)
    assert c["number"].spurious == ("25",)
    assert c.total.matched == 0


def test_undefined_rates_are_none() -> None:
    c = critical_token_counts("你好", "你好", "zh")
    assert c == CriticalTokenCounts.zero()
    for name in CATEGORIES:
        assert c[name].recall() is None and c[name].precision() is None
    only_hyp = critical_token_counts("你好", "你好2", "zh")["number"]
    assert (only_hyp.recall(), only_hyp.precision()) == (None, 0.0)


def test_counts_add_over_a_corpus() -> None:
    a = critical_token_counts("A12-345", "A12-345", "en")
    b = critical_token_counts("B67-890 and 5", "B67-899 and 5", "en")
    total = sum([a, b])
    assert isinstance(total, CriticalTokenCounts)
    assert (total["id"].ref, total["id"].matched, total["id"].lost) == (2, 1, ("B67-890",))
    assert total["id"].recall() == 0.5  # summed counts, not the mean of per-clip recalls
    assert total.total == CategoryCounts(3, 3, 2, ("B67-890",), ("B67-899",))
    d = total.as_dict()
    assert d["id"]["lost"] == ["B67-890"] and d["total"]["matched"] == 2
    with pytest.raises(KeyError):
        total["postcode"]  # not a category (address is, since issue 15)


def test_counts_refuse_inconsistent_values() -> None:
    with pytest.raises(ValueError):
        CategoryCounts(ref=2, hyp=1, matched=1)  # one lost token is missing from `lost`
    with pytest.raises(ValueError):
        CriticalTokenCounts((("number", CategoryCounts()),))


token_text = st.text(alphabet="0123456789年月日元%:.-,aZ_二三十百点 你好", max_size=25)


@settings(max_examples=200, deadline=None)
@given(token_text, token_text)
def test_count_laws(ref: str, hyp: str) -> None:
    c = critical_token_counts(ref, hyp, "zh")
    ref_tokens = extract_critical_tokens(ref, "zh")
    hyp_tokens = extract_critical_tokens(hyp, "zh")
    assert c.total.ref == len(ref_tokens) and c.total.hyp == len(hyp_tokens)
    for _, counts in c.categories:
        assert counts.matched + len(counts.lost) == counts.ref
        assert counts.matched + len(counts.spurious) == counts.hyp
    identity = critical_token_counts(ref, ref, "zh")
    assert identity.total.matched == identity.total.ref == len(ref_tokens)
    # Tokens never overlap and sit in reading order.
    for before, after in zip(ref_tokens, ref_tokens[1:], strict=False):
        assert before.end <= after.start


def test_pathological_runs_scan_in_linear_time() -> None:
    import time

    started = time.perf_counter()
    for text in ("a." * 20000, "ab." * 10000, "a@" * 20000, "1-" * 20000, "a" * 40000):
        for language in ("en", "zh"):
            extract_critical_tokens(text, language)
    assert time.perf_counter() - started < 5.0


def test_documented_examples() -> None:
    assert tokens("付US$5和USD 5，50％，一块钱", "zh") == [
        ("currency", "US$5"),
        ("currency", "USD 5"),
        ("percentage", "50％"),
        ("currency", "一块钱"),
    ]
    assert tokens("at 3 o'clock visit example.com", "en") == [
        ("time", "3 o'clock"),
        ("url", "example.com"),
    ]
    assert tokens("买iPhone15，COVID-19，v2.0，05.03.2024", "zh") == [
        ("id", "iPhone15"),
        ("id", "COVID-19"),
        ("id", "v2.0"),
        ("date", "05.03.2024"),
    ]
