"""ga-v1 by hand-computed cases: fadas, mutation prefixes, apostrophes, punctuation."""

from __future__ import annotations

import pytest

from earmark.metrics.tokens import words
from earmark.text import ViewPair, get_normalizer, normalize_text

GA = get_normalizer("ga-v1")


def _norm(text: str) -> str | None:
    return normalize_text("ga-v1", text)["normalized"]


def test_shape() -> None:
    assert GA.views == ("raw", "normalized")
    assert GA.primary_view == "normalized"
    assert GA.units == ("word", "char")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("an tAthair", "an t-athair"),
        ("nÉirinn", "n-Éirinn"),
        ("i nÉirinn", "i n-éirinn"),
        ("Tír na nÓg", "tír na n-óg"),
        ("d’athair", "d'athair"),
        ("féar", "fe\u0301ar"),  # precomposed vs decomposed fada
        ("Dia dhuit!", "dia dhuit"),
        ("  Tá   sé ", "tá sé"),
    ],
)
def test_same_normalised_form(a: str, b: str) -> None:
    assert _norm(a) == _norm(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("fear", "féar"),  # fada is a contrast
        ("bean", "bhean"),  # lenition
        ("bean", "mbean"),  # eclipsis
        ("Gaillimh", "nGaillimh"),
        ("Éireann", "hÉireann"),
        ("athair", "t-athair"),
    ],
)
def test_contrasts_are_kept(a: str, b: str) -> None:
    assert _norm(a) != _norm(b)


def test_hand_computed_sentence() -> None:
    text = "Tá an tAthair i nÉirinn, ach d’fhág sé Gaillimh."
    assert _norm(text) == "tá an t-athair i n-éirinn ach d'fhág sé gaillimh"
    assert len(words(_norm(text) or "")) == 9


def test_prefix_letters_survive() -> None:
    assert _norm("i nGaillimh na hÉireann, an bhean, ár mbean") == (
        "i ngaillimh na héireann an bhean ár mbean"
    )


def test_apostrophes_and_hyphens_never_split_a_word() -> None:
    for token in ("d'athair", "t-athair", "n-éirinn", "b'fhéidir", "dea-scéal"):
        assert words(_norm(token) or "") == [token]


def test_punctuation_never_merges_words() -> None:
    assert words(_norm("fear,féar;bean.athair") or "") == ["fear", "féar", "bean", "athair"]


def test_edge_apostrophes_and_dashes_removed() -> None:
    assert _norm("'sea' - fear -- bean") == "sea fear bean"


def test_number_separators() -> None:
    assert _norm("3.5, 1,000 agus 10:30.") == "3.5 1,000 agus 10:30"


def test_capital_t_or_n_is_not_a_prefix() -> None:
    assert _norm("Tá Níl TAthair") == "tá níl tathair"


def test_pair_applies_one_transformation_to_both_sides() -> None:
    assert GA.normalize_pair("An tAthair.", "an t-athair")["normalized"] == ViewPair(
        "an t-athair", "an t-athair"
    )
