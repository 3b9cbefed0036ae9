"""Timestamp accuracy: hand-computed pairings and offsets, and the laws they must obey."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.errors import EarmarkError
from earmark.metrics import timestamps
from earmark.metrics.timestamps import (
    BoundaryOffsets,
    OffsetSummary,
    match_segments,
    match_words,
    segment_offsets,
    word_offsets,
)
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.timestamps_section import timestamps_section


def test_docstring_examples() -> None:
    result = doctest.testmod(timestamps, raise_on_error=False)
    assert result.attempted > 0 and result.failed == 0


def test_the_documented_example_runs() -> None:
    """docs/long_form.md's "Timestamp accuracy" example holds exact assertions."""
    text = (Path(__file__).parents[2] / "docs" / "long_form.md").read_text("utf-8")
    block = text.split("## Timestamp accuracy", 1)[1].split("```python", 1)[1].split("```")[0]
    exec(compile(block, "docs/long_form.md", "exec"), {})


def test_words_pair_only_hits_by_text_not_time() -> None:
    ref = [[0.0, 0.4, "The"], [0.4, 0.9, "cat"], [0.9, 1.5, "sat"], [1.5, 2.0, "down."]]
    # "cat" -> "hat" (substitution), "down" deleted, "now" inserted; "sat" is far off in
    # time but is a hit, so it is paired anyway (pairing is by text).
    hyp = [[0.05, 0.4, "the"], [0.4, 0.8, "hat"], [1.2, 1.6, "sat"], [2.0, 2.2, "now"]]
    pairs, dropped_ref, dropped_hyp = match_words(ref, hyp, "en-v1")
    assert (pairs, dropped_ref, dropped_hyp) == ([(0, 0), (2, 2)], 0, 0)
    w = word_offsets(ref, hyp, "en-v1")
    assert w.matched == 2
    assert w.start == pytest.approx((0.05, 0.3))
    assert w.end == pytest.approx((0.0, 0.1))
    assert (w.unmatched_reference, w.unmatched_hypothesis) == (2, 2)
    start, end = OffsetSummary.of(w.start), OffsetSummary.of(w.end)
    assert start.mean == pytest.approx(0.175) and start.median == pytest.approx(0.175)
    assert (start.within_100ms, start.within_200ms) == (0.5, 0.5)
    assert end.mean == pytest.approx(0.05)
    # 0.1 exactly (as 1.6 - 1.5 in floats) counts as within 100 ms: thresholds are inclusive
    assert (end.within_100ms, end.within_200ms) == (1.0, 1.0)


def test_words_that_normalise_to_nothing_are_dropped_and_counted() -> None:
    ref = [[0, 1, "hello"], [1, 1.2, "—"], [1.2, 2, "world"]]
    hyp = [[0, 1, "hello"], [1.3, 2, "world"], [2, 2.1, "?"]]
    w = word_offsets(ref, hyp, "en-v1")
    assert (w.matched, w.dropped_reference, w.dropped_hypothesis) == (2, 1, 1)
    assert (w.unmatched_reference, w.unmatched_hypothesis) == (0, 0)
    assert w.start == pytest.approx((0.0, 0.1))


def test_words_in_characters_are_compared_whole() -> None:
    ref = [[0, 0.5, "你好"], [0.5, 1.0, "世界"]]
    hyp = [[0, 0.5, "你好，"], [0.6, 1.2, "世界"]]
    w = word_offsets(ref, hyp, "zh-eval-v1")
    assert w.matched == 2
    assert w.start == pytest.approx((0.0, 0.1)) and w.end == pytest.approx((0.0, 0.2))


def test_segments_by_overlap_hand_computed() -> None:
    ref = [[0, 4, "a"], [4, 10, "b"], [10, 12, "c"], [20, 22, "d"]]
    hyp = [[0.5, 4.5, "x"], [4.5, 9.0, "y"], [9.0, 13.0, "z"], [30, 31, "q"]]
    # shares: (0,0)=3.5 (1,0)=0.5 (1,1)=4.5 (1,2)=1.0 (2,2)=2.0; d and q share nothing
    assert match_segments(ref, hyp) == [(0, 0), (1, 1), (2, 2)]
    s = segment_offsets(ref, hyp)
    assert s.start == pytest.approx((0.5, 0.5, -1.0))
    assert s.end == pytest.approx((0.5, -1.0, 1.0))
    assert (s.unmatched_reference, s.unmatched_hypothesis) == (1, 1)
    summary = OffsetSummary.of(s.end)
    assert summary.mean == pytest.approx(2.5 / 3) and summary.median == pytest.approx(1.0)
    assert summary.mean_signed == pytest.approx(0.5 / 3)
    assert (summary.within_100ms, summary.within_200ms) == (0.0, 0.0)


def test_one_to_one_greedy_and_the_midpoint_alternative() -> None:
    # One long hypothesis segment covers two reference sentences: paired with the one it
    # covers more (overlap), the other is unmatched; midpoint 4.5 lies in [3, 10).
    ref = [[0, 3, "a"], [3, 10, "b"]]
    hyp = [[0, 9, "x"]]
    assert match_segments(ref, hyp) == [(1, 0)]
    assert match_segments(ref, hyp, rule="midpoint") == [(1, 0)]
    # Overlap and midpoint disagree: [2, 12] shares 4 s with [0, 6) and 4 s with [8, 14),
    # a tie to the earlier reference; its midpoint 7 lies in neither.
    ref = [[0, 6, "a"], [8, 14, "b"]]
    assert match_segments(ref, [[2, 12, "x"]]) == [(0, 0)]
    assert match_segments(ref, [[2, 12, "x"]], rule="midpoint") == []
    # A midpoint on a shared boundary belongs to the later, half-open interval.
    assert match_segments([[0, 5, "a"], [5, 10, "b"]], [[4, 6, "x"]], rule="midpoint") == [(1, 0)]


def test_empty_and_malformed_inputs() -> None:
    assert segment_offsets([[0, 1, "a"]], []).as_dict()["start"] == {
        "mean": None,
        "median": None,
        "mean_signed": None,
        "within_100ms": None,
        "within_200ms": None,
    }
    assert segment_offsets([[0, 1, "a"]], []).unmatched_reference == 1
    with pytest.raises(EarmarkError) as info:
        segment_offsets([[0, 1, "a"]], [[2, 1, "x"]])
    assert info.value.field == "hypothesis_segments[0]"
    with pytest.raises(EarmarkError):
        word_offsets([[0, 1]], [], "en-v1")
    with pytest.raises(EarmarkError):
        match_segments([], [], rule="nearest")  # type: ignore[arg-type]


def test_offsets_only_add() -> None:
    a = segment_offsets([[0, 1, "a"]], [[0.5, 1.5, "a"]])
    b = segment_offsets([[0, 1, "b"], [5, 6, "c"]], [[0.1, 1.0, "b"]])
    total = a + b
    assert total.start == pytest.approx((0.5, 0.1))
    assert (total.matched, total.unmatched_reference) == (2, 1)
    assert BoundaryOffsets.zero() + a == a


# --- property laws -------------------------------------------------------------------

_WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "echo", "fox"])


@st.composite
def _timed(draw: st.DrawFn, max_size: int = 12) -> list[list[object]]:
    """Non-overlapping timed units in order, with gaps, as a manifest would give them."""
    n = draw(st.integers(0, max_size))
    units, t = [], 0.0
    for _ in range(n):
        t += draw(st.integers(0, 5)) / 10
        length = draw(st.integers(1, 20)) / 10
        units.append([round(t, 3), round(t + length, 3), draw(_WORDS)])
        t += length
    return units


@settings(max_examples=150, deadline=None)
@given(_timed())
def test_identical_timings_have_zero_offsets(units: list[list[object]]) -> None:
    for result in (word_offsets(units, units, "en-v1"), segment_offsets(units, units)):
        assert result.matched == len(units)
        assert all(d == 0 for d in result.start + result.end)
        assert (result.unmatched_reference, result.unmatched_hypothesis) == (0, 0)
        if units:
            assert OffsetSummary.of(result.start).within_100ms == 1.0


@settings(max_examples=150, deadline=None)
@given(_timed(), st.integers(-300, 300))
def test_a_shift_by_d_gives_every_offset_d(units: list[list[object]], ms: int) -> None:
    d = ms / 1000
    shifted = [[s + d + 10, e + d + 10, w] for s, e, w in units]  # type: ignore[operator]
    base = [[s + 10, e + 10, w] for s, e, w in units]  # type: ignore[operator]
    words = word_offsets(base, shifted, "en-v1")
    assert words.matched == len(units)
    assert words.start + words.end == pytest.approx((d,) * (2 * len(units)), abs=1e-9)
    # Segments shorter than the shift may lose their counterpart to a neighbour; every
    # pair found is still shifted by exactly d when each unit is longer than 2|d|.
    if all(float(e) - float(s) > 2 * abs(d) for s, e, _ in units):  # type: ignore[arg-type]
        segments = segment_offsets(base, shifted)
        assert segments.matched == len(units)
        assert segments.start + segments.end == pytest.approx((d,) * (2 * len(units)), abs=1e-9)
    if units:
        summary = OffsetSummary.of(words.start)
        assert summary.mean == pytest.approx(abs(d), abs=1e-9)
        assert summary.within_200ms == (1.0 if abs(ms) <= 200 else 0.0)


@settings(max_examples=100, deadline=None)
@given(_timed(), _timed())
def test_pairs_are_one_to_one_and_counts_conserved(
    ref: list[list[object]], hyp: list[list[object]]
) -> None:
    for rule in ("overlap", "midpoint"):
        pairs = match_segments(ref, hyp, rule=rule)  # type: ignore[arg-type]
        assert len({i for i, _ in pairs}) == len({j for _, j in pairs}) == len(pairs)
    w = word_offsets(ref, hyp, "en-v1")
    assert w.matched + w.unmatched_reference + w.dropped_reference == len(ref)
    assert w.matched + w.unmatched_hypothesis + w.dropped_hypothesis == len(hyp)


def test_section_pools_pairs_per_language_and_lists_exclusions() -> None:
    policy = NormalizerPolicy.parse("auto")
    section = timestamps_section(
        [
            {
                "id": "r1",
                "language": "en",
                "reference_segments": [[0, 5, "a b"], [5, 9, "c"]],
                "hypothesis_segments": [[0.2, 5.0, "a b"], [5.0, 9.4, "c"]],
                "reference_words": [[0, 1, "a"], [1, 2, "b"]],
                "hypothesis_words": [[0.05, 1, "a"], [1, 2.3, "b"]],
            },
            {
                "id": "r2",
                "language": "en",
                "reference_segments": [[0, 2, "d"]],
                "hypothesis_segments": [[0.0, 2.1, "d"]],
                "reference_words": [[0, 2, "d"]],
                "hypothesis_words": None,  # the system gave segments but no word timings
            },
        ],
        policy,
    )
    assert section is not None
    en = section["by_language"]["en"]
    assert en["segments"]["recordings"] == 2 and en["segments"]["matched"] == 3
    # start offsets 0.2, 0, 0; end offsets 0, 0.4, 0.1
    assert en["segments"]["start"]["mean"] == pytest.approx(0.2 / 3)
    assert en["segments"]["start"]["median"] == 0.0
    assert en["segments"]["end"]["median"] == pytest.approx(0.1)
    assert en["segments"]["end"]["within_100ms"] == pytest.approx(2 / 3)
    assert en["segments"]["end"]["within_200ms"] == pytest.approx(2 / 3)
    assert en["words"]["recordings"] == 1 and en["words"]["matched"] == 2
    assert en["words"]["end"]["mean"] == pytest.approx(0.15)
    assert section["excluded"] == {
        "words": [{"id": "r2", "reason": "no_hypothesis_timings"}],
        "segments": [],
    }
    assert timestamps_section([{"id": "x", "language": "en"}], policy) is None
