"""`zh-itn-v1`: Chinese numerals as digits (cn2an), beside an unchanged `zh-eval-v1`.

The conversion cases need cn2an (`pip install 'earmark[zh-itn]'`) and are skipped, with
that reason, without it; what happens when it is missing is tested everywhere.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from earmark.cli import main
from earmark.formats.rows import ScoringRow
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import BootstrapSettings
from earmark.text import available_normalizers, get_normalizer, zh_itn_v1

needs_cn2an = pytest.mark.skipif(
    importlib.util.find_spec("cn2an") is None,
    reason="cn2an is not installed (pip install 'earmark[zh-itn]')",
)


def _block(pairs: list[tuple[str, str]], policy: str) -> dict[str, Any]:
    rows = [ScoringRow(f"u{i}", r, h, "zh") for i, (r, h) in enumerate(pairs)]
    result = score_rows(
        rows,
        ScoringOptions(NormalizerPolicy.parse(policy), bootstrap=BootstrapSettings(resamples=0)),
    )
    block: dict[str, Any] = result.to_dict()["by_language"]["zh"]
    return block


@pytest.fixture
def without_cn2an(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if cn2an were not installed (the lookup is remembered, so replace it)."""
    monkeypatch.setattr(zh_itn_v1, "_transform", lambda: None)


@needs_cn2an
@pytest.mark.parametrize(
    ("text", "view"),
    [
        ("我有三个苹果。", "我有3个苹果"),
        ("二零二六年", "2026年"),
        ("两千零二十六年", "2026年"),
        ("一九九八年出生", "1998年出生"),
        # 3.5, then "." (P*) removed as zh-eval-v1 removes it from "3.5公斤" too.
        ("三点五公斤", "35公斤"),
        ("百分之五十的人", "50的人"),  # 50%, then % (P*) removed as in zh-eval-v1
        ("50%的人", "50的人"),
        ("２０２６年", "2026年"),  # width folding first
        ("我用iPhone十五拍照", "我用iphone15拍照"),
        ("万一他不来", "万一他不来"),  # an idiom, never 10001
        ("", ""),
    ],
)
def test_itn_view_by_hand(text: str, view: str) -> None:
    assert zh_itn_v1.itn_view(text) == view


@needs_cn2an
def test_number_spellings_stop_counting_as_errors() -> None:
    # 二零二六 vs 2026: four substitutions, 三 vs 3 one: 5 of 11 characters in zh-eval-v1.
    pair = ("二零二六年我有三个苹果", "2026年我有3个苹果")
    plain = _block([pair], "zh-eval-v1")["views"]["normalized"]["cer"]
    assert (plain["substitutions"], plain["ref_units"]) == (5, 11)
    itn = _block([pair], "zh-itn-v1")
    cer = itn["views"]["normalized"]["cer"]
    assert (cer["value"], cer["ref_units"]) == (0.0, 11)
    assert itn["normalizer"]["engines"]["cn2an"] == zh_itn_v1.cn2an_version() is not None
    assert itn["views"]["raw"]["cer"]["substitutions"] == 5


@needs_cn2an
def test_mixed_unit_on_the_itn_view() -> None:
    block = _block([("我买了三台MacBook Pro", "我买了3台 macbook pro")], "zh-itn-v1")
    assert block["normalizer"]["mixed_unit"] == {"view": "normalized", "metric": "mixed_er"}
    mixed = block["views"]["normalized"]["mixed_er"]
    # 我 买 了 3 台 macbook pro: seven units, all matched.
    assert (mixed["value"], mixed["ref_units"]) == (0.0, 7)


def test_zh_eval_v1_gains_no_view() -> None:
    assert get_normalizer("zh-eval-v1").views == ("raw", "punct", "normalized", "script_normalized")
    pair = get_normalizer("zh-eval-v1").normalize_pair("二零二六年", "2026年")
    assert pair["normalized"].reference == "二零二六年"


def test_registered_with_its_contract() -> None:
    assert "zh-itn-v1" in available_normalizers()
    normalizer = get_normalizer("zh-itn-v1")
    assert normalizer.views == ("raw", "normalized")
    assert normalizer.primary_view == "normalized"
    assert normalizer.units == ("char",)
    assert not normalizer.comparison_only


def test_without_cn2an_the_view_is_null_with_a_reason(without_cn2an: None) -> None:
    pair = get_normalizer("zh-itn-v1").normalize_pair("三个", "3个")
    assert pair["raw"].reference == "三个"
    assert pair["normalized"].reference is None
    assert pair["normalized"].null_reason == "cn2an_unavailable"
    block = _block([("三个", "3个")], "zh-itn-v1")
    for key in ("cer", "mixed_er"):
        metric = block["views"]["normalized"][key]
        assert metric["value"] is None
        assert metric["unavailable_reasons"] == {"cn2an_unavailable": 1}
        assert "cn2an_unavailable" in metric["null_reason"]
    assert block["views"]["raw"]["cer"]["value"] == 0.5  # raw still scored
    assert block["normalizer"]["engines"] == {"cn2an": None}


def test_without_cn2an_the_cli_writes_null_not_a_number(
    tmp_path: Path, without_cn2an: None
) -> None:
    path = tmp_path / "p.jsonl"
    row = {"id": "a", "reference": "三个", "hypothesis": "3个", "language": "zh"}
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n", "utf-8")
    out = tmp_path / "o"
    assert (
        main(["score", str(path), "--normalizer", "zh-itn-v1", "--out", str(out), "--quiet"]) == 0
    )
    results = json.loads((out / "results.json").read_text("utf-8"))
    assert results["arms"]["p"]["overall"]["views"]["normalized"]["cer"]["value"] is None
    assert "null (no row has this view: cn2an_unavailable)" in (out / "results.md").read_text()


def test_cn2an_is_imported_only_when_a_text_is_converted() -> None:
    code = (
        "import sys\n"
        "from earmark.text import get_normalizer\n"
        "get_normalizer('zh-itn-v1')\n"
        "assert 'cn2an' not in sys.modules, 'imported at registration'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
