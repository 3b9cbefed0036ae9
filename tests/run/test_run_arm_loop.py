"""One arm loop, two executors: the local arm (`run_arm`) and the Ray actor's body
(`ArmServer`, run here without Ray, shard by shard as the driver would) write the same
prediction rows, byte for byte apart from the two measured latencies; the skip rule and
the tally are pinned on hand-built cases; and the run package no longer imports the
distributed one."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from earmark.corpus.demo import demo_audio_root, demo_manifest_path
from earmark.corpus.manifest import read_manifest, read_meta
from earmark.corpus.model import Utterance
from earmark.corpus.writer import write_manifest
from earmark.engines.spec import parse_arm_spec
from earmark.execution.arm_loop import ArmTally, WorkItem, cache_key, work_items
from earmark.execution.arm_worker import run_arm
from earmark.execution.plan import RunPlan, selected_utterances
from earmark.execution.ray_arm_server import ArmServer
from earmark.execution.sharding import make_shards
from earmark.execution.store import PredictionStore

GOLDEN = json.loads((Path(__file__).parent / "data" / "demo-golden.json").read_text("utf-8"))
SRC = Path(__file__).resolve().parents[2] / "src" / "earmark"
#: The only row fields that measure time on this engine (decode_seconds comes from the file).
LATENCY = re.compile(rb'"(audio_load_seconds|end_to_end_seconds)": (null|[-0-9.eE+]+)')
#: A clip the hypothesis file lacks, and a clip whose manifest hash is wrong.
MISSING, CORRUPT = "en-04", "zh-02"


def _masked(path: Path) -> list[bytes]:
    """The store's lines with the latencies masked, sorted: an unreadable clip's row is
    written at once while decoded ones wait for their batch, and batches end at shard
    boundaries, so executors may interleave rows differently (finish_run sorts them)."""
    return sorted(LATENCY.sub(rb'"\1": "<timed>"', path.read_bytes()).splitlines())


def _demo_plan(root: Path, *, repeats: int, batch_size: int) -> RunPlan:
    """The bundled demo corpus (31 clips, en/ga/zh) read by a precomputed engine that
    returns the golden demo hypotheses, with fixed decode times."""
    root.mkdir(parents=True, exist_ok=True)
    clips = [
        replace(u, sha256="0" * 64) if u.id == CORRUPT else u
        for u in read_manifest(demo_manifest_path())
    ]
    manifest = root / "manifest.jsonl"
    write_manifest(manifest, clips, read_meta(demo_manifest_path()))
    hyps = root / "hyps.jsonl"
    hyps.write_text(
        "".join(
            json.dumps({"id": i, "hypothesis": text, "decode_seconds": 0.125 * (n + 1)}) + "\n"
            for n, (i, text) in enumerate(sorted(GOLDEN["hypotheses"].items()))
            if i != MISSING
        ),
        "utf-8",
    )
    return RunPlan(
        manifest=str(manifest),
        audio_root=str(demo_audio_root()),
        arms=(parse_arm_spec(f"precomputed:{hyps}?name=golden"),),
        normalizer="none",
        repeats=repeats,
        batch_size=batch_size,
    )


def _on_actor(plan: RunPlan, out: Path, shard_size: int) -> dict[str, int]:
    """What the Ray driver does with one actor, minus Ray: the same work items, shard by
    shard, each shard's rows appended to the store in order."""
    utterances, _ = selected_utterances(plan)
    server = ArmServer(plan, plan.arms[0], actor_index=0)
    assert server.error is None, server.error
    fingerprint = server.describe()["fingerprint"]
    store = PredictionStore(out / "predictions.jsonl")
    items, skipped = work_items(
        store.latest(),
        plan.arms[0].name,
        utterances,
        repeats=plan.repeats,
        retry_failed=False,
        fingerprint=fingerprint,
    )
    tally = ArmTally(skipped=skipped)
    try:
        for shard in make_shards(items, shard_size):
            result = server.transcribe_shard(shard)
            tally.skipped += result["skipped"]
            for row in result["rows"]:
                store.append(row)
                tally.add(row)
    finally:
        store.close()
        server.close()
    return tally.summary()


@pytest.mark.parametrize(("repeats", "batch_size", "shard_size"), [(1, 1, 8), (2, 3, 4)])
def test_local_arm_and_ray_actor_write_the_same_rows(
    tmp_path: Path, repeats: int, batch_size: int, shard_size: int
) -> None:
    plan = _demo_plan(tmp_path / "corpus", repeats=repeats, batch_size=batch_size)
    utterances, _ = selected_utterances(plan)
    assert len(utterances) == 31
    local = run_arm(plan, plan.arms[0], utterances, tmp_path / "local", quiet=True)
    actor = _on_actor(plan, tmp_path / "actor", shard_size)
    # 31 clips × repeats: the missing hypothesis and the corrupt clip fail, per repeat.
    expected = {"transcribed": 29 * repeats, "skipped": 0, "failed": 2 * repeats}
    assert local == actor == expected
    lines = _masked(tmp_path / "local" / "predictions.jsonl")
    assert _masked(tmp_path / "actor" / "predictions.jsonl") == lines
    # Only the two latencies were masked: on every row that went through the engine.
    assert len(lines) == 31 * repeats
    assert sum(line.count(b'"<timed>"') for line in lines) == 2 * 30 * repeats
    rows = [
        json.loads(x)
        for x in (tmp_path / "local" / "predictions.jsonl").read_text("utf-8").splitlines()
    ]
    assert sorted((r["id"], r["repeat"]) for r in rows) == sorted(
        (u.id, k) for u in utterances for k in range(repeats)
    )
    by_status = {r["id"]: r["status"] for r in rows if r["status"] != "ok"}
    assert by_status == {MISSING: "missing_hypothesis", CORRUPT: "sha256_mismatch"}
    ok = {r["id"]: r["hypothesis"] for r in rows if r["status"] == "ok"}
    assert ok == {i: t for i, t in GOLDEN["hypotheses"].items() if i not in (MISSING, CORRUPT)}
    # Same arm, same clip and repeat on both sides: same cache key, so either resumes the other.
    resources = json.loads((tmp_path / "local" / "arms/golden/resources.json").read_text())
    assert resources["session"] == {
        "transcribed": 29 * repeats,
        "skipped_finished": 0,
        "failed": 2 * repeats,
    }
    assert resources["clips_timed"] == 29 * repeats
    decode = sum(0.125 * (n + 1) for n, i in enumerate(sorted(GOLDEN["hypotheses"])))
    decode -= sum(
        0.125 * (n + 1)
        for n, i in enumerate(sorted(GOLDEN["hypotheses"]))
        if i in (MISSING, CORRUPT)
    )
    assert resources["decode_seconds_total"] == pytest.approx(decode * repeats)


def test_local_run_killed_then_finished_by_an_actor(tmp_path: Path) -> None:
    plan = _demo_plan(tmp_path / "corpus", repeats=2, batch_size=2)
    utterances, _ = selected_utterances(plan)
    run_arm(plan, plan.arms[0], utterances, tmp_path / "clean", quiet=True)
    out = tmp_path / "run"
    out.mkdir()
    lines = (tmp_path / "clean" / "predictions.jsonl").read_bytes().splitlines(keepends=True)
    # What a kill -9 after 21 rows leaves: 21 whole rows and a torn one.
    (out / "predictions.jsonl").write_bytes(b"".join(lines[:21]) + lines[21][:30])
    resumed = _on_actor(plan, out, shard_size=5)
    # Rows 0-20 are en-01..en-10 (both repeats: en-04's two failures are final) and en-11's
    # first repeat; left: en-11's second and 20 clips × 2, zh-02's two among them failing.
    assert resumed == {"transcribed": 39, "skipped": 21, "failed": 2}
    assert _masked(out / "predictions.jsonl") == _masked(tmp_path / "clean" / "predictions.jsonl")


def _utt(uid: str, sha: str | None = "a" * 64) -> Utterance:
    return Utterance(id=uid, audio=f"{uid}.wav", text="x", language="en", sha256=sha)


def test_skip_rule_by_hand() -> None:
    fp = "f" * 64
    done, half, stale, unhashed = _utt("done"), _utt("half"), _utt("stale"), _utt("nohash", None)

    def row(u: Utterance, r: int, status: str, key_fp: str = fp) -> dict[str, Any]:
        return {"status": status, "cache_key": cache_key(key_fp, u, u.sha256, r)}

    existing = {
        ("a", "done", 0): row(done, 0, "ok"),
        ("a", "done", 1): row(done, 1, "ok"),
        ("a", "half", 0): row(half, 0, "ok"),
        ("a", "half", 1): row(half, 1, "decode_error"),
        ("a", "stale", 0): row(stale, 0, "ok", key_fp="0" * 64),
        ("a", "nohash", 0): row(unhashed, 0, "ok"),
        ("b", "stale", 1): row(stale, 1, "ok"),  # another arm's row never counts
    }
    clips = [done, half, stale, unhashed]
    keep, skipped = work_items(existing, "a", clips, repeats=2, retry_failed=False, fingerprint=fp)
    # A failed row is final unless retry_failed; a stale key and an unhashed clip are read.
    assert skipped == 4
    assert [i.utterance.id for i in keep] == ["stale", "nohash"]
    assert keep[0].finished_keys == {0: existing[("a", "stale", 0)]["cache_key"]}
    assert keep[1].finished_keys == {0: existing[("a", "nohash", 0)]["cache_key"]}
    retry, skipped = work_items(existing, "a", clips, repeats=2, retry_failed=True, fingerprint=fp)
    assert skipped == 2
    assert [i.utterance.id for i in retry] == ["half", "stale", "nohash"]
    assert retry[0] == WorkItem(half, {0: existing[("a", "half", 0)]["cache_key"]})


def test_tally_counts_rows_as_stored() -> None:
    tally = ArmTally(skipped=3)
    ok = {"status": "ok", "audio_seconds": 2.0, "decode_seconds": 0.5}
    tally.add({**ok, "end_to_end_seconds": 0.75})
    tally.add({**ok, "decode_seconds": float("nan"), "end_to_end_seconds": None})
    tally.add({"status": "engine_exception:RuntimeError", "audio_seconds": 1.0})
    tally.add({"status": "sha256_mismatch", "audio_seconds": None})
    assert tally.summary() == {"transcribed": 2, "skipped": 3, "failed": 2}
    # A NaN decode time is not a latency; the audio still counts toward the RTF's seconds.
    assert tally.session.decode_seconds == [0.5] and tally.session.end_to_end_seconds == [0.75]
    assert tally.session.audio_seconds == 4.0


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((a.name, []) for a in node.names)
    return found


def test_no_private_names_cross_execution_modules() -> None:
    for path in sorted((SRC / "execution").glob("*.py")):
        for module, names in _imports(path):
            if module.startswith("earmark."):
                private = [n for n in names if n.startswith("_")]
                assert not private, (path.name, module, private)
