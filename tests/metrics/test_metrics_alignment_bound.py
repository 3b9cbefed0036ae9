"""One alignment is bounded (issue 24, item 10): a pair over `MAX_ALIGNMENT_CELLS` is
refused before any work with one line naming the utterance, and the limit sits far above
a real recording (a 2-hour one still scores, in words and in characters)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.metrics.alignment import (
    MAX_ALIGNMENT_CELLS,
    AlignmentTooLarge,
    EditTally,
    align,
    check_alignment_size,
    count_errors,
    count_errors_array,
)

#: 400k x 400k words: the case that ran past 300 s.
HUGE = 400_000


def test_the_limit_is_exact() -> None:
    check_alignment_size(100_000, 200_000)  # 2e10 cells: allowed
    with pytest.raises(AlignmentTooLarge) as caught:
        check_alignment_size(100_000, 200_001, index=3)
    assert caught.value.index == 3 and caught.value.limit == MAX_ALIGNMENT_CELLS
    assert "20,000,100,000 cells" in str(caught.value) and "\n" not in str(caught.value)


def test_a_two_hour_recording_is_under_the_limit() -> None:
    # ~150 words a minute, ~6 characters a word (with the space): 18k words, 108k chars;
    # at a fast 180 words a minute, 130k characters.
    check_alignment_size(18_000, 18_000)
    check_alignment_size(130_000, 130_000)
    ref = " ".join(f"w{i % 997}" for i in range(18_000))
    hyp = " ".join(f"w{i % 991}" for i in range(18_000))
    (row,) = count_errors_array([(ref, hyp)], units="words").tolist()
    assert sum(row[:2]) + row[3] == 18_000  # S + D + C = N_ref


@pytest.mark.parametrize("units", ["words", "given"])
@pytest.mark.parametrize("tallied", [False, True])
def test_a_huge_pair_is_refused_up_front(units: str, tallied: bool) -> None:
    words = "a " * HUGE
    pair = (words, "b " * HUGE) if units == "words" else (words.split(), ("b " * HUGE).split())
    pairs = [("a b", "a c"), pair]
    tallies = [EditTally(), EditTally()] if tallied else None
    t0 = time.perf_counter()
    with pytest.raises(AlignmentTooLarge) as caught:
        count_errors_array(pairs, units=units, tallies=tallies)  # type: ignore[arg-type]
    assert time.perf_counter() - t0 < 5  # refused, not attempted (it would take minutes)
    assert (caught.value.index, caught.value.n_ref, caught.value.n_hyp) == (1, HUGE, HUGE)


def test_long_texts_with_few_words_are_not_refused() -> None:
    # Over the limit in characters, far under it in words: the words are counted.
    ref = "x" * 150_000 + " end"
    hyp = "y" * 150_000 + " end"
    assert count_errors_array([(ref, hyp)], units="words").tolist() == [[1, 0, 0, 1]]


def test_single_pair_entry_points_are_bounded() -> None:
    ref, hyp = ["a"] * HUGE, ["b"] * HUGE
    with pytest.raises(AlignmentTooLarge):
        count_errors(ref, hyp)
    with pytest.raises(AlignmentTooLarge):
        align(ref, hyp)


def test_score_names_the_utterance_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"id": "fine", "reference": "a b", "hypothesis": "a c"},
        {"id": "loop|<script>", "reference": "x " * 150_000, "hypothesis": "y " * 150_000},
    ]
    preds = tmp_path / "p.jsonl"
    preds.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    args = ["score", str(preds), "--normalizer", "none", "--language", "en", "--bootstrap", "0"]
    assert main([*args, "--out", str(tmp_path / "out"), "--quiet"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("earmark: error: utterance 'loop|<script>': aligning 150,000")
    assert "over the limit of 20,000,000,000 cells" in line


@pytest.mark.parametrize("shared", [False, True])
def test_a_refused_batch_counts_nothing(shared: bool) -> None:
    # The sizes are checked before any pair is counted: a generator's pairs, a huge
    # third pair, and the tallies and distinct counts of the two before it left empty.
    tally = EditTally()
    tallies = [tally] * 3 if shared else [tally, EditTally(), EditTally()]
    distinct: list[int] = []
    pairs = (p for p in [("a b", "a c"), ("x", "y z"), ("a " * HUGE, "b " * HUGE)])
    with pytest.raises(AlignmentTooLarge) as caught:
        count_errors_array(pairs, units="words", tallies=tallies, distinct=distinct)
    assert caught.value.index == 2
    assert tally == EditTally() and distinct == []
