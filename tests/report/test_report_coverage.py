"""Coverage gates ranking: an arm without a hypothesis for every clip is listed apart,
never ranked, in `leaderboard` and `decide` (issue 11 item 6)."""

from __future__ import annotations

import csv
import io
import json
import sys
from datetime import date
from pathlib import Path

import pytest
from report_builders import ZH_REF, ArmData, make_run, zh_rows

from earmark.cli import main
from earmark.decisions.decide import DecideOptions, decide_runs
from earmark.decisions.thresholds import DecisionRules
from earmark.errors import EarmarkError
from earmark.render.leaderboard import write_leaderboard
from earmark.render.leaderboard_ranking import build_leaderboard
from earmark.render.run_directory import load_run

FAILED = {"status": "arm_failed", "hypothesis": None}


def _runaway(n: int) -> list[tuple[str, str, str, str]]:
    """A real model that loops: every hypothesis is the reference ten times (CER 900%)."""
    return [(f"zh-{i:03d}", "zh", ZH_REF, ZH_REF * 10) for i in range(n)]


def _never_loaded(n: int) -> ArmData:
    return ArmData([(f"zh-{i:03d}", "zh", ZH_REF, "") for i in range(n)], extra_row_fields=FAILED)


def test_an_arm_that_never_loaded_does_not_beat_a_runaway_model(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", {"real": ArmData(_runaway(4)), "dead": _never_loaded(4)})
    board = build_leaderboard([load_run(run)])
    by = {e.system: e for e in board.entries}
    assert by["dead"].value == pytest.approx(1.0)  # 100% CER: all deletions
    assert by["real"].value == pytest.approx(9.0)
    assert by["real"].rank == 1 and by["real"].coverage == 1.0
    assert by["dead"].rank is None and by["dead"].coverage == 0.0
    assert by["dead"].unranked_reason == (
        "coverage 0/4 (0.0%) below the minimum 100%: arm_failed 4"
    )
    assert [e.system for e in board.ranked] == ["real"]
    assert [e.system for e in board.unranked] == ["dead"]


def test_min_coverage_lets_a_partly_failed_arm_rank(tmp_path: Path) -> None:
    rows = zh_rows([1] * 10)
    partly = ArmData(rows[:9] + [(rows[9][0], "zh", ZH_REF, "")])
    run = make_run(tmp_path / "run", {"full": ArmData(zh_rows([2] * 10)), "partly": partly})
    # Mark the last row of `partly` as failed in predictions.jsonl.
    lines = (run / "predictions.jsonl").read_text("utf-8").splitlines()
    rows_json = [json.loads(x) for x in lines]
    for r in rows_json:
        if r["arm"] == "partly" and r["id"] == "zh-009":
            r.update(status="timeout", hypothesis=None)
    (run / "predictions.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows_json), "utf-8"
    )
    strict = {e.system: e for e in build_leaderboard([load_run(run)]).entries}
    assert strict["partly"].rank is None and strict["full"].rank == 1
    assert "coverage 9/10 (90.0%) below the minimum 100%: timeout 1" == (
        strict["partly"].unranked_reason
    )
    lenient = {e.system: e for e in build_leaderboard([load_run(run)], 0.9).entries}
    assert lenient["partly"].unranked_reason is None
    # 9 rows with 1 error and one with 11 deletions: 20/110 vs 20/110 → a tie.
    assert lenient["partly"].rank == 1 and lenient["full"].rank == 1
    with pytest.raises(EarmarkError, match="not between 0 and 1"):
        build_leaderboard([load_run(run)], 95)


def test_files_show_coverage_and_list_unranked_rows_apart(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", {"real": ArmData(_runaway(3)), "dead": _never_loaded(3)})
    written = write_leaderboard([run], tmp_path / "lb")
    md = written["md"].read_text("utf-8")
    detail, _, unranked = md.partition("## Not ranked")
    assert "| coverage |" in detail and "3/3 (100.0%)" in detail
    assert "dead" not in detail.split("## Detail")[1]
    assert "| dead | " in unranked and "0/3 (0.0%)" in unranked
    assert "below the minimum 100%: arm_failed 3" in unranked
    assert "100.00% (not ranked: coverage 0/3)" in md  # pivot cell
    data = json.loads(written["json"].read_text("utf-8"))
    assert data["min_coverage"] == 1.0
    dead = next(e for e in data["entries"] if e["system"] == "dead")
    assert dead["ranked"] is False and dead["rank"] is None and dead["coverage"] == 0.0
    rows = list(csv.DictReader(io.StringIO(written["csv"].read_text("utf-8"))))
    got = {r["system"]: (r["rank"], r["coverage"], r["rows_with_hypothesis"]) for r in rows}
    assert got == {"real": ("1", "1.0", "3"), "dead": ("", "0.0", "0")}
    html = written["html"].read_text("utf-8")
    assert "<h2>Not ranked</h2>" in html and "arm_failed 3" in html


def test_cli_leaderboard_min_coverage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = make_run(tmp_path / "run", {"real": ArmData(_runaway(2)), "dead": _never_loaded(2)})
    assert main(["leaderboard", str(run), "--out", str(tmp_path / "a")]) == 0
    assert "## Not ranked" in capsys.readouterr().out
    assert main(["leaderboard", str(run), "--out", str(tmp_path / "b"), "--min-coverage", "0"]) == 0
    out = capsys.readouterr().out
    assert "## Not ranked" not in out and "| 1 | dead |" in out  # knowingly lowered
    with pytest.raises(SystemExit) as refused:  # a share above 1 is refused while parsing
        main(["leaderboard", str(run), "--out", str(tmp_path / "c"), "--min-coverage", "2"])
    assert refused.value.code == 2
    assert "--min-coverage: must be within [0, 1], got 2" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()


def test_decide_does_not_judge_a_side_that_never_loaded(tmp_path: Path) -> None:
    run = make_run(
        tmp_path / "run", {"base": ArmData(zh_rows([2] * 20)), "chal": _never_loaded(20)}
    )
    # Without the coverage rule a dead baseline would make any challenger a "win".
    outcome = decide_runs(
        DecideOptions(f"{run}:chal", f"{run}:base", out=tmp_path / "out", on=date(2026, 11, 30))
    )
    record, md = outcome.decision.to_dict(), outcome.markdown_path
    assert md is not None
    assert record["verdict"] == "stay"
    assert record["reasons"][0].startswith(
        "not judged: baseline zh: coverage 0/20 (0.0%) below the minimum 100%: arm_failed 20"
    )
    (ev,) = record["evidence"]
    assert ev["coverage"]["baseline"]["with_hypothesis"] == 0
    assert ev["coverage"]["challenger"] == {
        "rows": 20,
        "with_hypothesis": 20,
        "share": 1.0,
        "not_ok": {},
        "below_minimum": False,
        "reason": None,
    }
    assert "| 0/20 ⚠ / 20/20 |" in md.read_text("utf-8")
    # With the rule lowered knowingly, the figures are judged as before.
    lowered = DecisionRules(min_coverage=0.0)
    options = DecideOptions(
        f"{run}:chal", f"{run}:base", lowered, tmp_path / "out", date(2026, 11, 30)
    )
    assert decide_runs(options).decision.verdict == "promote"


def test_cli_decide_min_coverage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = make_run(
        tmp_path / "run", {"base": ArmData(zh_rows([2] * 20)), "chal": _never_loaded(20)}
    )
    args = ["decide", "--baseline", f"{run}#base", "--challenger", f"{run}#chal"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert "verdict: stay" in out and "not judged: challenger zh: coverage 0/20" in out
    assert main([*args, "--out", str(tmp_path / "b"), "--min-coverage", "0"]) == 0
    assert "verdict: reject" in capsys.readouterr().out


FAKE_ASR = "import sys; print('alpha beta gamma')\n"


def _tone_corpus(root: Path, n: int) -> Path:
    import numpy as np
    import soundfile as sf

    from earmark.corpus.model import CorpusMeta, Utterance
    from earmark.corpus.writer import write_manifest

    (root / "audio").mkdir(parents=True)
    rows = []
    for i in range(n):
        tone = (np.sin(np.arange(3200) * (0.01 + i * 0.003)) * 0.3).astype(np.float32)
        sf.write(root / "audio" / f"c{i}.wav", tone, 16000, subtype="PCM_16")
        rows.append(
            Utterance(id=f"c{i}", audio=f"audio/c{i}.wav", text="alpha beta", language="en")
        )
    meta = CorpusMeta(
        dataset="tones",
        licence="CC0-1.0",
        consent_basis="synthetic",
        redistribute_audio=True,
        redistribute_transcripts=True,
    )
    write_manifest(root / "manifest.jsonl", rows, meta)
    return root / "manifest.jsonl"


def test_real_run_with_an_arm_that_never_loaded(tmp_path: Path) -> None:
    """End to end: `earmark run` (one arm fails to load) → `leaderboard` leaves it unranked,
    and a command arm without model= is marked unverifiable with the reason."""
    manifest = _tone_corpus(tmp_path / "corpus", 3)
    script = tmp_path / "asr.py"
    script.write_text(FAKE_ASR, "utf-8")
    weights = tmp_path / "weights.bin"
    weights.write_bytes(b"w")
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n", "utf-8")
    out = tmp_path / "run"
    base = ["run", "--manifest", str(manifest), "--normalizer", "none", "--bootstrap", "20"]
    arms = [
        f"command:{sys.executable} {script} {{audio}}?name=declared&model={weights}",
        f"command:{sys.executable} {script} {{audio}}?name=undeclared",
        f"precomputed:{broken}?name=dead",
    ]
    args = [*base, *[x for a in arms for x in ("--arm", a)], "--out", str(out), "--quiet"]
    assert main(args) == 1
    board = build_leaderboard([load_run(out)])
    by = {e.system: e for e in board.entries}
    assert by["declared"].rank == 1 and by["declared"].verifiable
    assert by["undeclared"].rank == 2 and not by["undeclared"].verifiable
    assert by["undeclared"].missing == [
        "command arm 'undeclared' declares no model= file or folder: the weights the "
        "program loads are not hashed"
    ]
    assert by["dead"].rank is None and by["dead"].value == 1.0
    assert by["dead"].unranked_reason == (
        "coverage 0/3 (0.0%) below the minimum 100%: arm_failed 3"
    )
