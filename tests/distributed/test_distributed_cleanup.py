"""A Ray session started for a run is shut down after it: no Ray process outlives it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="needs the ray extra")

SCRIPT = textwrap.dedent(
    """
    import json, os, sys, time
    from pathlib import Path

    import ray
    from earmark.execution.ray_executor import ray_cluster, run_arm_on_ray
    from earmark.engines.spec import parse_arm_spec
    from earmark.execution.plan import RunPlan
    from earmark.execution.plan import selected_utterances

    def descendants(root):
        children = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
        found, todo = set(), [root]
        while todo:
            for child in children.get(todo.pop(), []):
                found.add(child)
                todo.append(child)
        return found

    manifest, arm, out = sys.argv[1:4]
    plan = RunPlan(manifest=manifest, audio_root=str(Path(manifest).parent),
                   arms=(parse_arm_spec(arm),), normalizer="none", bootstrap=200)
    utterances, _ = selected_utterances(plan)
    seen = set()
    with ray_cluster(quiet=True):
        summary = run_arm_on_ray(
            plan, plan.arms[0], utterances, Path(out), quiet=True, num_actors=2,
            on_row=lambda row: seen.update(descendants(os.getpid())),
        )
        kept = ray.is_initialized()  # the arm did not stop the session it did not start
        again = run_arm_on_ray(plan, plan.arms[0], utterances, Path(out), quiet=True)
    print(json.dumps({"summary": summary, "again": again, "kept": kept,
                      "pids": sorted(seen), "initialized": ray.is_initialized()}))
    """
)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is dead, only unreaped


def test_ray_started_by_the_run_is_shut_down(
    tmp_path: Path, crashy_asr: str, corpus_factory
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 4)
    arm = f"command:{crashy_asr} {{audio}}?name=fake"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(manifest), arm, str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["summary"]["transcribed"] == 4
    assert report["again"]["skipped"] == 4 and report["again"]["transcribed"] == 0
    assert report["kept"] is True and report["initialized"] is False
    # Ray's processes (GCS, raylet, workers, actors) were seen during the run...
    assert len(report["pids"]) >= 3
    # ...and none of them outlives it.
    assert [pid for pid in report["pids"] if _alive(pid)] == []
