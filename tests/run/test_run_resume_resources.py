"""A resumed run's resource figures cover every decoded row (issue 23): a rerun that
decodes nothing reports what the arm cost, not `RTF 0.000 · p95 0.00 s · CPU 0.0 s`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.engines.spec import parse_arm_spec
from earmark.execution.arm_worker import run_arm
from earmark.execution.plan import RunPlan, selected_utterances
from earmark.execution.resources import ProcessFigures, percentile

#: Figures computed from the rows and merged process figures: equal after a rerun.
FIGURES = (
    "audio_seconds",
    "decode_seconds_total",
    "latency_p50_seconds",
    "latency_p95_seconds",
    "latency_max_seconds",
    "real_time_factor",
    "rtfx",
    "clips_timed",
    "end_to_end_p50_seconds",
    "end_to_end_p95_seconds",
    "clips_timed_end_to_end",
    "cpu_seconds",
    "cpu_seconds_per_audio_second",
    "peak_rss_bytes",
    "rss_after_load_bytes",
    "load_seconds",
    "wall_seconds",
)


def _plan(manifest: Path, arm: str) -> RunPlan:
    return RunPlan(
        manifest=str(manifest),
        audio_root=str(manifest.parent),
        arms=(parse_arm_spec(arm),),
        normalizer="none",
        bootstrap=0,
        threads=1,
    )


def _resources(out: Path) -> dict:
    return json.loads((out / "arms" / "fake" / "resources.json").read_text("utf-8"))


def _rows(out: Path) -> list[dict]:
    lines = (out / "predictions.jsonl").read_text("utf-8").splitlines()
    return [json.loads(x) for x in lines if x]


def test_a_rerun_keeps_every_figure(tmp_path: Path, fake_asr: str, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 3)
    plan = _plan(manifest, f"command:{fake_asr} {{audio}} 0.02?name=fake")
    utterances, _ = selected_utterances(plan)
    out = tmp_path / "run"
    run_arm(plan, plan.arms[0], utterances, out, quiet=True)
    first = _resources(out)
    assert first["clips_timed"] == 3 and first["cpu_seconds"] is not None
    summary = run_arm(plan, plan.arms[0], utterances, out, quiet=True)
    assert summary == {"transcribed": 0, "skipped": 3, "failed": 0}
    second = _resources(out)
    assert {k: second[k] for k in FIGURES} == {k: first[k] for k in FIGURES}
    assert second["session"] == {"transcribed": 0, "skipped_finished": 3, "failed": 0}
    assert second["latency_p95_seconds"] > 0 and second["real_time_factor"] > 0
    # A third pass merges the merged record again: still the same figures.
    run_arm(plan, plan.arms[0], utterances, out, quiet=True)
    assert {k: _resources(out)[k] for k in FIGURES} == {k: first[k] for k in FIGURES}


def test_a_resumed_arm_counts_earlier_rows_and_sums_cpu(
    tmp_path: Path, fake_asr: str, corpus_factory
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 3)
    plan = _plan(manifest, f"command:{fake_asr} {{audio}} 0.02?name=fake")
    utterances, _ = selected_utterances(plan)
    out = tmp_path / "run"
    run_arm(plan, plan.arms[0], utterances[:2], out, quiet=True)
    first = _resources(out)
    run_arm(plan, plan.arms[0], utterances, out, quiet=True)
    second = _resources(out)
    rows = _rows(out)
    decode = [float(r["decode_seconds"]) for r in rows]
    assert len(rows) == 3 and second["clips_timed"] == 3
    assert second["latency_p50_seconds"] == percentile(decode, 50)
    assert second["latency_p95_seconds"] == percentile(decode, 95)
    assert second["decode_seconds_total"] == pytest.approx(sum(decode))
    audio = sum(float(r["audio_seconds"]) for r in rows)
    assert second["audio_seconds"] == pytest.approx(audio)
    assert second["real_time_factor"] == pytest.approx(sum(decode) / audio)
    # CPU and wall: the first process's plus the second's; memory: the larger.
    assert second["cpu_seconds"] > first["cpu_seconds"]
    assert second["wall_seconds"] > first["wall_seconds"]
    assert second["peak_rss_bytes"] >= first["peak_rss_bytes"]
    assert second["session"] == {"transcribed": 1, "skipped_finished": 2, "failed": 0}


@pytest.mark.parametrize(
    "earlier",
    [None, "", "not json", "[1, 2]", '{"cpu_seconds": "1e999"}', "\x00", "[" * 100_000],
    ids=["deleted", "empty", "garbage", "list", "string", "nul", "deep"],
)
def test_without_an_earlier_record_cpu_is_unknown_not_understated(
    tmp_path: Path, fake_asr: str, corpus_factory, earlier: str | None
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    plan = _plan(manifest, f"command:{fake_asr} {{audio}}?name=fake")
    utterances, _ = selected_utterances(plan)
    out = tmp_path / "run"
    run_arm(plan, plan.arms[0], utterances[:1], out, quiet=True)
    first = _resources(out)
    record = out / "arms" / "fake" / "resources.json"
    if earlier is None:
        record.unlink()
    else:
        record.write_text(earlier, "utf-8")
    run_arm(plan, plan.arms[0], utterances, out, quiet=True)
    second = _resources(out)
    assert second["cpu_seconds"] is None and second["cpu_seconds_per_audio_second"] is None
    assert second["clips_timed"] == 2
    assert second["latency_max_seconds"] >= first["latency_max_seconds"]


def test_process_figures_merge_rule_hand_computed() -> None:
    now = ProcessFigures(
        load_seconds=2.0,
        rss_after_load_bytes=100,
        peak_rss_bytes=300,
        cpu_seconds=1.5,
        wall_seconds=4.0,
    )
    earlier = {
        "load_seconds": 3.0,
        "rss_after_load_bytes": 120,
        "peak_rss_bytes": 250,
        "cpu_seconds": 2.25,
        "wall_seconds": 5.0,
    }
    assert now.after(earlier, decoded=True) == ProcessFigures(
        load_seconds=3.0,
        rss_after_load_bytes=120,
        peak_rss_bytes=300,
        cpu_seconds=3.75,
        wall_seconds=9.0,
    )
    # A process that decoded nothing adds nothing: the earlier record stands.
    assert now.after(earlier, decoded=False) == ProcessFigures(3.0, 120, 250, 2.25, 5.0)
    # Booleans and non-finite numbers are no figures.
    odd = {"cpu_seconds": True, "peak_rss_bytes": 1.5, "wall_seconds": float("nan")}
    assert now.after(odd, decoded=True) == ProcessFigures(2.0, 100, 300, None, None)


def test_rerun_through_the_cli_keeps_results_json_figures(
    tmp_path: Path, fake_asr: str, corpus_factory
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    out = tmp_path / "run"
    args = [
        "run",
        "--manifest",
        str(manifest),
        "--arm",
        f"command:{fake_asr} {{audio}} 0.02?name=fake",
        "--normalizer",
        "none",
        "--bootstrap",
        "0",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(args) == 0
    first = json.loads((out / "results.json").read_text("utf-8"))["arms"]["fake"]
    assert main(args) == 0
    second = json.loads((out / "results.json").read_text("utf-8"))["arms"]["fake"]
    assert {k: second["resources"][k] for k in FIGURES} == {
        k: first["resources"][k] for k in FIGURES
    }
    assert second["resources_by_language"] == first["resources_by_language"]
