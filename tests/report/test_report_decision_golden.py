"""`earmark decide` through the real CLI on fixed runs, against golden records.

The decision code was split into rules, evidence and rendering (issue 13); these files were
written before the split, so any change in a verdict, a figure, a reason or a line of
Markdown shows here. Each case drives a different branch: a two-language promotion with
allowed setting differences and plan ceilings, a blocked win, a reject, a side that never
loaded, an unverifiable win, a win over a resource ceiling and a no-rule stay, plus the one-line refusals.

The date in the record and the temporary folder's path are the only fields that vary
between runs; both are replaced by placeholders before comparing. Regenerate with
`EARMARK_REGEN_GOLDEN=1` only when a change of output is intended.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from report_builders import ZH_REF, ArmData, make_run, zh_rows

from earmark.cli import main

GOLDEN = Path(__file__).parent / "data" / "decision-golden"
BASE = [2] * 40  # 80 errors on 440 characters: CER 18.18%
WIN = [1] * 20 + [2] * 20  # 60 errors: 25% lower, paired CI below 0
EN_REF = "the cat sat on the mat"
FAILED = {"status": "arm_failed", "hypothesis": None}
#: Kept small so the whole file runs in a few seconds; the figures are still exact.
RULES = "resamples = 400\n"


def _en_rows(wrong: int, n: int = 12) -> list[tuple[str, str, str, str]]:
    """`n` English rows, the first `wrong` with two substituted words (WER 2/6 each)."""
    bad = "the bat sat on the hat"
    return [(f"en-{i:02d}", "en", EN_REF, bad if i < wrong else EN_REF) for i in range(n)]


def _edit(run: Path, arm: str, **changes: Any) -> None:
    """Change one arm's records in results.json and provenance.json (as a run would have
    written them): `model`, `extra`, `spec`, `resources`, `egress`, `plan`."""
    results = json.loads((run / "results.json").read_text("utf-8"))
    prov_path = run / "provenance.json"
    prov = json.loads(prov_path.read_text("utf-8")) if prov_path.exists() else None
    summary = results["arms"][arm]
    targets = [summary["model"]] + ([prov["arms"][arm]["model"]] if prov else [])
    for target in targets:
        target.update(changes.get("model", {}))
        target["extra"] = {**target.get("extra", {}), **changes.get("extra", {})}
    if "spec" in changes:
        summary["spec"] = {**summary["spec"], **changes["spec"]}
    summary["resources"].update(changes.get("resources", {}))
    if "egress" in changes and prov:
        prov["arms"][arm]["egress"] = changes["egress"]
    if "plan" in changes:
        results["plan"] = changes["plan"]
    (run / "results.json").write_text(json.dumps(results, ensure_ascii=False), "utf-8")
    if prov:
        prov_path.write_text(json.dumps(prov, ensure_ascii=False), "utf-8")


def _promote_two_languages(run: Path) -> list[str]:
    make_run(
        run,
        {
            "base": ArmData(zh_rows(BASE) + _en_rows(8)),
            "chal": ArmData(zh_rows(WIN) + _en_rows(2)),
        },
        resamples=200,
    )
    _edit(run, "base", extra={"decode_options": {"beam_size": 5, "vad_filter": False}})
    _edit(
        run,
        "chal",
        model={"compute_type": "float16"},
        extra={"decode_options": {"beam_size": 1, "vad_filter": False}},
        plan={"sha256": "c" * 64, "ceilings": {"cer": {"zh": 0.15}, "wer": {"en": 0.5, "fr": 0.1}}},
    )
    return ["--allow-setting-differences", "beam_size"]


def _blocked(run: Path) -> list[str]:
    make_run(run, {"base": ArmData(zh_rows(BASE)), "chal": ArmData(zh_rows(WIN))}, resamples=200)
    egress = {
        "policy": "refuse all except: nothing",
        "attempts": [
            {"kind": "connect", "host": "huggingface.co", "port": 443},
            {"kind": "connect", "host": "127.0.0.1", "port": 8000},
        ],
        "refused": 2,
    }
    _edit(run, "chal", model={"licence_source": None}, egress=egress)
    return []


def _reject(run: Path) -> list[str]:
    make_run(
        run,
        {
            "base": ArmData(zh_rows(BASE)),
            "chal": ArmData(zh_rows([3] * 20 + [2] * 20), latency_p95=0.2),
        },
        resamples=200,
    )
    _edit(run, "chal", plan={"sha256": "d" * 64, "ceilings": {"cer": {"zh": 0.1, "zh/zh": 0.5}}})
    return []


def _stay_not_judged(run: Path) -> list[str]:
    dead = ArmData([(f"zh-{i:03d}", "zh", ZH_REF, "") for i in range(20)], extra_row_fields=FAILED)
    make_run(run, {"base": ArmData(zh_rows([2] * 20)), "chal": dead}, resamples=200)
    return []


def _research_only(run: Path) -> list[str]:
    make_run(
        run,
        {
            "base": ArmData(zh_rows(BASE)),
            "chal": ArmData(zh_rows([1] * 40), revision=None, peak_rss=3 * 2**30),
        },
        host={},
        resamples=200,
    )
    return []


def _research_only_memory(run: Path) -> list[str]:
    chal = ArmData(zh_rows(WIN), peak_rss=3 * 2**30, latency_p95=0.5)
    make_run(run, {"base": ArmData(zh_rows(BASE)), "chal": chal}, resamples=200)
    return []


def _stay_no_rule(run: Path) -> list[str]:
    errs = [3] * 5 + [1] * 3 + [2] * 32
    make_run(run, {"base": ArmData(zh_rows(BASE)), "chal": ArmData(zh_rows(errs))}, resamples=200)
    egress = {
        "policy": "refuse all except: nothing",
        "attempts": [],
        "audited": False,
        "unaudited_reason": "a native child process",
    }
    _edit(run, "chal", egress=egress, resources={"threads": 2})
    _edit(run, "base", resources={"threads": 2})
    return ["--min-coverage", "0.5"]


CASES = {
    "promote-two-languages": (_promote_two_languages, RULES),
    "blocked": (_blocked, RULES),
    "reject": (_reject, RULES),
    "stay-not-judged": (_stay_not_judged, RULES),
    "research-only": (
        _research_only,
        RULES + "max_peak_rss_bytes = 2147483648\nmax_real_time_factor = 1.0\n",
    ),
    "research-only-memory": (
        _research_only_memory,
        RULES + "max_peak_rss_bytes = 2147483648\nmax_latency_seconds = 0.4\n",
    ),
    "stay-no-rule": (
        _stay_no_rule,
        "[decision]\n" + RULES + 'metric = "cer"\nlatency_statistic = "p50"\n'
        "require_significant_improvement = false\nmin_latency_reduction = 0.25\n",
    ),
}


def _placeholders(text: str, tmp_path: Path, day: str) -> str:
    """The temporary folder and today's date, the two things that differ per run."""
    return text.replace(str(tmp_path), "<tmp>").replace(day, "<date>")


def _decide(tmp_path: Path, name: str) -> dict[str, str]:
    build, rules_text = CASES[name]
    run = tmp_path / name
    extra = build(run)
    rules = tmp_path / f"{name}.toml"
    rules.write_text(rules_text, "utf-8")
    out = tmp_path / f"{name}-out"
    args = ["decide", "--baseline", f"{run}#base", "--challenger", f"{run}#chal"]
    assert main([*args, "--rules", str(rules), "--out", str(out), "--quiet", *extra]) == 0
    (js,) = out.glob("decision-*.json")
    (md,) = out.glob("decision-*.md")
    record = json.loads(js.read_text("utf-8"))
    day = record["date"]
    assert js.name == f"decision-{day}.json" and md.name == f"decision-{day}.md"
    return {
        "json": _placeholders(js.read_text("utf-8"), tmp_path, day),
        "md": _placeholders(md.read_text("utf-8"), tmp_path, day),
    }


def _check(name: str, produced: str) -> None:
    path = GOLDEN / name
    if os.environ.get("EARMARK_REGEN_GOLDEN"):
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(produced, "utf-8")
        return
    assert produced == path.read_text("utf-8"), f"{name} differs from its golden file"


@pytest.mark.parametrize("name", sorted(CASES))
def test_decide_writes_the_golden_record(tmp_path: Path, name: str) -> None:
    files = _decide(tmp_path, name)
    _check(f"{name}.json", files["json"])
    _check(f"{name}.md", files["md"])


def test_golden_records_cover_every_verdict() -> None:
    """The cases are worth keeping only while they drive each verdict of the rule."""
    verdicts = {
        json.loads((GOLDEN / f"{name}.json").read_text("utf-8"))["verdict"] for name in CASES
    }
    assert verdicts == {"promote", "blocked", "stay", "research only", "reject"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_records_read_as_the_typed_decision(name: str) -> None:
    """Every record `decide` writes is what `earmark.results.Decision` reads and writes
    back, byte for byte, with the paired difference as an Estimate at the rules' level."""
    from earmark.results import Decision

    text = (GOLDEN / f"{name}.json").read_text("utf-8")
    decision = Decision.from_json(text)
    assert decision.to_json() == text
    first = decision.evidence[0]
    estimate = decision.difference(first.language)
    assert estimate.value == first.difference and estimate.ci == first.difference_ci
    assert estimate.level == 0.95


def test_refusals_are_the_golden_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Different data and unlike decoding settings are refused in one line, unchanged."""
    base = make_run(tmp_path / "a", {"base": ArmData(zh_rows(BASE))}, resamples=50)
    chal = make_run(
        tmp_path / "b",
        {"chal": ArmData(zh_rows([1] * 39), language_policy="detect")},
        manifest_sha="b" * 64,
        selection_rule="first 39",
        resamples=50,
    )
    settings = make_run(
        tmp_path / "c",
        {"base": ArmData(zh_rows(BASE)), "chal": ArmData(zh_rows(WIN))},
        resamples=50,
    )
    _edit(settings, "base", extra={"decode_options": {"beam_size": 5, "temperature": [0, 0.2]}})
    _edit(settings, "chal", extra={"decode_options": {"beam_size": 1}}, resources={"threads": 4})
    lines = []
    for b, c in ((f"{base}", f"{chal}"), (f"{settings}#base", f"{settings}#chal")):
        args = ["decide", "--baseline", b, "--challenger", c, "--out", str(tmp_path / "out")]
        assert main(args) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1
        lines.append(err.replace(str(tmp_path), "<tmp>"))
    assert not (tmp_path / "out").exists()
    _check("refusals.txt", "".join(lines))
