"""Critical tokens, address category: hand-computed English and Chinese cases."""

from __future__ import annotations

from earmark.metrics.critical_tokens import (
    CATEGORIES,
    critical_token_counts,
    extract_critical_tokens,
)


def tokens(text: str, language: str) -> list[tuple[str, str]]:
    return [(t.category, t.text) for t in extract_critical_tokens(text, language)]


def test_address_is_a_category() -> None:
    assert "address" in CATEGORIES


def test_english_addresses() -> None:
    assert tokens("Send it to 221B Baker Street by 3 pm.", "en") == [
        ("address", "221B Baker Street"),
        ("time", "3 pm"),
    ]
    # The abbreviation's full stop is not part of the token.
    assert tokens("I live at 12 Main St. now", "en") == [("address", "12 Main St")]
    assert tokens("12-14 Upper Leeson Street", "en") == [("address", "12-14 Upper Leeson Street")]
    assert tokens("350 5th Avenue", "en") == [("address", "350 5th Avenue")]
    assert tokens("at 7 Hill road", "en") == [("address", "7 Hill road")]
    # An Irish sentence naming an English-form address.
    assert tokens("Tá sé ag 12 Main Street", "ga") == [("address", "12 Main Street")]


def test_english_non_addresses() -> None:
    # The name must be capitalised: "3 big road trips" is a number, not an address.
    assert tokens("we took 3 big road trips", "en") == [("number", "3")]
    # No street-type word: a number and nothing else.
    assert tokens("12 Main Stores", "en") == [("number", "12")]
    # More than three name words before the type word: not an address.
    assert tokens("5 A B C D Street", "en") == [("number", "5")]


def test_chinese_addresses() -> None:
    # The road-type character opens the token; the road's name is left to CER.
    assert tokens("我住在南京东路123号", "zh") == [("address", "路123号")]
    assert tokens("淮海中路100弄5号302室", "zh") == [("address", "路100弄5号302室")]
    assert tokens("3栋2单元501室", "zh") == [("address", "3栋2单元501室")]
    assert tokens("他在五号楼三层", "zh") == [("address", "五号楼三层")]
    assert tokens("快递放在302室", "zh") == [("address", "302室")]
    assert tokens("帽儿胡同12号", "zh") == [("address", "胡同12号")]


def test_chinese_non_addresses() -> None:
    # A lone 号 is a day, a line or a player; 楼 alone a floor; dates keep priority.
    assert tokens("坐1号线", "zh") == [("number", "1")]
    assert tokens("3月5号见", "zh") == [("date", "3月5号")]
    assert tokens("他在3楼", "zh") == [("number", "3")]


def test_address_matching_is_exact() -> None:
    # The house number changed: the reference's address is lost, the hypothesis' spurious.
    counts = critical_token_counts("寄到南京东路123号", "寄到南京东路132号", "zh")["address"]
    assert (counts.ref, counts.hyp, counts.matched) == (1, 1, 0)
    assert counts.lost == ("路123号",) and counts.spurious == ("路132号",)
    # A lost street type: "221B Baker" is no address, so the reference's is lost and the
    # hypothesis gains an id.
    counts2 = critical_token_counts("221B Baker Street", "221B Baker", "en")
    assert counts2["address"].lost == ("221B Baker Street",)
    assert counts2["id"].spurious == ("221B",)
    same = critical_token_counts("at 12 Main Street", "at 12 Main Street", "en")["address"]
    assert same.recall() == 1.0 and same.precision() == 1.0
