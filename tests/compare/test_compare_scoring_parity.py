"""compare's figures are score_rows' figures: same counts, same values, same CIs."""

from __future__ import annotations

from pathlib import Path

from compare_fixtures import write_rows

from earmark.compare.api import compare
from earmark.scoring import NormalizerPolicy, ScoringOptions, ScoringRow, score_rows

ROWS = [
    ("e1", "en", "The cat sat on the mat.", "the cat sat on a mat", ["read"]),
    ("e2", "en", "Hello world", "hello, world!", ["read"]),
    ("e3", "en", "It's twenty past two", "its twenty past to", []),
    ("e4", "en", "Please call me", None, ["read"]),
    ("z1", "zh", "我爱北京天安门。", "我爱北京天安门", ["read"]),
    ("z2", "zh", "今天天气很好", "今天天气不好吧", []),
    ("g1", "ga", "An tAthair", "an t-athair", []),
]


def test_vs_human_equals_score_rows(tmp_path: Path) -> None:
    rows = [
        {"id": i, "language": lang, "reference": ref, "hypothesis": hyp, "slices": sl}
        for i, lang, ref, hyp, sl in ROWS
    ]
    spec = write_rows(tmp_path / "sys.jsonl", rows)
    result = compare([spec], normalizer="auto", resamples=500, seed=11, jobs=1)
    options = ScoringOptions(policy=NormalizerPolicy.parse("auto"), resamples=500, seed=11)
    scored = score_rows(
        [
            ScoringRow(id=i, reference=ref, hypothesis=hyp, language=lang, slices=tuple(sl))
            for i, lang, ref, hyp, sl in ROWS
        ],
        options,
    ).to_dict()
    arm = result["arms"]["sys"]
    assert arm["vs_human"]["wer"]["value"] is None
    assert "different normalisers" in arm["vs_human"]["wer"]["null_reason"]
    for lang, block in scored["by_language"].items():
        primary = block["views"][block["primary_view"]]
        mine = arm["by_language"][lang]["vs_human"]
        for metric, expected in primary.items():
            if metric == "mixed_er":  # score/run only; compare counts the normaliser's units
                continue
            assert mine[metric] == expected, (lang, metric)
        if "wer" not in primary:
            assert mine["wer"]["value"] is None
    # A slice that spans normalisers is null with the reason, never a mixed number.
    assert arm["by_slice"]["read"]["vs_human"]["cer"]["value"] is None


def test_single_normaliser_overall_equals_score_rows(tmp_path: Path) -> None:
    en = [r for r in ROWS if r[1] == "en"]
    rows = [{"id": i, "reference": ref, "hypothesis": hyp} for i, _, ref, hyp, _ in en]
    spec = write_rows(tmp_path / "en.jsonl", rows)
    result = compare([spec], normalizer="en-v1", resamples=400, seed=2, jobs=1)
    scored = score_rows(
        [ScoringRow(id=i, reference=ref, hypothesis=hyp) for i, _, ref, hyp, _ in en],
        ScoringOptions(policy=NormalizerPolicy.parse("en-v1"), resamples=400, seed=2),
    ).to_dict()
    primary = scored["overall"]["views"]["normalized"]
    assert result["arms"]["en"]["vs_human"] == primary
