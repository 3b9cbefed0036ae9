"""Run independent pieces of a comparison on several cores (fork), same numbers as serial.

Every bootstrap seeds its own generator with the recorded seed, so which process computes
a figure never changes it; a test checks `jobs=1` and `jobs=2` give identical output.
Workers are forked and run the function they are given, inputs bound to it included
(`functools.partial(work, inputs)`): a forked child inherits it as it is, so the parent's
already-counted tables reach the workers without being pickled or stored anywhere global.
Only task indices go in and results come back through pipes. Each worker's bootstraps draw
on its share of the cores (`earmark.stats.resampling.share_cores`), not on all of them.
Where `fork` is unavailable (Windows) everything runs in this process.
"""

from __future__ import annotations

import gc
import multiprocessing
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkContext
from multiprocessing.process import BaseProcess
from multiprocessing.queues import SimpleQueue
from typing import Any, TypeVar, overload

from earmark.stats.cores import usable_cores
from earmark.stats.resampling import share_cores

Item = TypeVar("Item")
Result = TypeVar("Result")
Kept = TypeVar("Kept")


def default_jobs() -> int:
    """Cores this process may use (affinity-aware where the OS says)."""
    return usable_cores()


def _serve(
    func: Callable[[Item], Result],
    items: Sequence[Item],
    todo: SimpleQueue[int | None],
    results: Connection,
    threads: int,
) -> None:
    """A worker: take task indices until told to stop; send (index, ok, value) back. Its
    bootstraps draw on `threads` threads, its share of the cores."""
    share_cores(threads)
    try:
        while (index := todo.get()) is not None:
            try:
                results.send((index, True, func(items[index])))
            except Exception as exc:  # handed to the parent, which re-raises it
                try:
                    results.send((index, False, exc))
                except Exception:  # an exception that does not pickle: its traceback
                    results.send((index, False, RuntimeError(traceback.format_exc())))
    finally:
        results.close()


@overload
def fork_map(func: Callable[[Item], Result], items: Sequence[Item], jobs: int) -> list[Result]: ...


@overload
def fork_map(
    func: Callable[[Item], Result],
    items: Sequence[Item],
    jobs: int,
    arrived: Callable[[Result], Kept],
) -> list[Kept]: ...


def fork_map(
    func: Callable[[Item], Any],
    items: Sequence[Item],
    jobs: int,
    arrived: Callable[[Any], Any] | None = None,
) -> list[Any]:
    """`[func(x) for x in items]`, spread over up to `jobs` forked processes, in order.

    A task that raises re-raises here (the first one in item order); a worker that dies
    without answering is an error too, never a missing result. `arrived` is applied in
    this process to each result as it comes in (in any order), before the next is read:
    what it lets go (an arm's own copies of shared texts) is not held for the rest; what
    it returns is what the list holds."""
    if jobs <= 1 or len(items) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [func(item) if arrived is None else arrived(func(item)) for item in items]
    ctx = multiprocessing.get_context("fork")
    # The workers inherit the parent's heap (every row already read and counted): frozen,
    # their garbage collector never walks it (Python's advice before forking), which was a
    # fifth of their time at 12 arms x 100k rows; it also spares those pages from
    # copy-on-write. The parent unfreezes when the map is done, unless its caller had
    # frozen objects of its own (unfreezing would release theirs too; ours then stay frozen).
    caller_froze = gc.get_freeze_count() > 0
    gc.freeze()
    try:
        return _fork_map(ctx, func, items, jobs, arrived)
    finally:
        if not caller_froze:
            gc.unfreeze()


def _fork_map(
    ctx: ForkContext,
    func: Callable[[Item], Any],
    items: Sequence[Item],
    jobs: int,
    arrived: Callable[[Any], Any] | None,
) -> list[Any]:
    n_workers = min(jobs, len(items))
    todo: SimpleQueue[int | None] = ctx.SimpleQueue()
    for index in range(len(items)):
        todo.put(index)
    for _ in range(n_workers):
        todo.put(None)
    readers: dict[Connection, BaseProcess] = {}
    threads = max(1, default_jobs() // n_workers)
    for _ in range(n_workers):
        receive, send = ctx.Pipe(duplex=False)
        args = (func, items, todo, send, threads)
        worker = ctx.Process(target=_serve, args=args, daemon=True)
        worker.start()
        send.close()
        readers[receive] = worker
    answers: dict[int, tuple[bool, Any]] = {}
    try:
        while readers:
            for conn in wait(list(readers)):
                assert isinstance(conn, Connection)
                try:
                    index, ok, value = conn.recv()
                except EOFError:  # the worker is done (or died): its pipe closed
                    readers.pop(conn).join()
                    conn.close()
                    continue
                if ok and arrived is not None:
                    value = arrived(value)
                answers[index] = (ok, value)
    finally:
        for conn, process in readers.items():
            process.terminate()
            process.join()
            conn.close()
    out: list[Any] = []
    for index in range(len(items)):
        if index not in answers:
            raise RuntimeError(f"a worker process died before returning task {index}")
        ok, value = answers[index]
        if isinstance(value, BaseException) and not ok:
            raise value
        out.append(value)
    return out
