"""The median per-utterance rate beside the corpus rate: hand-computed, schema-valid."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.formats.rows import ScoringRow
from earmark.render.results import results_schema
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import BootstrapSettings


def _row(i: str, ref: str, hyp: str, lang: str = "en", slices: tuple[str, ...] = ()) -> ScoringRow:
    return ScoringRow(id=i, reference=ref, hypothesis=hyp, language=lang, slices=slices)


def _score(rows: list[ScoringRow], aggregate: str = "micro") -> dict:
    options = ScoringOptions(
        policy=NormalizerPolicy.parse("auto"),
        aggregate=aggregate,  # type: ignore[arg-type]
        bootstrap=BootstrapSettings(resamples=0),
    )
    return score_rows(rows, options).to_dict()


ROWS = [
    _row("a", "the cat sat on the mat", "the cat sat on mat"),  # 1 D of 6
    _row("b", "hello world", "hello there world"),  # 1 I of 2
    _row("c", "red green blue black", "red green blue black"),  # 0 of 4
    _row("d", "", "thank you for watching"),  # empty reference: no rate, left out
    _row("e", "north south east west up down left right in out", "yes no"),  # 2 S 8 D of 10
]


def test_median_hand_computed_beside_the_corpus_rate() -> None:
    wer = _score(ROWS)["overall"]["views"]["normalized"]["wer"]
    # Per-utterance rates over rows with reference units: 1/6, 1/2, 0, 1 -> median 1/3.
    assert wer["median_per_utterance"] == pytest.approx((1 / 6 + 1 / 2) / 2)
    assert wer["median_per_utterance_n"] == 4
    # The corpus rate is summed edits / summed reference units: (1 + 1 + 0 + 4 + 10) / 22.
    assert wer["value"] == pytest.approx(16 / 22)
    assert "median_per_utterance_null_reason" not in wer


def test_median_does_not_depend_on_the_aggregate() -> None:
    micro = _score(ROWS)["overall"]["views"]["normalized"]["wer"]
    macro = _score(ROWS, "macro")["overall"]["views"]["normalized"]["wer"]
    assert micro["median_per_utterance"] == macro["median_per_utterance"]


def test_median_is_null_with_a_reason_without_reference_units() -> None:
    rows = [_row("a", "ok", "ok"), _row("s", "", "thanks", slices=("no-speech",))]
    summary = _score(rows)
    sl = summary["by_language"]["en"]["by_slice"]["no-speech"]["views"]["normalized"]["wer"]
    assert sl["median_per_utterance"] is None
    assert sl["median_per_utterance_null_reason"] == "no row has reference units"


def test_median_chars_and_random_rows_against_numpy() -> None:
    rng = np.random.default_rng(3)
    vocab = "abcdef"
    rows = []
    expected = []
    for k in range(41):
        ref = " ".join(rng.choice(list(vocab), size=int(rng.integers(1, 8))))
        hyp_words = ref.split()
        if k % 3 == 0:
            hyp_words = hyp_words[1:]  # one deletion
        rows.append(_row(f"r{k}", ref, " ".join(hyp_words)))
        expected.append((len(ref.split()) - len(hyp_words)) / len(ref.split()))
    wer = _score(rows)["overall"]["views"]["normalized"]["wer"]
    assert wer["median_per_utterance"] == pytest.approx(float(np.median(expected)))
    zh = _score([_row("z1", "我爱北京", "我爱北京", "zh"), _row("z2", "天安门", "天门", "zh")])
    cer = zh["overall"]["views"]["normalized"]["cer"]
    assert cer["median_per_utterance"] == pytest.approx((0 + 1 / 3) / 2)


def test_results_with_the_median_fit_the_schema(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": r.id,
                    "reference": r.reference,
                    "hypothesis": r.hypothesis,
                    "language": r.language,
                }
            )
            + "\n"
            for r in ROWS
        ),
        "utf-8",
    )
    results = score_predictions(
        ScoreInputs(path), ScoreFigures(normalizer="auto", resamples=0)
    ).to_dict()
    jsonschema.validate(results, results_schema())
    metric = results["arms"]["p"]["overall"]["views"]["normalized"]["wer"]
    assert metric["median_per_utterance"] == pytest.approx(1 / 3)
