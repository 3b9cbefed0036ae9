"""compare's figures are score's figures: same counts, same values, same CIs, every key.

compare counts through `earmark.scoring.row_counts` and builds its metric objects with
`scoring.metric.metric_object`; these tests hold its `vs_human` blocks against
`score_rows` on the same rows, and against the `results.json` the bundled runs wrote,
key for key (`mixed_er` included).
"""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from compare_fixtures import write_rows

from earmark.file_comparison import compare
from earmark.formats.rows import ScoringRow
from earmark.rundir.arm_inputs import load_arms
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import BootstrapSettings

ROWS = [
    ("e1", "en", "The cat sat on the mat.", "the cat sat on a mat", ["read"]),
    ("e2", "en", "Hello world", "hello, world!", ["read"]),
    ("e3", "en", "It's twenty past two", "its twenty past to", []),
    ("e4", "en", "Please call me", None, ["read"]),
    ("z1", "zh", "我爱北京天安门。", "我爱北京天安门", ["read"]),
    ("z2", "zh", "今天天气很好", "今天天气不好吧", []),
    ("g1", "ga", "An tAthair", "an t-athair", []),
]

#: Code-switched Mandarin (the mixed unit counts English words whole) beside English.
MIXED_ZH_EN = [
    ("m1", "zh", "我用 iPhone 15 拍照", "我用 iphone十五 拍照", ["code-switch"]),
    ("m2", "zh", "打开github和vs code", "打开 git hub 和 vscode", ["code-switch"]),
    ("m3", "zh", "今天的 meeting 取消了", "今天的米听取消了", ["code-switch"]),
    ("m4", "zh", "我们用 Python 写了很多代码", "我们用 python 写了很多代码", []),
    ("m5", "zh", "请打开 Wi-Fi", None, []),
    ("m6", "zh", "", "嗯", []),
    ("m7", "en", "Open the GitHub page", "open the git hub page", ["code-switch"]),
    ("m8", "en", "Call me at five", "call me at 5", []),
]

BUNDLED_RUNS = [
    Path(__file__).parent / "data" / "example-run",
    Path(__file__).parents[1] / "report" / "data" / "example-run",
]


def _by_language(
    rows: list[tuple[str, str, str, str | None, list[str]]], policy: str, resamples: int, seed: int
) -> dict[str, Any]:
    options = ScoringOptions(
        policy=NormalizerPolicy.parse(policy),
        bootstrap=BootstrapSettings(resamples=resamples, seed=seed),
    )
    scored = score_rows(
        [
            ScoringRow(id=i, reference=ref, hypothesis=hyp, language=lang, slices=tuple(sl))
            for i, lang, ref, hyp, sl in rows
        ],
        options,
    ).to_dict()
    by_language: dict[str, Any] = scored["by_language"]
    return by_language


def _assert_same_keys_and_figures(score_block: dict[str, Any], mine: dict[str, Any]) -> None:
    """Every metric score reports on the primary view, identical in compare; a unit the
    normaliser lacks is null in compare (score leaves it out)."""
    primary = score_block["views"][score_block["primary_view"]]
    for metric, expected in primary.items():
        assert mine[metric] == expected, metric
    for metric in set(mine) - set(primary):
        assert mine[metric]["value"] is None, metric
        assert "has no" in mine[metric]["null_reason"]


def _spec(
    tmp_path: Path, name: str, rows: list[tuple[str, str, str, str | None, list[str]]]
) -> str:
    return write_rows(
        tmp_path / f"{name}.jsonl",
        [
            {"id": i, "language": lang, "reference": ref, "hypothesis": hyp, "slices": sl}
            for i, lang, ref, hyp, sl in rows
        ],
    )


def test_vs_human_equals_score_rows(tmp_path: Path) -> None:
    result = compare(
        [_spec(tmp_path, "sys", ROWS)], normalizer="auto", resamples=500, seed=11, jobs=1
    ).to_dict()
    arm = result["arms"]["sys"]
    assert arm["vs_human"]["wer"]["value"] is None
    assert "different normalisers" in arm["vs_human"]["wer"]["null_reason"]
    for lang, block in _by_language(ROWS, "auto", 500, 11).items():
        _assert_same_keys_and_figures(block, arm["by_language"][lang]["vs_human"])
    # zh-eval-v1 counts the mixed unit on its primary view: compare reports it as score does.
    assert "mixed_er" in arm["by_language"]["zh"]["vs_human"]
    assert "mixed_er" not in arm["by_language"]["en"]["vs_human"]
    # A slice that spans normalisers is null with the reason, never a mixed number.
    assert arm["by_slice"]["read"]["vs_human"]["cer"]["value"] is None


@pytest.mark.parametrize(
    "policy",
    [
        "auto",
        pytest.param(
            "zh=zh-itn-v1,*=en-v1",
            marks=pytest.mark.skipif(
                find_spec("cn2an") is None, reason="zh-itn-v1 needs cn2an (extra zh-itn)"
            ),
        ),
    ],
)
def test_mixed_zh_en_corpus_every_key(tmp_path: Path, policy: str) -> None:
    result = compare(
        [_spec(tmp_path, "sys", MIXED_ZH_EN)], normalizer=policy, resamples=400, seed=7, jobs=1
    ).to_dict()
    arm = result["arms"]["sys"]
    scored = _by_language(MIXED_ZH_EN, policy, 400, 7)
    assert sorted(scored) == ["en", "zh"]
    for lang, block in scored.items():
        _assert_same_keys_and_figures(block, arm["by_language"][lang]["vs_human"])
    mixed_er = arm["by_language"]["zh"]["vs_human"]["mixed_er"]
    # Not the character rate: "iPhone" is one unit there, six characters in cer.
    assert mixed_er["value"] != arm["by_language"]["zh"]["vs_human"]["cer"]["value"]
    assert mixed_er["ci95"] is not None


def test_single_normaliser_overall_equals_score_rows(tmp_path: Path) -> None:
    en = [r for r in ROWS if r[1] == "en"]
    rows = [{"id": i, "reference": ref, "hypothesis": hyp} for i, _, ref, hyp, _ in en]
    spec = write_rows(tmp_path / "en.jsonl", rows)
    result = compare([spec], normalizer="en-v1", resamples=400, seed=2, jobs=1).to_dict()
    scored = score_rows(
        [ScoringRow(id=i, reference=ref, hypothesis=hyp) for i, _, ref, hyp, _ in en],
        ScoringOptions(
            policy=NormalizerPolicy.parse("en-v1"),
            bootstrap=BootstrapSettings(resamples=400, seed=2),
        ),
    ).to_dict()
    primary = scored["overall"]["views"]["normalized"]
    assert result["arms"]["en"]["vs_human"] == primary


@pytest.mark.parametrize("run", BUNDLED_RUNS, ids=lambda p: p.parent.name)
def test_bundled_runs_every_key_equals_results_json(run: Path) -> None:
    """The run's own results.json (written by `earmark run` with B = 10,000) is the oracle:
    compare on its predictions reproduces every primary-view figure, CIs included. The run
    names no generator, so it was drawn with numpy-pcg64, and compare must draw with it."""
    results = json.loads((run / "results.json").read_text("utf-8"))
    assert "generator" not in results["arms"][next(iter(results["arms"]))]["bootstrap"]
    plan = results["plan"]
    result = compare(
        [str(run)],
        normalizer=plan["normalizer"],
        resamples=plan["bootstrap"],
        seed=plan["seed"],
        generator="numpy-pcg64",
    ).to_dict()
    for name, recorded in results["arms"].items():
        for lang, block in recorded["by_language"].items():
            _assert_same_keys_and_figures(
                block, result["arms"][name]["by_language"][lang]["vs_human"]
            )
        assert "mixed_er" in recorded["by_language"]["zh"]["views"]["normalized"]


@pytest.mark.parametrize("run", BUNDLED_RUNS, ids=lambda p: p.parent.name)
def test_bundled_runs_every_key_equals_score_rows(run: Path) -> None:
    (arm,) = load_arms(str(run))
    rows = [
        (key[0], lang or "", ref, hyp, list(sl))
        for key, lang, ref, hyp, sl in zip(
            arm.keys, arm.languages, arm.references, arm.hypotheses, arm.slices, strict=True
        )
    ]
    result = compare([str(run)], normalizer="auto", resamples=300, seed=4, jobs=1).to_dict()
    for lang, block in _by_language(rows, "auto", 300, 4).items():
        _assert_same_keys_and_figures(
            block, result["arms"][arm.name]["by_language"][lang]["vs_human"]
        )
