"""Selection rules, hand-checked, and the laws that make them reproducible."""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from earmark.corpus.model import Utterance
from earmark.corpus.selection import (
    Exclusion,
    filter_rows,
    first_n,
    first_n_distinct_texts,
    hash_fraction,
    hash_subset,
    select,
    slice_counts,
    speaker_leakage,
)


def u(
    i: str,
    text_id: str | None = None,
    lang: str = "zh",
    slices: tuple[str, ...] = (),
    speaker: str | None = None,
    text: str = "t",
) -> Utterance:
    return Utterance(
        id=i,
        audio=f"{i}.wav",
        text=text,
        language=lang,
        speaker=speaker,
        slices=slices,
        text_id=text_id,
    )


FLEURS_LIKE = [
    u("r1", "1779", slices=("zh",)),
    u("r2", "1779", slices=("zh",)),  # second recording of the same sentence
    u("r3", "1780", slices=("zh", "numbers")),
    u("r4", "1781"),
    u("r5", "1780"),
    u("r6", "1782"),
    u("r7", "1783"),
]


def test_first_n() -> None:
    kept, rec = first_n(FLEURS_LIKE, 3)
    assert [r.id for r in kept] == ["r1", "r2", "r3"]
    assert rec.input_rows == 7 and rec.kept_rows == 3
    assert rec.excluded_counts() == {"after_limit": 4}
    assert rec.per_slice == {"numbers": 1, "zh": 3}
    assert rec.rule == "first 3 rows in file order"


def test_first_n_distinct_texts_seed_001_rule() -> None:
    kept, rec = first_n_distinct_texts(FLEURS_LIKE, 3)
    assert [r.id for r in kept] == ["r1", "r3", "r4"]
    assert rec.exclusions == (
        Exclusion("r2", "repeated_text"),
        Exclusion("r5", "repeated_text"),
        Exclusion("r6", "after_limit"),
        Exclusion("r7", "after_limit"),
    )
    assert rec.kept_rows + len(rec.exclusions) == rec.input_rows


def test_distinct_falls_back_to_text() -> None:
    rows = [u("a", text="你好"), u("b", text="你好"), u("c", text="再见")]
    kept, rec = first_n_distinct_texts(rows, 5)
    assert [r.id for r in kept] == ["a", "c"]
    assert rec.excluded_counts() == {"repeated_text": 1}


def test_hash_fraction_formula() -> None:
    digest = hashlib.sha256(b"2026:utt-1").digest()
    assert hash_fraction(2026, "utt-1") == int.from_bytes(digest[:8], "big") / 2**64


def test_hash_subset_independent_of_order_and_deterministic() -> None:
    rows = [u(f"utt-{i}") for i in range(2000)]
    kept, rec = hash_subset(rows, 0.25, seed=7)
    shuffled = rows[:]
    random.Random(1).shuffle(shuffled)
    kept2, _ = hash_subset(shuffled, 0.25, seed=7)
    assert {r.id for r in kept} == {r.id for r in kept2}
    assert 400 < len(kept) < 600  # ~500 expected; binomial sd ~19
    assert rec.excluded_counts() == {"outside_fraction": 2000 - len(kept)}
    other, _ = hash_subset(rows, 0.25, seed=8)
    assert {r.id for r in other} != {r.id for r in kept}
    assert (
        hash_subset(rows, 0.0, seed=7)[0] == [] and len(hash_subset(rows, 1.0, seed=7)[0]) == 2000
    )


@given(st.floats(0, 1), st.floats(0, 1))
def test_hash_subsets_nest(f1: float, f2: float) -> None:
    """A smaller fraction with the same seed is a subset of a larger one."""
    rows = [u(f"x{i}") for i in range(60)]
    small, large = sorted([f1, f2])
    a = {r.id for r in hash_subset(rows, small, "s")[0]}
    b = {r.id for r in hash_subset(rows, large, "s")[0]}
    assert a <= b


def test_filter_rows_language_prefix_and_slices() -> None:
    rows = [
        u("a", lang="zh-CN", slices=("numbers",)),
        u("b", lang="zh"),
        u("c", lang="zho"),
        u("d", lang="en", slices=("numbers",)),
    ]
    kept, rec = filter_rows(rows, languages=["zh"])
    assert [r.id for r in kept] == ["a", "b"]
    assert rec.excluded_counts() == {"language_filtered": 2}
    kept, rec = filter_rows(rows, languages=["zh"], slices=["numbers"])
    assert [r.id for r in kept] == ["a"]
    assert rec.excluded_counts() == {"language_filtered": 2, "slice_filtered": 1}


def test_select_composes_in_documented_order() -> None:
    rows = [u("e1", "t1", lang="en")] + FLEURS_LIKE
    kept, rec = select(rows, languages=["zh"], distinct_texts=True, n=2)
    assert [r.id for r in kept] == ["r1", "r3"]
    assert rec.input_rows == 8
    assert rec.rule == (
        "language in {zh}; then first 2 distinct text_id (else text) in file order, "
        "first recording of each"
    )
    # r2 and r5 repeat a chosen sentence; r4, r6, r7 come after the limit.
    assert rec.excluded_counts() == {"after_limit": 3, "language_filtered": 1, "repeated_text": 2}
    assert rec.kept_rows + len(rec.exclusions) == rec.input_rows
    with pytest.raises(ValueError):
        select(rows, fraction=0.5)


def test_slice_counts() -> None:
    assert slice_counts(FLEURS_LIKE) == {"numbers": 1, "zh": 3}


def test_speaker_leakage() -> None:
    a = [u("1", speaker="s1"), u("2", speaker="s2"), u("3")]
    b = [u("4", speaker="s2"), u("5", speaker="s3"), u("6", speaker="s1")]
    result = speaker_leakage(a, b)
    assert result.shared == ("s1", "s2") and result.leaked
    assert (result.a_speakers, result.b_speakers) == (3 - 1, 3)
    assert (result.a_rows_without_speaker, result.b_rows_without_speaker) == (1, 0)
    assert not speaker_leakage(a[:1], b[:2]).leaked
