"""Shards and the retry bound (pure bookkeeping), the actor body without Ray, and the
missing-extra error."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from earmark.corpus.model import Utterance
from earmark.engines.spec import parse_arm_spec
from earmark.errors import EarmarkError, MissingExtraError
from earmark.execution.arm_loop import WorkItem
from earmark.execution.plan import RunPlan
from earmark.execution.ray_arm_server import ArmServer
from earmark.execution.sharding import ShardQueue, make_shards


def _items(n: int) -> list[WorkItem]:
    return [
        WorkItem(Utterance(id=f"u{i}", audio=f"u{i}.wav", text="x", language="en"))
        for i in range(n)
    ]


@given(st.integers(0, 60), st.integers(1, 10))
def test_shards_cover_every_clip_once_in_order(n: int, size: int) -> None:
    shards = make_shards(_items(n), size)
    assert [i for s in shards for i in s.ids] == [f"u{i}" for i in range(n)]
    assert all(1 <= len(s.items) <= size for s in shards)
    assert len(shards) == -(-n // size)  # ceil(n / size)
    assert [s.index for s in shards] == list(range(len(shards)))


def test_lost_shard_is_retried_clip_by_clip_then_given_up() -> None:
    queue = ShardQueue(make_shards(_items(5), 3), max_retries=2)
    first = queue.pop()
    assert first.ids == ["u0", "u1", "u2"] and first.attempt == 0
    assert queue.worker_lost(first) == []
    assert queue.retried_clips == 3
    # The untouched second shard runs first; the three clips follow, one per shard.
    assert queue.pop().ids == ["u3", "u4"]
    retries = [queue.pop() for _ in range(3)]
    assert [(s.ids, s.attempt) for s in retries] == [(["u0"], 1), (["u1"], 1), (["u2"], 1)]
    assert len({s.index for s in retries} | {0, 1}) == 5  # fresh shard numbers
    again = retries[1]
    assert queue.worker_lost(again) == []
    last = queue.pop()
    assert (last.ids, last.attempt) == (["u1"], 2)
    # max_retries=2: a third loss (attempt 3) gives the clip up.
    assert [i.utterance.id for i in queue.worker_lost(last)] == ["u1"]
    # Retried: three clips after the first loss, one after the second.
    assert len(queue) == 0 and queue.retried_clips == 4


def test_zero_retries_gives_up_at_the_first_loss() -> None:
    queue = ShardQueue(make_shards(_items(2), 8), max_retries=0)
    assert len(queue.worker_lost(queue.pop())) == 2 and len(queue) == 0


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        make_shards(_items(3), 0)
    with pytest.raises(ValueError):
        ShardQueue([], max_retries=-1)


def _plan(tmp_path: Path, arm: str) -> RunPlan:
    return RunPlan(
        manifest=str(tmp_path / "m.jsonl"), audio_root=str(tmp_path), arms=(parse_arm_spec(arm),)
    )


def test_actor_reports_a_load_error_as_data(tmp_path: Path, monkeypatch) -> None:
    import earmark.engines.registry as registry

    def broken(spec):
        raise MissingExtraError("the faster-whisper backend", "faster-whisper", "faster_whisper")

    monkeypatch.setattr(registry, "build_engine", broken)
    plan = _plan(tmp_path, f"command:{sys.executable} x.py {{audio}}?name=a")
    server = ArmServer(plan, plan.arms[0], actor_index=3)
    info = server.describe()
    assert info["actor"] == 3 and info["fingerprint"] is None
    assert info["error"]["kind"] == "missing_extra"
    assert info["error"]["extra"] == "faster-whisper"
    assert info["error"]["module"] == "faster_whisper"
    assert server.transcribe_shard(make_shards(_items(1), 1)[0])["rows"] == []

    from earmark.execution.ray_executor import _raise_load_error

    with pytest.raises(MissingExtraError) as caught:
        _raise_load_error(plan.arms[0], info["error"])
    assert "earmark[faster-whisper]" in str(caught.value)


def test_missing_ray_raises_missing_extra(tmp_path: Path, monkeypatch) -> None:
    from earmark.execution.ray_executor import run_arm_on_ray

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray → ImportError
    plan = _plan(tmp_path, f"command:{sys.executable} x.py {{audio}}?name=a")
    with pytest.raises(MissingExtraError) as caught:
        run_arm_on_ray(plan, plan.arms[0], [], tmp_path / "out")
    assert caught.value.extra == "ray"


def test_bad_setting_fails_before_any_cluster_work(tmp_path: Path, monkeypatch) -> None:
    from earmark.execution.ray_executor import run_arm_on_ray

    monkeypatch.setitem(sys.modules, "ray", None)  # proves Ray is not even imported
    plan = _plan(tmp_path, f"command:{sys.executable} x.py {{audio}}?bogus=1&name=a")
    with pytest.raises(EarmarkError, match="bogus"):
        run_arm_on_ray(plan, plan.arms[0], [], tmp_path / "out")
    with pytest.raises(EarmarkError, match="num_actors"):
        run_arm_on_ray(plan, plan.arms[0], [], tmp_path / "out", num_actors=0)
