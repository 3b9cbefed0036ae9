"""Punctuation and critical-token result sections, checked against hand-computed counts."""

from __future__ import annotations

import json

import jsonschema
import pytest

from earmark.errors import EarmarkError
from earmark.formats.rows import MISSING_HYPOTHESIS, ScoringRow
from earmark.metrics.punctuation import MAX_ALIGNMENT_CELLS, NO_MARKS_REASON
from earmark.render.results import results_schema
from earmark.scoring.extra_metrics import critical_tokens_section, punctuation_section
from earmark.stats.settings import BootstrapSettings

PUNCT_ROWS = [
    # ， at the right place as ","; 。 at the right place as "!": 2 position, 1 type match.
    ScoringRow("r1", "你好，世界。", "你好,世界!", "zh", ("a",)),
    # The question mark is missing.
    ScoringRow("r2", "对吗？", "对吗", "zh", ("a", "b")),
    # The comma is missing, the full stop is right.
    ScoringRow("r3", "Hi, there.", "Hi there.", "en"),
]


def test_punctuation_overall_language_and_slice() -> None:
    section = punctuation_section(PUNCT_ROWS, bootstrap=BootstrapSettings(resamples=500, seed=1))
    overall = section["overall"]
    assert (overall["ref_marks"], overall["hyp_marks"]) == (5, 3)
    assert (overall["position_matches"], overall["type_matches"]) == (3, 2)
    assert overall["position"]["precision"]["value"] == 1.0
    assert overall["position"]["recall"]["value"] == pytest.approx(3 / 5)
    assert overall["position"]["f1"]["value"] == pytest.approx(6 / 8)
    assert overall["position_type"]["precision"]["value"] == pytest.approx(2 / 3)
    assert overall["position_type"]["recall"]["value"] == pytest.approx(2 / 5)
    assert overall["position_type"]["f1"]["value"] == pytest.approx(4 / 8)
    low, high = overall["position"]["f1"]["ci95"]
    assert low <= 0.75 <= high

    zh, en = section["by_language"]["zh"], section["by_language"]["en"]
    assert zh["position"]["f1"]["value"] == pytest.approx(4 / 5)
    assert zh["position_type"]["f1"]["value"] == pytest.approx(2 / 5)
    assert en["position"]["f1"]["value"] == pytest.approx(2 / 3)

    only_b = section["by_slice"]["b"]
    assert only_b["position"]["precision"] == {
        "value": None,
        "ci95": None,
        "null_reason": "the hypothesis has no punctuation marks",
    }
    assert only_b["position"]["recall"]["value"] == 0.0
    assert section["by_slice"]["a"]["n_utterances"] == 2

    per_type = overall["per_type"]
    assert {k: (v["ref"], v["hyp"], v["matched"]) for k, v in per_type.items()} == {
        "，": (2, 1, 1),
        "。": (2, 1, 1),
        "！": (0, 1, 0),
        "？": (1, 0, 0),
    }
    assert (
        per_type["！"]["recall"]["null_reason"]
        == "the reference has no punctuation marks of this type"
    )
    assert section["probes_passed"] and len(section["probes"]) >= 8


def test_punctuation_undefined_is_none_with_reason() -> None:
    section = punctuation_section(
        [ScoringRow("x", "你好", "你好")], bootstrap=BootstrapSettings(resamples=100)
    )
    f1 = section["overall"]["position"]["f1"]
    assert f1 == {"value": None, "ci95": None, "null_reason": NO_MARKS_REASON}
    assert section["overall"]["null_reason"] == NO_MARKS_REASON


def test_missing_hypothesis_loses_its_marks_and_repeats_cluster() -> None:
    rows = [
        ScoringRow("c#0", "好，的。", "好，的。", "zh", cluster="c"),
        ScoringRow("c#1", "好，的。", None, "zh", status=MISSING_HYPOTHESIS, cluster="c"),
    ]
    overall = punctuation_section(rows, bootstrap=BootstrapSettings(resamples=200))["overall"]
    assert (overall["ref_marks"], overall["hyp_marks"], overall["position_matches"]) == (4, 2, 2)
    assert overall["n_utterances"] == 2 and overall["n_clusters"] == 1
    # One cluster: every resample is the whole corpus, so the interval is a point.
    assert overall["position"]["f1"]["ci95"] == [pytest.approx(4 / 6), pytest.approx(4 / 6)]


def test_too_long_pairs_are_excluded_and_listed() -> None:
    side = int(MAX_ALIGNMENT_CELLS**0.5) + 10
    rows = [ScoringRow("long", "好" * side + "。", "好" * side), ScoringRow("ok", "好。", "好。")]
    section = punctuation_section(rows, bootstrap=BootstrapSettings(resamples=0))
    assert section["excluded"] == [{"id": "long", "reason": "alignment_too_large"}]
    assert section["n_scored"] == 1 and section["overall"]["position"]["f1"]["value"] == 1.0


TOKEN_ROWS = [
    ScoringRow(
        "z1",
        "会议在2024年3月5日上午9点开始。",
        "会议在2024年3月5日上午9点开始。",
        "zh",
        ("numbers",),
    ),
    ScoringRow("z2", "价格是199元。", "价格是一百九十九元。", "zh", ("numbers",)),
    ScoringRow("e1", "", "call 555-0199", "en", ("no-speech",)),
    ScoringRow("e2", "Visit www.example.com today.", None, "en", status=MISSING_HYPOTHESIS),
]


def test_critical_tokens_hand_computed() -> None:
    section = critical_tokens_section(
        TOKEN_ROWS,
        bootstrap=BootstrapSettings(resamples=500, seed=3),
        slice_minimums={"numbers": 3, "long": 1},
    )
    cats = section["overall"]["categories"]
    assert (cats["date"]["ref"], cats["date"]["matched"]) == (1, 1)
    assert (cats["time"]["ref"], cats["time"]["matched"]) == (1, 1)
    assert (cats["currency"]["ref"], cats["currency"]["hyp"], cats["currency"]["matched"]) == (
        1,
        1,
        0,
    )
    assert cats["currency"]["recall"]["value"] == 0.0
    assert (cats["url"]["ref"], cats["url"]["lost"]) == (1, 1)
    assert (cats["id"]["hyp"], cats["id"]["spurious"]) == (1, 1)
    assert cats["email"]["recall"] == {
        "value": None,
        "ci95": None,
        "null_reason": "no reference token of this category",
    }
    total = cats["total"]
    assert (total["ref"], total["hyp"], total["matched"]) == (4, 4, 2)
    assert total["recall"]["value"] == 0.5 and total["precision"]["value"] == 0.5
    assert total["recall"]["ci95"][0] <= 0.5 <= total["recall"]["ci95"][1]

    assert section["overall"]["exact_match"]["matched"] == 1
    assert section["overall"]["exact_match"]["value"] == 0.25
    assert section["by_slice"]["numbers"]["exact_match"]["value"] == 0.5
    assert section["by_language"]["en"]["exact_match"]["value"] == 0.0

    assert section["slice_counts"]["numbers"] == {
        "n_utterances": 2,
        "n_clusters": 2,
        "minimum": 3,
        "below_minimum": True,
    }
    assert section["slice_counts"]["long"]["n_utterances"] == 0
    assert section["shortfall"] == ["long", "numbers"]

    failures = {f["id"]: f for f in section["failures"]}
    assert set(failures) == {"z2", "e1", "e2"}
    assert failures["z2"]["lost"] == {"currency": ["199元"]}
    assert failures["z2"]["spurious"] == {"currency": ["一百九十九元"]}
    assert failures["e1"]["kind"] == "spurious_only" and failures["e1"]["spurious"] == {
        "id": ["555-0199"]
    }
    assert (
        failures["e2"]["lost"] == {"url": ["www.example.com"]}
        and failures["e2"]["status"] == MISSING_HYPOTHESIS
    )
    assert section["n_failures"] == {"lost_or_changed": 2, "spurious_only": 1}


def test_sections_fit_the_results_schema() -> None:
    """The arm object accepts both sections as `punctuation` and `critical_tokens`."""
    schema = results_schema()
    arm_schema = schema["$defs"]["arm"]
    sections = {
        "punctuation": punctuation_section(PUNCT_ROWS, bootstrap=BootstrapSettings(resamples=50)),
        "critical_tokens": critical_tokens_section(
            TOKEN_ROWS, bootstrap=BootstrapSettings(resamples=50)
        ),
    }
    for name, section in sections.items():
        jsonschema.validate(section, arm_schema["properties"][name])
        json.dumps(section, allow_nan=False)  # plain JSON: no NaN or numpy scalars


def test_both_sections_record_the_settings_they_drew_with() -> None:
    settings = BootstrapSettings(resamples=30, seed=5, level=0.9)
    for section in (
        punctuation_section(PUNCT_ROWS, bootstrap=settings),
        critical_tokens_section(TOKEN_ROWS, bootstrap=settings),
    ):
        assert section["bootstrap"] == {
            "resamples": 30,
            "seed": 5,
            "level": 0.9,
            "generator": "numpy-pcg64-poisson",
            "method": "percentile",
            "unit": "clip (rows sharing a cluster key are resampled together)",
        }
    for section_of in (punctuation_section, critical_tokens_section):
        with pytest.raises(EarmarkError, match="must be >= 0, got -1") as caught:
            section_of(PUNCT_ROWS, bootstrap=BootstrapSettings(resamples=-1))
        assert caught.value.field == "resamples"
