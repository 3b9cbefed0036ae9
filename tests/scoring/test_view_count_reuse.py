"""A view whose pair equals the primary view's on a row takes the primary's counts.

en-v1's `raw` and `normalized` views of an already normalised text are the same strings:
the scorer aligns them once (`counting._count`). These tests pin that every view's
per-row counts are still those of aligning that view's own texts (hand-checked and
recomputed pair by pair), on rows where the views agree, differ, or one is unavailable.
"""

from __future__ import annotations

from earmark.formats.rows import MISSING_HYPOTHESIS, ScoringRow
from earmark.metrics.alignment import count_errors
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import BootstrapSettings

ROWS = [
    ScoringRow("same", "the cat sat", "the cat sad"),  # raw == normalized
    ScoringRow("differs", "The Cat sat.", "the cat, sat"),  # raw 2 subs, normalized 0
    ScoringRow("colour", "the colour red", "the color red"),  # normalized spelling merges
    ScoringRow("missing", "a b c", None, status=MISSING_HYPOTHESIS),
    ScoringRow("empty", "", "hello"),
    ScoringRow("twenty", "twenty five cats", "25 cats"),
]


def _records() -> list[dict]:  # type: ignore[type-arg]
    options = ScoringOptions(
        policy=NormalizerPolicy.parse("en-v1"), bootstrap=BootstrapSettings(resamples=0)
    )
    return score_rows(ROWS, options).records


def test_each_views_counts_are_its_own_texts_alignment() -> None:
    for record in _records():
        for view in ("raw", "normalized"):
            entry = record["views"][view]
            ref, hyp = entry["reference"], entry["hypothesis"]
            for metric, units in (("wer", str.split), ("cer", list)):
                expected = count_errors(units(ref), units(hyp)).as_dict()
                got = {k: entry[metric][k] for k in expected}
                assert got == expected, (record["id"], view, metric)


def test_hand_counted_rows() -> None:
    by_id = {r["id"]: r["views"] for r in _records()}
    # identical views: one substitution (sat/sad) in both, word and character
    for view in ("raw", "normalized"):
        assert by_id["same"][view]["wer"]["substitutions"] == 1
        assert by_id["same"][view]["cer"]["substitutions"] == 1
    # raw: "The" vs "the" and "sat." vs "sat" and "Cat" vs "cat," differ; normalized: none
    assert by_id["differs"]["raw"]["wer"]["substitutions"] == 3
    assert by_id["differs"]["normalized"]["wer"]["hits"] == 3
    assert by_id["colour"]["raw"]["wer"]["substitutions"] == 1
    assert by_id["colour"]["normalized"]["wer"]["substitutions"] == 0
    assert by_id["missing"]["normalized"]["wer"]["deletions"] == 3
    assert by_id["twenty"]["normalized"]["wer"]["hits"] == 2
    raw = by_id["twenty"]["raw"]["wer"]  # twenty/25 substituted, five deleted
    assert (raw["substitutions"], raw["deletions"], raw["hits"]) == (1, 1, 1)
