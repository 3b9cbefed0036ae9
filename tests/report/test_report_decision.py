"""The promotion rule (seed 000) on hand-built runs whose error counts are known exactly."""

from __future__ import annotations

import json
from datetime import date

import pytest
from report_builders import ArmData, make_run, zh_rows

from earmark.cli import main
from earmark.decisions.decide import DecideOptions, decide_runs
from earmark.decisions.thresholds import DecisionRules
from earmark.errors import EarmarkError

DAY = date(2026, 11, 30)
BASE = [2] * 40  # 80 errors on 440 characters: CER 18.18%


def _two_arms(tmp_path, challenger: ArmData, baseline: ArmData | None = None, **kw):
    baseline = baseline or ArmData(zh_rows(BASE))
    return make_run(tmp_path / "run", {"base": baseline, "chal": challenger}, **kw)


def write_decision(baseline, challenger, out, rules=None, on=DAY):
    """The record as its JSON reads (a dict), and the two files written."""
    options = DecideOptions(baseline, challenger, rules or DecisionRules(), out=out, on=on)
    outcome = decide_runs(options)
    return outcome.decision.to_dict(), outcome.markdown_path, outcome.json_path


def _decide(run, out, rules=None):
    return write_decision(f"{run}:base", f"{run}:chal", out, rules=rules, on=DAY)


def test_25_percent_lower_cer_promotes(tmp_path):
    # 20 rows improve by one character: 60 vs 80 errors, relative reduction exactly 25%.
    run = _two_arms(tmp_path, ArmData(zh_rows([1] * 20 + [2] * 20)))
    record, md, js = _decide(run, tmp_path / "out")
    assert record["verdict"] == "promote"
    (ev,) = record["evidence"]
    assert ev["metric"] == "cer" and ev["view"] == "normalized"
    assert ev["baseline_rate"] == pytest.approx(80 / 440)
    assert ev["challenger_rate"] == pytest.approx(60 / 440)
    assert ev["relative_reduction"] == pytest.approx(0.25)
    assert ev["difference"] == pytest.approx(-20 / 440)
    assert ev["difference_ci95"][1] < 0 and ev["quality_win"]
    assert md.name == "decision-2026-11-30.md" and js.name == "decision-2026-11-30.json"
    saved = json.loads(js.read_text("utf-8"))
    assert saved["verdict"] == "promote"
    assert saved["baseline"]["model"]["revision"].startswith("sha256:")
    assert saved["corpus"]["manifest_sha256"] == "a" * 64
    assert saved["baseline"]["host"]["cpu_model"] == "Test CPU 9000"
    text = md.read_text("utf-8")
    assert "**Verdict: promote**" in text and "- [ ] **weight licence**" in text
    assert "long-form regressions" in text


def test_10_percent_better_and_40_percent_faster_promotes(tmp_path):
    # 72 vs 80 errors (10%): not enough for quality, but non-inferior and 40% faster.
    run = _two_arms(tmp_path, ArmData(zh_rows([1] * 8 + [2] * 32), latency_p95=0.6))
    record, _, _ = _decide(run, tmp_path / "out")
    (ev,) = record["evidence"]
    assert ev["relative_reduction"] == pytest.approx(0.10)
    assert not ev["quality_win"] and ev["non_inferior"]
    assert record["resources"]["latency"]["reduction"] == pytest.approx(0.4)
    assert record["verdict"] == "promote"


def test_core_cost_alone_can_promote(tmp_path):
    run = _two_arms(tmp_path, ArmData(zh_rows(BASE), cpu_per_audio=0.3))
    record, _, _ = _decide(run, tmp_path / "out")
    assert record["resources"]["core_cost"]["reduction"] == pytest.approx(0.4)
    assert record["evidence"][0]["non_inferior"]  # identical errors: CI [0, 0]
    assert record["verdict"] == "promote"


def test_faster_but_significantly_worse_rejects(tmp_path):
    run = _two_arms(tmp_path, ArmData(zh_rows([3] * 20 + [2] * 20), latency_p95=0.2))
    record, _, _ = _decide(run, tmp_path / "out")
    assert record["evidence"][0]["significantly_worse"]
    assert record["verdict"] == "reject"


def test_faster_but_not_shown_non_inferior_stays(tmp_path):
    # 5 rows worse, 3 rows better: the paired CI straddles 0.
    errs = [3] * 5 + [1] * 3 + [2] * 32
    run = _two_arms(tmp_path, ArmData(zh_rows(errs), latency_p95=0.5))
    record, _, _ = _decide(run, tmp_path / "out")
    ev = record["evidence"][0]
    assert ev["difference_ci95"][0] < 0 < ev["difference_ci95"][1]
    assert not ev["non_inferior"] and not ev["significantly_worse"]
    assert record["verdict"] == "stay"


def test_margin_makes_a_small_loss_non_inferior(tmp_path, tmp_path_factory):
    errs = [3] * 5 + [1] * 3 + [2] * 32
    run = _two_arms(tmp_path, ArmData(zh_rows(errs), latency_p95=0.5))
    rules = DecisionRules(non_inferiority_margin=0.05)
    record, _, _ = _decide(run, tmp_path / "out", rules)
    assert record["verdict"] == "promote"
    assert record["rules"]["non_inferiority_margin"] == 0.05


def test_unverifiable_win_is_research_only(tmp_path):
    run = _two_arms(tmp_path, ArmData(zh_rows([1] * 40), revision=None))
    record, _, _ = _decide(run, tmp_path / "out")
    assert record["verdict"] == "research only"
    assert "model revision or file hashes of arm chal" in record["reasons"][0]


def test_missing_host_profile_is_research_only_and_skips_speed(tmp_path):
    run = _two_arms(tmp_path, ArmData(zh_rows([1] * 40), latency_p95=0.1), host={})
    record, _, _ = _decide(run, tmp_path / "out")
    assert record["verdict"] == "research only"
    assert not record["resources"]["same_host"]
    assert not record["resources"]["latency"]["met"]


def test_broken_memory_ceiling_is_research_only(tmp_path):
    run = _two_arms(tmp_path, ArmData(zh_rows([1] * 40), peak_rss=4 * 2**30))
    rules = DecisionRules(max_peak_rss_bytes=2 * 2**30)
    record, _, _ = _decide(run, tmp_path / "out", rules)
    assert record["verdict"] == "research only"
    assert "peak RSS bytes" in record["reasons"][0]


def test_different_manifest_hash_is_refused(tmp_path):
    base = make_run(tmp_path / "a", {"base": ArmData(zh_rows(BASE))})
    chal = make_run(tmp_path / "b", {"chal": ArmData(zh_rows([1] * 40))}, manifest_sha="b" * 64)
    with pytest.raises(EarmarkError) as info:
        write_decision(str(base), str(chal), tmp_path / "out", on=DAY)
    assert "manifest sha256: baseline " + "a" * 64 in str(info.value)
    assert not (tmp_path / "out").exists()


def test_different_language_policy_and_rows_are_listed(tmp_path):
    base = make_run(tmp_path / "a", {"base": ArmData(zh_rows(BASE))})
    chal = make_run(
        tmp_path / "b",
        {"chal": ArmData(zh_rows([1] * 39), language_policy="detect")},
    )
    with pytest.raises(EarmarkError) as info:
        write_decision(str(base), str(chal), tmp_path / "out", on=DAY)
    message = str(info.value)
    assert "decode language policy" in message
    assert "1 rows only in the baseline (e.g. zh-039#0)" in message


def test_second_record_of_the_day_does_not_overwrite(tmp_path):
    run = _two_arms(tmp_path, ArmData(zh_rows([1] * 40)))
    _, md1, _ = _decide(run, tmp_path / "out")
    _, md2, js2 = _decide(run, tmp_path / "out")
    assert md1.name == "decision-2026-11-30.md"
    assert md2.name == "decision-2026-11-30-2.md" and js2.exists()


def test_rules_from_toml_and_unknown_key(tmp_path):
    good = tmp_path / "rules.toml"
    good.write_text("[decision]\nmin_relative_error_reduction = 0.3\nmetric = 'cer'\n")
    rules = DecisionRules.from_toml(good)
    assert rules.min_relative_error_reduction == 0.3 and rules.metric == "cer"
    bad = tmp_path / "bad.toml"
    bad.write_text("min_cer_gain = 0.3\n")
    with pytest.raises(EarmarkError, match="unknown rule 'min_cer_gain'"):
        DecisionRules.from_toml(bad)


def test_word_scored_language_uses_wer(tmp_path):
    ref = "the cat sat on the mat"
    base_rows = [(f"en-{i}", "en", ref, "the bat sat on the hat") for i in range(30)]
    chal_rows = [
        (f"en-{i}", "en", ref, ref if i < 15 else "the bat sat on the mat") for i in range(30)
    ]
    run = make_run(tmp_path / "run", {"base": ArmData(base_rows), "chal": ArmData(chal_rows)})
    record, _, _ = _decide(run, tmp_path / "out")
    (ev,) = record["evidence"]
    assert ev["metric"] == "wer"
    assert ev["baseline_rate"] == pytest.approx(60 / 180)
    assert ev["challenger_rate"] == pytest.approx(15 / 180)
    assert record["verdict"] == "promote"


def test_cli_decide(tmp_path, capsys):
    run = _two_arms(tmp_path, ArmData(zh_rows([1] * 40)))
    rules = tmp_path / "r.toml"
    rules.write_text("resamples = 500\n")
    code = main(
        [
            "decide",
            "--baseline",
            f"{run}:base",
            "--challenger",
            f"{run}:chal",
            "--rules",
            str(rules),
            "--out",
            str(tmp_path / "out"),
        ]
    )
    assert code == 0
    assert "verdict: promote" in capsys.readouterr().out
    (record,) = (tmp_path / "out").glob("decision-*.json")
    assert json.loads(record.read_text())["rules"]["resamples"] == 500
    # A run with several arms needs RUN:ARM.
    assert (
        main(
            [
                "decide",
                "--baseline",
                str(run),
                "--challenger",
                f"{run}:chal",
                "--out",
                str(tmp_path / "o2"),
            ]
        )
        == 2
    )
    assert "several arms" in capsys.readouterr().err


def test_decide_runs_builds_the_record_in_memory_and_the_cli_writes_the_same(tmp_path):
    """The typed function returns the record without writing a file; the CLI, which calls
    it with a folder, writes that record byte for byte, and its Markdown."""
    run = _two_arms(tmp_path, ArmData(zh_rows([1] * 20 + [2] * 20)))
    rules = DecisionRules.from_toml(_rules_file(tmp_path))
    outcome = decide_runs(DecideOptions(f"{run}#base", f"{run}#chal", rules))
    assert outcome.markdown_path is None and outcome.json_path is None
    assert not list(tmp_path.rglob("decision-*"))
    args = ["decide", "--baseline", f"{run}#base", "--challenger", f"{run}#chal"]
    out = tmp_path / "cli"
    assert main([*args, "--rules", str(_rules_file(tmp_path)), "--out", str(out), "--quiet"]) == 0
    (js,) = out.glob("decision-*.json")
    (md,) = out.glob("decision-*.md")
    assert js.read_text("utf-8") == outcome.decision.to_json()
    assert md.read_text("utf-8") == outcome.markdown


def _rules_file(tmp_path):
    path = tmp_path / "rules.toml"
    path.write_text("resamples = 300\n", "utf-8")
    return path
