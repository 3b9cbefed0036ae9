"""Hand-computed cases for long-recording metrics (seed 000: CER by interval, omissions, repeats)."""

from __future__ import annotations

import pytest

from earmark.errors import EarmarkError
from earmark.metrics.counts import ErrorCounts
from earmark.metrics.long_form import (
    assign_to_intervals,
    error_rate_by_time,
    find_repeats,
    interval_counts,
)

THREE = [[0, 10, "red green"], [10, 20, "blue white"], [20, 30, "black orange"]]


def test_middle_interval_omitted() -> None:
    hyp = [[0, 10, "red green"], [20, 30, "black orange"]]
    r = interval_counts(THREE, hyp, "en-v1")
    assert [i.omitted for i in r.intervals] == [False, True, False]
    assert [i.counts for i in r.intervals] == [
        ErrorCounts(hits=2),
        ErrorCounts(deletions=2),
        ErrorCounts(hits=2),
    ]
    assert r.omitted_intervals == 1
    assert r.speech_intervals == 3
    assert r.total == ErrorCounts(deletions=2, hits=4)
    assert r.error_rate() == pytest.approx(2 / 6)
    assert r.whole == ErrorCounts(deletions=2, hits=4)
    assert r.repeats == ()


def test_straddling_segment_goes_by_midpoint_and_attribution_costs_more_than_alignment() -> None:
    ref = [[0, 10, "red green"], [10, 20, "blue white"]]
    # "green" is spoken in interval 0 but emitted in a segment whose midpoint (11) is in 1.
    hyp = [[0, 7, "red"], [7, 15, "green blue"], [15, 20, "white"]]
    a = assign_to_intervals(ref, hyp)
    assert a.texts == ("red", "green blue white")
    assert a.owner == (0, 1, 1)
    r = interval_counts(ref, hyp, "en-v1")
    assert r.intervals[0].counts == ErrorCounts(deletions=1, hits=1)
    assert r.intervals[1].counts == ErrorCounts(insertions=1, hits=2)
    assert r.total.errors == 2 and r.error_rate() == 0.5
    assert r.whole == ErrorCounts(hits=4)  # the whole-text alignment matches everything
    assert r.omitted_intervals == 0


def test_midpoint_on_boundary_goes_to_later_interval() -> None:
    ref = [[0, 10, "a"], [10, 20, "b"]]
    assert assign_to_intervals(ref, [[8, 12, "x"]]).owner == (1,)
    # Half-open intervals: a midpoint on the last interval's end is a gap output.
    assert assign_to_intervals(ref, [[19, 21, "x"]], gaps="separate").unassigned == (0,)


def test_overlap_rule_differs_from_midpoint_across_a_gap() -> None:
    ref = [[0, 10, "a"], [12, 14, "b"]]
    hyp = [[5, 15, "x"]]  # midpoint 10 is in the gap; 5 s shared with interval 0, 2 s with 1
    mid = assign_to_intervals(ref, hyp, gaps="separate")
    assert mid.unassigned == (0,) and mid.owner == (None,)
    over = assign_to_intervals(ref, hyp, rule="overlap")
    assert over.owner == (0,) and over.unassigned == ()
    # Equal overlap goes to the later interval; a zero-length segment uses its midpoint.
    assert assign_to_intervals(
        [[0, 10, "a"], [10, 20, "b"]], [[5, 15, "x"]], rule="overlap"
    ).owner == (1,)
    assert assign_to_intervals(ref, [[3, 3, "x"]], rule="overlap").owner == (0,)


def test_overlapping_reference_intervals_latest_start_wins() -> None:
    ref = [[0, 20, "a"], [5, 10, "b"], [15, 30, "c"]]
    a = assign_to_intervals(ref, [[6, 8, "x"], [16, 18, "y"], [11, 13, "z"]])
    assert a.owner == (1, 2, 0)


def test_gap_output_nearest_or_separate() -> None:
    ref = [[0, 5, "red"], [10, 15, "blue"]]
    hyp = [[0, 5, "red"], [6, 7, "green"], [10, 15, "blue"]]
    near = interval_counts(ref, hyp, "en-v1")  # midpoint 6.5: 1.5 s from 0, 3.5 s from 1
    assert near.intervals[0].hypothesis == "red green"
    assert near.intervals[0].counts == ErrorCounts(insertions=1, hits=1)
    assert near.gap_counts == ErrorCounts()
    assert [(g.segment_index, g.units, g.assigned_to) for g in near.gap_outputs] == [(1, 1, 0)]
    sep = interval_counts(ref, hyp, "en-v1", gaps="separate")
    assert [i.counts for i in sep.intervals] == [ErrorCounts(hits=1), ErrorCounts(hits=1)]
    assert sep.gap_counts == ErrorCounts(insertions=1)
    assert [(g.segment_index, g.assigned_to) for g in sep.gap_outputs] == [(1, None)]
    assert near.total == sep.total == ErrorCounts(insertions=1, hits=2)
    # Equidistant gap output (midpoint 7.5) goes to the later interval.
    assert assign_to_intervals(ref, [[7, 8, "x"]]).owner == (1,)


def test_output_with_no_reference_intervals_is_all_insertions() -> None:
    for gaps in ("nearest", "separate"):  # "nearest" has no interval to append to
        r = interval_counts([], [[0, 2, "hello there"]], "en-v1", gaps=gaps)
        assert r.intervals == () and r.total == ErrorCounts(insertions=2)
        assert r.error_rate() is None
        assert [b.counts.insertions for b in error_rate_by_time(r, 600)] == [2]


def test_repeated_segment_and_loop() -> None:
    hyp = [
        [0, 2, "Thank you."],
        [2, 4, "thank you"],
        [4, 6, "thank you"],
        [6, 8, "go go go go"],
        [8, 9, "!!"],
        [9, 10, "!!"],
    ]
    repeats = find_repeats(hyp, "en-v1")
    assert [(p.kind, p.segment_index) for p in repeats] == [
        ("consecutive_duplicate", 1),
        ("consecutive_duplicate", 2),
        ("loop", 3),
    ]  # empty normalised segments ("!!") are never duplicates
    r = interval_counts([[0, 10, "thank you for coming"]], hyp, "en-v1")
    assert len(r.repeats) == 3


def test_repeats_in_time_order_not_input_order() -> None:
    hyp = [[4, 6, "hello"], [0, 2, "hello"], [2, 4, "world"]]
    assert find_repeats(hyp, "en-v1") == []


def test_chinese_character_units() -> None:
    ref = [[0, 5, "你好，世界。"], [5, 10, "今天天气很好"], [10, 15, "谢谢"]]
    hyp = [[0, 5, "你好世界"], [5, 10, "今天天很好"]]
    r = interval_counts(ref, hyp, "zh-eval-v1")
    assert r.unit == "char" and r.view == "normalized"
    assert [i.counts for i in r.intervals] == [
        ErrorCounts(hits=4),
        ErrorCounts(deletions=1, hits=5),
        ErrorCounts(deletions=2),
    ]
    assert r.omitted_intervals == 1
    assert r.error_rate() == pytest.approx(3 / 12)
    loop = find_repeats([[0, 1, "哈哈哈哈"]], "zh-eval-v1")
    assert [p.kind for p in loop] == ["loop"]


def test_error_rate_by_time_bins() -> None:
    ref = [[0, 100, "red green"], [500, 700, "blue white"], [1300, 1400, "black"]]
    hyp = [[0, 100, "red green"], [500, 700, "blue"]]
    r = interval_counts(ref, hyp, "en-v1")
    bins = error_rate_by_time(r, 600)
    assert [(b.start, b.end) for b in bins] == [(0, 600), (600, 1200), (1200, 1800)]
    # [500, 700] has midpoint 600: the second bin (bins are half-open like intervals).
    assert [b.error_rate() for b in bins] == [0.0, 0.5, 1.0]
    assert [b.omitted for b in bins] == [0, 0, 1]
    pooled = error_rate_by_time([r, r], 600)
    assert [b.counts.ref_units for b in pooled] == [4, 4, 2]
    with pytest.raises(EarmarkError):
        error_rate_by_time(r, 0)


def test_empty_bin_has_no_rate() -> None:
    r = interval_counts([[0, 10, "red"], [1250, 1260, "blue"]], [], "en-v1")
    assert [b.error_rate() for b in error_rate_by_time(r, 600)] == [1.0, None, 1.0]


def test_gap_insertions_land_in_their_bin_when_separate() -> None:
    r = interval_counts(
        [[0, 10, "red"]], [[0, 10, "red"], [900, 910, "spam spam"]], "en-v1", gaps="separate"
    )
    assert [b.counts.insertions for b in error_rate_by_time(r, 600)] == [0, 2]


@pytest.mark.parametrize(
    "segment",
    [[5, 1, "x"], [0, float("nan"), "x"], [-1, 2, "x"], [0, 1], [0, 1, 3], "abc", [True, 1, "x"]],
)
def test_malformed_segments_raise_user_errors(segment: object) -> None:
    with pytest.raises(EarmarkError):
        interval_counts([segment], [], "en-v1")  # type: ignore[list-item]


def test_bad_options_raise() -> None:
    with pytest.raises(EarmarkError):
        assign_to_intervals([], [], rule="start")  # type: ignore[arg-type]
    with pytest.raises(EarmarkError):
        assign_to_intervals([], [], gaps="drop")  # type: ignore[arg-type]


def test_two_hour_recording_is_fast() -> None:
    import time

    words = ["red", "green", "blue", "cat", "dog", "sat", "ran", "hello", "world", "tree"]
    ref = [
        [i * 4.0, i * 4.0 + 3.5, " ".join(words[(i + k) % 10] for k in range(8))]
        for i in range(1800)
    ]
    hyp = [[s[0] + 0.3, s[1] + 0.3, s[2]] for s in ref if int(s[0]) % 40]  # drop every 10th
    t0 = time.perf_counter()
    r = interval_counts(ref, hyp, "en-v1")
    elapsed = time.perf_counter() - t0
    assert r.omitted_intervals == 180
    assert r.whole is not None and r.total.errors == r.whole.errors == 180 * 8
    assert len(error_rate_by_time(r, 600)) == 12
    assert elapsed < 5.0
