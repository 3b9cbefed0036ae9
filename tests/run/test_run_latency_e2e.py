"""End-to-end latency beside decode latency, per language and slice; threads recorded;
results.md shows latency and memory (issue 15, seed 000's measurement record)."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.corpus import audio as audio_module
from earmark.corpus.audio import LoadedAudio
from earmark.engines.spec import parse_arm_spec
from earmark.execution.arm_worker import run_arm
from earmark.execution.plan import RunPlan, selected_utterances
from earmark.execution.resources import ArmResources, latency_by_language
from earmark.render.markdown import render_results_markdown


def _row(lang: str, decode: float, e2e: float | None, audio: float, *slices: str, ok=True) -> dict:
    return {
        "language": lang,
        "status": "ok" if ok else "engine_exception:X",
        "decode_seconds": decode,
        "end_to_end_seconds": e2e,
        "audio_seconds": audio,
        "slices": list(slices),
    }


def test_latency_by_language_and_slice_hand_computed() -> None:
    rows = [
        _row("en", 1.0, 1.5, 10.0, "quiet"),
        _row("en", 2.0, 2.5, 10.0, "quiet", "noisy"),
        _row("en", 3.0, 4.0, 20.0, "noisy"),
        _row("en", 9.0, 9.0, 5.0, "quiet", ok=False),  # failed: not timed
        _row("zh", 0.5, None, 2.0),  # decoded but its load was not timed
    ]
    out = latency_by_language(rows)
    en = out["en"]
    assert en["clips"] == 3
    assert en["latency_p50_seconds"] == 2.0
    assert en["latency_p95_seconds"] == pytest.approx(2.0 + 0.9 * 1.0)  # linear, numpy
    assert en["real_time_factor"] == pytest.approx(6.0 / 40.0)
    assert en["end_to_end_p50_seconds"] == 2.5
    assert en["end_to_end_p95_seconds"] == pytest.approx(2.5 + 0.9 * 1.5)
    assert en["end_to_end_max_seconds"] == 4.0 and en["clips_timed_end_to_end"] == 3
    quiet, noisy = en["by_slice"]["quiet"], en["by_slice"]["noisy"]
    assert quiet["clips"] == 2 and quiet["end_to_end_p50_seconds"] == 2.0
    assert quiet["real_time_factor"] == pytest.approx(3.0 / 20.0)
    assert noisy["latency_p50_seconds"] == 2.5 and noisy["end_to_end_max_seconds"] == 4.0
    zh = out["zh"]
    assert zh["clips"] == 1 and zh["clips_timed_end_to_end"] == 0
    assert zh["end_to_end_p50_seconds"] is None and "by_slice" not in zh


def test_arm_resources_report_end_to_end_and_threads() -> None:
    res = ArmResources(
        load_seconds=1.0,
        rss_after_load_bytes=None,
        peak_rss_bytes=None,
        cpu_seconds=None,
        wall_seconds=None,
        audio_seconds=4.0,
        decode_seconds=[1.0, 3.0],
        model_size_bytes=None,
        threads=2,
        clips_timed=2,
        end_to_end_seconds=[1.5, 3.5],
        threads_source="plan threads",
    ).to_dict()
    assert res["end_to_end_p50_seconds"] == 2.5 and res["end_to_end_max_seconds"] == 3.5
    assert res["latency_p50_seconds"] == 2.0 and res["real_time_factor"] == 1.0
    assert res["threads"] == 2 and res["threads_source"] == "plan threads"
    assert "end_to_end" in res["definitions"]  # type: ignore[operator]


@dataclasses.dataclass(frozen=True)
class _TimedAudio(LoadedAudio):
    load_seconds: float | None = None


def _plan(manifest: Path, arm: str, threads: int = 2) -> RunPlan:
    return RunPlan(
        manifest=str(manifest),
        audio_root=str(manifest.parent),
        arms=(parse_arm_spec(arm),),
        normalizer="none",
        bootstrap=0,
        threads=threads,
    )


def _rows(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "predictions.jsonl").read_text("utf-8").splitlines()]


def test_rows_carry_end_to_end_from_the_prefetcher_timing(
    tmp_path: Path, fake_asr: str, corpus_factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Until corpus/audio.py times its own loads, stand in a loader that times the real
    # one and carries the figure the way LoadedAudio will (`load_seconds`).
    real = audio_module.load_audio
    timed: dict[str, float] = {}

    def timed_load(root, utt, **kwargs):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        loaded = real(root, utt, **kwargs)
        if not isinstance(loaded, LoadedAudio):
            return loaded
        timed[utt.id] = time.perf_counter() - started
        fields = {f.name: getattr(loaded, f.name) for f in dataclasses.fields(LoadedAudio)}
        return _TimedAudio(**{**fields, "load_seconds": timed[utt.id]})

    monkeypatch.setattr(audio_module, "load_audio", timed_load)
    manifest = corpus_factory(tmp_path / "corpus", 3)
    plan = _plan(manifest, f"command:{fake_asr} {{audio}} 0.05?name=fake")
    utterances, _ = selected_utterances(plan)
    out = tmp_path / "run"
    run_arm(plan, plan.arms[0], utterances, out, quiet=True)
    rows = _rows(out)
    assert len(rows) == 3
    for row in rows:
        assert row["audio_load_seconds"] == pytest.approx(timed[row["id"]])
        # Load + the engine call (which sleeps 0.05 s inside the program) + writing.
        assert row["end_to_end_seconds"] >= row["audio_load_seconds"] + row["decode_seconds"]
        assert row["end_to_end_seconds"] >= 0.05
    resources = json.loads((out / "arms" / "fake" / "resources.json").read_text("utf-8"))
    assert resources["clips_timed_end_to_end"] == 3
    e2e = sorted(r["end_to_end_seconds"] for r in rows)
    assert resources["end_to_end_p50_seconds"] == pytest.approx(e2e[1])
    # A command arm names no thread setting: the plan's count, pinned in its environment.
    assert resources["threads"] == 2
    assert resources["threads_source"].startswith("plan threads")


def test_real_prefetcher_timing_reaches_the_rows(
    tmp_path: Path, fake_asr: str, corpus_factory
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    plan = _plan(manifest, f"command:{fake_asr} {{audio}}?name=fake")
    utterances, _ = selected_utterances(plan)
    run_arm(plan, plan.arms[0], utterances, tmp_path / "run", quiet=True)
    for row in _rows(tmp_path / "run"):
        assert row["audio_load_seconds"] > 0
        assert row["end_to_end_seconds"] >= row["audio_load_seconds"] + row["decode_seconds"]


def test_results_md_shows_latency_and_memory(tmp_path: Path, fake_asr: str, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    out = tmp_path / "run"
    args = ["run", "--manifest", str(manifest), "--arm", f"command:{fake_asr} {{audio}}?name=fake"]
    assert (
        main([*args, "--normalizer", "none", "--bootstrap", "50", "--out", str(out), "--quiet"])
        == 0
    )
    results = json.loads((out / "results.json").read_text("utf-8"))
    arm = results["arms"]["fake"]
    assert arm["resources"]["threads"] is not None
    assert arm["resources_by_language"]["en"]["by_slice"]["tone"]["clips"] == 2
    text = (out / "results.md").read_text("utf-8")
    assert text == render_results_markdown(results, title=text.splitlines()[0][2:])
    assert "### Speed and memory" in text
    assert f"- Threads: {arm['resources']['threads']} (plan threads" in text
    assert "| en / tone | 2 |" in text
    peak = arm["resources"]["peak_rss_bytes"]
    assert f"peak {peak / 2**20:.0f} MiB" in text
