"""`fork_map`: serial results in item order, inputs passed explicitly, failures raised."""

from __future__ import annotations

import functools
import gc
import os

import pytest

from earmark.comparison import parallel
from earmark.comparison.parallel import fork_map


def _scaled(table: dict[str, int], key: str) -> tuple[int, int]:
    return os.getpid(), table[key] * 10


def test_workers_read_the_bound_inputs_and_answer_in_order() -> None:
    table = {f"k{i}": i for i in range(9)}
    items = list(table)
    work = functools.partial(_scaled, table)
    got = fork_map(work, items, jobs=3)
    assert [value for _, value in got] == [i * 10 for i in range(9)]
    assert os.getpid() not in {pid for pid, _ in got}  # computed in forked workers
    assert fork_map(work, items, jobs=1) == [(os.getpid(), i * 10) for i in range(9)]


def test_no_module_global_worker_state() -> None:
    assert not hasattr(parallel, "STATE")


def _fails_on_three(item: int) -> int:
    if item == 3:
        raise ValueError(f"bad item {item}")
    return item


def test_a_failing_task_raises_its_exception() -> None:
    with pytest.raises(ValueError, match="bad item 3"):
        fork_map(_fails_on_three, list(range(6)), jobs=2)


def _dies_on_two(item: int) -> int:
    if item == 2:
        os._exit(3)
    return item


def test_a_worker_that_dies_is_an_error_not_a_missing_result() -> None:
    with pytest.raises(RuntimeError, match="died before returning task 2"):
        fork_map(_dies_on_two, list(range(5)), jobs=2)


def _frozen_in_worker(_: int) -> int:
    return gc.get_freeze_count()


def test_workers_start_with_the_parent_heap_frozen_and_the_parent_unfreezes() -> None:
    """The parent's objects are frozen at fork (the workers' collector never walks them);
    the parent's own collector sees them again afterwards, even after a failure."""
    keep = [[i] for i in range(1000)]  # container objects alive in the parent
    assert gc.get_freeze_count() == 0
    frozen = fork_map(_frozen_in_worker, [0, 1], jobs=2)
    assert all(count >= len(keep) for count in frozen)
    assert gc.get_freeze_count() == 0
    with pytest.raises(ValueError):
        fork_map(_fails_on_three, list(range(6)), jobs=2)
    assert gc.get_freeze_count() == 0


def test_a_callers_own_freeze_is_left_in_place() -> None:
    keep = [[i] for i in range(100)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert fork_map(_frozen_in_worker, [0, 1], jobs=2)
        assert gc.get_freeze_count() >= frozen and len(keep) == 100
    finally:
        gc.unfreeze()


def _core_share(_: int) -> int | None:
    from earmark.stats import resampling

    return resampling._core_share


def test_each_worker_bootstraps_on_its_share_of_the_cores() -> None:
    from earmark.stats import resampling

    share = max(1, parallel.default_jobs() // 2)
    assert fork_map(_core_share, [0, 1, 2], jobs=2) == [share] * 3
    assert resampling._core_share is None  # the parent keeps all of its cores
