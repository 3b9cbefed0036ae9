"""Wall time of one arm, local vs Ray (issue: run plans on a Ray cluster).

The bundled tiny.en arm (int8, beam 1, temperature 0) over the demo corpus's English and
no-speech clips, each listed 10 times under distinct ids (150 clips). Three figures:

1. local: the arm in its own process, as `earmark run` does it (spawn + model load +
   every clip), one process using CTranslate2's default threads;
2. Ray cold: `run_arm_on_ray` with Ray not running — `ray.init`, 2 actors × 1 CPU
   (each loads the model), shards of 8, `ray.shutdown` — everything a user waits for;
3. Ray warm: the same on an already started Ray (actor start-up and model loads still
   included, Ray's own start-up not).

Each run writes its own run directory; the hypotheses of the three are compared (they
must be identical). Overhead is included on purpose: on a 2-core machine Ray cannot
beat one process that already uses both cores, and the figures say by how much it loses.

    python benchmarks/bench_ray.py [--copies 10]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from earmark.corpus.demo import demo_audio_root, demo_manifest_path
from earmark.corpus.manifest import read_manifest, read_meta
from earmark.corpus.writer import write_manifest
from earmark.engines.spec import parse_arm_spec
from earmark.execution.plan import RunPlan

ARM = "faster-whisper:bundled:tiny.en?compute_type=int8&beam_size=1&temperature=0&name=tiny"


def repeated_manifest(folder: Path, copies: int) -> Path:
    """English and no-speech demo clips, each `copies` times under distinct ids."""
    rows = [u for u in read_manifest(demo_manifest_path()) if u.language == "en"]
    chosen = [replace(u, id=f"{u.id}.{k}") for k in range(copies) for u in rows]
    manifest = folder / "manifest.jsonl"
    write_manifest(manifest, chosen, read_meta(demo_manifest_path()))
    return manifest


def hypotheses(out: Path) -> dict[str, str | None]:
    lines = (out / "predictions.jsonl").read_text("utf-8").splitlines()
    return {(row := json.loads(x))["id"]: row["hypothesis"] for x in lines}


def resources(out: Path) -> dict:
    return json.loads((out / "arms" / "tiny" / "resources.json").read_text("utf-8"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--actors", type=int, default=2)
    args = parser.parse_args()

    import ray

    from earmark.execution.local_executor import run_arm_isolated
    from earmark.execution.options import RunOptions
    from earmark.execution.plan import selected_utterances
    from earmark.execution.ray_executor import run_arm_on_ray

    with tempfile.TemporaryDirectory(prefix="earmark-bench-ray-") as tmp:
        root = Path(tmp)
        manifest = repeated_manifest(root, args.copies)
        plan = RunPlan(
            manifest=str(manifest),
            audio_root=str(demo_audio_root()),
            arms=(parse_arm_spec(ARM),),
            bootstrap=200,
        )
        utterances, _ = selected_utterances(plan)
        audio = sum(u.duration or 0.0 for u in utterances)
        print(f"{len(utterances)} clips, {audio:.1f} s of audio; arm {ARM}")
        print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")

        started = time.perf_counter()
        rc = run_arm_isolated(plan, 0, root / "local", RunOptions(quiet=True, command_line=[]))
        local_wall = time.perf_counter() - started
        assert rc == 0, rc

        started = time.perf_counter()
        run_arm_on_ray(
            plan, plan.arms[0], utterances, root / "cold", num_actors=args.actors, quiet=True
        )
        cold_wall = time.perf_counter() - started
        assert not ray.is_initialized()

        ray.init(num_cpus=args.actors, include_dashboard=False, log_to_driver=False)
        try:
            started = time.perf_counter()
            run_arm_on_ray(
                plan, plan.arms[0], utterances, root / "warm", num_actors=args.actors, quiet=True
            )
            warm_wall = time.perf_counter() - started
        finally:
            ray.shutdown()

        same = hypotheses(root / "local") == hypotheses(root / "cold") == hypotheses(root / "warm")
        print(f"hypotheses identical across the three runs: {same}")
        print(
            f"{'run':<34}{'wall s':>8}{'x audio':>9}{'decode s':>10}{'CPU s':>8}{'peak RSS MB':>13}"
        )
        for label, wall, out in (
            ("local (1 process)", local_wall, root / "local"),
            (f"Ray cold ({args.actors} actors, init+shutdown)", cold_wall, root / "cold"),
            (f"Ray warm ({args.actors} actors)", warm_wall, root / "warm"),
        ):
            res = resources(out)
            executor = res.get("executor") or {}
            rss = executor.get("peak_rss_bytes_sum") or res["peak_rss_bytes"]
            print(
                f"{label:<34}{wall:>8.1f}{audio / wall:>9.1f}{res['decode_seconds_total']:>10.1f}"
                f"{res['cpu_seconds'] or 0.0:>8.1f}{rss / 2**20:>13.0f}"
            )
        print(
            f"load average after: {os.getloadavg()[0]:.2f} (other work on the machine skews wall times)"
        )
        print("peak RSS for Ray is the sum over actor processes (each a Ray worker + model)")
        print(
            f"Ray overhead vs local: cold {cold_wall - local_wall:+.1f} s, "
            f"warm {warm_wall - local_wall:+.1f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
