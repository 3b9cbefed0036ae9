"""The HTML report without a browser: sections, figures, escaping, self-containment."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from report_builders import ArmData, make_run, zh_rows

from earmark.cli import main
from earmark.render.html import SECTIONS, render_html_report, write_html_report
from earmark.render.html_examples import alignment_html
from earmark.render.run_directory import load_run
from earmark.results.display import fmt_rate

EXAMPLE = Path(__file__).parent / "data" / "example-run"
XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'


@pytest.fixture
def example(tmp_path: Path) -> Path:
    target = tmp_path / "example-run"
    shutil.copytree(EXAMPLE, target)
    return target


def _external_refs(html: str) -> list[str]:
    """src/href/url() values that leave the page (the SVG namespace URI is not a fetch)."""
    refs = re.findall(r"""(?:src|href)\s*=\s*["']?([^"' >]+)""", html)
    refs += re.findall(r"url\(([^)]*)\)", html)
    return [r for r in refs if not r.startswith("#") and not r.startswith("data:")]


def test_example_report_has_every_section_and_the_figures(example: Path):
    path = write_html_report(example)
    assert path == example / "report.html"
    html = path.read_text("utf-8")
    for section in SECTIONS:
        assert f'<section id="{section}">' in html
    results = json.loads((example / "results.json").read_text("utf-8"))
    arm = results["arms"]["tiny.en-int8"]
    for block in arm["by_language"].values():
        view = block["views"][block["primary_view"]]
        assert fmt_rate(view["cer"]) in html
        if "wer" in view:
            assert fmt_rate(view["wer"]) in html
    assert "12.28% [4.27, 21.82]" in html  # English WER, primary view
    assert "377.08% [291.43, 476.74]" in html  # Mandarin CER, primary view
    assert "ce9a63d82ea1ff2c08e1f35b6e0abb384273d6e245acdbdc1640c60c7d72b80d" in html
    assert "sha256:2a4410629ba32953df4bbf64d2d866fb507e316f81671859dbd046eed47cc3b1" in html
    assert 'class="badge ok">verifiable' in html
    assert 'id="not-public"' not in html


def test_example_report_is_self_contained(example: Path):
    html = write_html_report(example).read_text("utf-8")
    assert _external_refs(html) == []
    assert "<script" not in html.lower() and "<link" not in html.lower()
    assert "@import" not in html and "@font-face" not in html
    assert "default-src 'none'" in html
    # CJK font stack and language tags for Mandarin text.
    assert "Noto Sans CJK SC" in html and "WenQuanYi Micro Hei" in html
    assert "Microsoft YaHei" in html and "PingFang SC" in html
    assert 'lang="zh"' in html and 'lang="ga"' in html


def test_latency_and_diagnostics_come_from_the_rows(example: Path):
    html = write_html_report(example).read_text("utf-8")
    assert "p50 0.95 · p95 1.48 s" in html  # en decode times in the box plot
    assert "1/3 (33%)" in html  # output on no-speech, from the hallucination block
    assert "ga → en" in html  # a language mismatch row


def test_transcripts_are_escaped(tmp_path: Path):
    rows = [("x-1", "en", "hello there world", XSS), ("x-2", "en", 'say "hi" & <b>bye</b>', "hi")]
    run = make_run(tmp_path / "run", {'arm"><b>x': ArmData(rows)})
    html = write_html_report(run).read_text("utf-8")
    assert "<img" not in html and "<script" not in html and "<b>x" not in html
    assert "&lt;img src=x onerror=&quot;window.__xss=1&quot;&gt;" in html
    assert "&lt;script&gt;window.__xss=2&lt;/script&gt;" in html
    assert "arm&quot;&gt;&lt;b&gt;x" in html


def test_not_public_and_unverifiable_banners(tmp_path: Path):
    run = make_run(
        tmp_path / "run", {"a": ArmData(zh_rows([1, 2]))}, public=False, write_provenance=False
    )
    html = write_html_report(run).read_text("utf-8")
    assert 'id="not-public"' in html and "Not public." in html
    assert 'id="unverifiable"' in html and "provenance.json" in html


def test_alignment_uses_characters_for_mandarin():
    markup = alignment_html("今天天气", "今天气", "char", "zh")
    assert markup.count('class="al al-equal"') == 3
    assert markup.count('class="al al-delete"') == 1
    assert 'lang="zh"' in markup
    words = alignment_html("the cat sat", "the bat sat down", "word", "en")
    assert re.findall(r'al al-(\w+)"', words) == ["equal", "substitute", "equal", "insert"]


def _compare(ref: str, other: str) -> dict:
    metric = {
        "value": 0.1,
        "ci95": [0.05, 0.15],
        "substitutions": 1,
        "deletions": 0,
        "insertions": 0,
        "hits": 9,
        "ref_units": 10,
        "hyp_units": 10,
        "aggregate": "micro",
        "n_scored": 2,
    }
    return {
        "schema": "earmark.compare/1",
        "reference_arm": ref,
        "aggregate": "micro",
        "n_shared": 2,
        "unpaired": [{"arm": other, "id": "zh-009", "repeat": 0, "reason": "missing"}],
        "arms": {
            other: {
                "exact_match_vs_reference": {
                    "value": 0.5,
                    "ci95": [0.0, 1.0],
                    "matches": 1,
                    "n": 2,
                },
                "vs_reference_arm": {"cer": metric},
                "vs_human": {"cer": metric},
                "differs_from_reference": ["zh-001", "<i>odd-id</i>"],
            }
        },
        "pairs": [
            {
                "reference": ref,
                "challenger": other,
                "metric": "cer",
                "view": "normalized",
                "reference_value": 0.2,
                "challenger_value": 0.1,
                "difference": -0.1,
                "ci95": [-0.15, -0.05],
                "share_challenger_better": 0.99,
                "share_tied": 0.0,
                "sign_test_p": 0.01,
                "wilcoxon_p": 0.02,
                "p_holm": 0.02,
            }
        ],
        "diagnostics": {other: {"note": "<script>x</script>"}},
    }


def test_compare_json_renders_matrix_and_churn(tmp_path: Path):
    run = make_run(
        tmp_path / "run", {"base": ArmData(zh_rows([2, 2])), "int8": ArmData(zh_rows([1, 2]))}
    )
    cmp_path = tmp_path / "cmp" / "compare.json"
    cmp_path.parent.mkdir()
    cmp_path.write_text(json.dumps(_compare("base", "int8")), "utf-8")
    html = render_html_report(load_run(run, compare=cmp_path.parent))
    section = html.split('<section id="comparison">')[1].split("</section>")[0]
    assert "-10.00 pp *" in section and "[-15.00, -5.00]" in section
    assert "#cdebd3" in section  # green: the CI lies below 0
    assert "50.00% [0.00, 100.00] (1/2)" in section
    assert "2 rows differ from base" in section and "&lt;i&gt;odd-id&lt;/i&gt;" in section
    assert "zh-009" in section
    assert "&lt;script&gt;x&lt;/script&gt;" in html and "<script>" not in html


def test_cli_report_with_out_and_compare(tmp_path: Path, example: Path, capsys):
    cmp_file = tmp_path / "c.json"
    cmp_file.write_text(json.dumps(_compare("tiny.en-int8", "other")), "utf-8")
    out = tmp_path / "elsewhere" / "r.html"
    assert main(["report", str(example), "--compare", str(cmp_file), "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert "Reference arm <b>tiny.en-int8</b>" in out.read_text("utf-8")
    assert not (example / "report.html").exists()
    assert main(["report", str(tmp_path / "missing")]) == 2
    assert "results file not found" in capsys.readouterr().err


def test_models_table_shows_determinism_and_cpu_code_path(example: Path):
    path = example / "results.json"
    results = json.loads(path.read_text("utf-8"))
    model = next(iter(results["arms"].values()))["model"]
    model.update(deterministic=False, determinism_note="a remote service")
    model.setdefault("extra", {})["cpu_runtime"] = {
        "isa": "AVX2",
        "sgemm_backend": "DNNL",
        "gemm_s8_backend": "DNNL",
        "pinned": {"CT2_FORCE_CPU_ISA": "AVX2"},
    }
    path.write_text(json.dumps(results), "utf-8")
    text = " ".join(re.sub(r"<[^>]+>", " ", render_html_report(load_run(example))).split())
    assert "a remote service; churn against this arm includes sampling noise" in text
    assert "ISA AVX2; SGEMM DNNL; GEMM_S8 DNNL; pinned: CT2_FORCE_CPU_ISA=AVX2" in text
    # An engine that says nothing counts as not deterministic, never as deterministic.
    model.pop("deterministic")
    model.pop("determinism_note")
    path.write_text(json.dumps(results), "utf-8")
    text = " ".join(re.sub(r"<[^>]+>", " ", render_html_report(load_run(example))).split())
    assert "the engine does not declare it; churn against this arm" in text
