"""Word information preserved (WIP), jiwer's measure, beside MER and WIL: opt-in.

jiwer is the oracle (`jiwer.wip`, `jiwer/process.py`): hand cases with its empty-side
rules, and random corpora. WIP is only computed where asked for (`--metrics wip`,
`ScoringOptions.extra_metrics`, `earmark.score(metrics=...)`), so results without it keep
their bytes; where it is, it sits beside WIL in every metric object, and results.md and
the HTML report show it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import jiwer
import jsonschema
import pytest

import earmark
from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.formats.rows import ScoringRow
from earmark.metrics.counts import ErrorCounts
from earmark.render.results import results_schema
from earmark.results import Results
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import BootstrapSettings

HAND = [
    # (references, hypotheses, WIP by hand: (H / N_ref) * (H / N_hyp))
    (["the cat sat"], ["the cat sat on"], (3 / 3) * (3 / 4)),
    (["a b c", "hello world"], ["a x c", "hello"], (3 / 5) * (3 / 4)),
    (["one two three four"], ["one two three four"], 1.0),
    (["a b"], ["c d"], 0.0),
    (["a b"], [""], 0.0),  # jiwer: an empty hypothesis preserves nothing
]


@pytest.mark.parametrize(("refs", "hyps", "expected"), HAND)
def test_hand_cases_equal_jiwer(refs: list[str], hyps: list[str], expected: float) -> None:
    got = earmark.score(refs, hyps, bootstrap=0, metrics=["wip"]).wip
    assert got == pytest.approx(expected, abs=1e-15)
    assert got == pytest.approx(jiwer.wip(refs, hyps), abs=1e-15)


def test_empty_sides_follow_jiwer() -> None:
    """jiwer: both sides empty preserves everything (1), one side empty nothing (0)."""
    assert ErrorCounts(0, 0, 0, 0).word_information_preserved() == jiwer.wip([""], [""]) == 1
    assert ErrorCounts(0, 0, 2, 0).word_information_preserved() == jiwer.wip([""], ["a b"]) == 0
    assert ErrorCounts(0, 2, 0, 0).word_information_preserved() == jiwer.wip(["a b"], [""]) == 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_corpora_equal_jiwer(seed: int) -> None:
    rng = random.Random(seed)
    vocab = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"]
    refs, hyps = [], []
    for _ in range(200):
        ref = [rng.choice(vocab) for _ in range(rng.randint(1, 12))]
        hyp = [w for w in ref if rng.random() > 0.2]
        for _ in range(rng.randint(0, 3)):
            hyp.insert(rng.randint(0, len(hyp)), rng.choice(vocab))
        hyp = [rng.choice(vocab) if rng.random() < 0.15 else w for w in hyp]
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    scored = earmark.score(refs, hyps, bootstrap=0, metrics=["wip"])
    out = jiwer.process_words(refs, hyps)
    assert scored.counts.hits == out.hits
    assert scored.wip == pytest.approx(out.wip, rel=1e-12)
    assert scored.metrics["wer"].wil == pytest.approx(out.wil, rel=1e-12)
    # WIL = 1 - WIP wherever both are defined.
    assert scored.metrics["wer"].wil == pytest.approx(1 - scored.wip, rel=1e-12)


def test_wip_is_opt_in_and_sits_beside_wil() -> None:
    rows = [ScoringRow(id="1", reference="a b c", hypothesis="a x c d")]
    policy = NormalizerPolicy("none")
    boot = BootstrapSettings(resamples=0)
    without = score_rows(rows, ScoringOptions(policy=policy, bootstrap=boot)).to_dict()
    asked = score_rows(
        rows, ScoringOptions(policy=policy, bootstrap=boot, extra_metrics=("wip",))
    ).to_dict()
    plain = without["overall"]["views"]["raw"]["wer"]
    metric = asked["overall"]["views"]["raw"]["wer"]
    assert "wip" not in plain
    keys = list(metric)
    assert keys[keys.index("wil") + 1] == "wip"
    assert {k: v for k, v in metric.items() if k != "wip"} == plain
    assert metric["wip"] == pytest.approx((2 / 3) * (2 / 4))
    assert earmark.score("a b", "a b", bootstrap=0).wip is None  # not asked for


def test_unknown_extra_metric_is_refused() -> None:
    with pytest.raises(EarmarkError, match="unknown extra metric"):
        ScoringOptions(policy=NormalizerPolicy("none"), extra_metrics=("wup",))


def test_cli_writes_wip_to_results_markdown_and_html(tmp_path: Path) -> None:
    pairs = tmp_path / "p.jsonl"
    rows = [
        {"id": "1", "reference": "the cat sat", "hypothesis": "the cat sat on"},
        {"id": "2", "reference": "hello world", "hypothesis": "hello"},
    ]
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    out = tmp_path / "out"
    argv = ["score", str(pairs), "--normalizer", "none", "--bootstrap", "0", "--quiet"]
    assert main([*argv, "--metrics", "wip", "--out", str(out)]) == 0
    results = Results.from_path(out / "results.json")
    jsonschema.validate(json.loads((out / "results.json").read_text("utf-8")), results_schema())
    wer = results.arm().view("und", "raw").metric("wer")
    expected = jiwer.wip([r["reference"] for r in rows], [r["hypothesis"] for r in rows])
    assert wer.wip == pytest.approx(expected)
    markdown = (out / "results.md").read_text("utf-8")
    assert "### Word information (primary view)" in markdown
    assert f"{expected:.4f}" in markdown
    assert main(["report", str(out), "--out", str(out / "report.html")]) == 0
    assert "<th>WIP</th>" in (out / "report.html").read_text("utf-8")
    plain = tmp_path / "plain"
    assert main([*argv, "--out", str(plain)]) == 0
    assert '"wip"' not in (plain / "results.json").read_text("utf-8")
    assert "Word information" not in (plain / "results.md").read_text("utf-8")
