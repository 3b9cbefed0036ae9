"""Cutting an arm's clips into small shards, and re-queueing the clips of a lost worker.

Shards are small (8 clips by default) and pulled from one queue, so a slow actor never
holds the run: whoever is free takes the next shard. When an actor dies mid-shard, the
driver cannot tell which clip it was working on, so every clip of that shard is retried,
each in a shard of its own: a clip that kills its worker ("poison clip") then takes only
itself down on the next attempts, and the innocent clips of its shard finish. A clip
that has used up its retries is given up with the reason code `worker_lost`.

Pure bookkeeping: no Ray, no I/O, so it is tested without a cluster.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from earmark.execution.arm_loop import WorkItem

__all__ = ["WORKER_LOST", "Shard", "ShardQueue", "make_shards"]

#: Reason code of a row whose clip was lost with its worker more often than allowed.
WORKER_LOST = "worker_lost"


@dataclass(frozen=True)
class Shard:
    """Clips sent to one actor in one call; `attempt` is 0 for the first try."""

    index: int
    items: tuple[WorkItem, ...]
    attempt: int = 0

    @property
    def ids(self) -> list[str]:
        return [item.utterance.id for item in self.items]


def make_shards(items: Sequence[WorkItem], size: int) -> list[Shard]:
    """Consecutive shards of at most `size` clips, in input (manifest) order."""
    if size < 1:
        raise ValueError("shard size must be at least 1")
    return [
        Shard(index=n, items=tuple(items[start : start + size]))
        for n, start in enumerate(range(0, len(items), size))
    ]


class ShardQueue:
    """The driver's queue of shards still to run, with the per-clip retry bound."""

    def __init__(self, shards: Iterable[Shard], max_retries: int) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self._pending: deque[Shard] = deque(shards)
        self._next_index = max((s.index for s in self._pending), default=-1) + 1
        self.max_retries = max_retries
        self.retried_clips = 0

    def __len__(self) -> int:
        return len(self._pending)

    def pop(self) -> Shard:
        return self._pending.popleft()

    def worker_lost(self, shard: Shard) -> list[WorkItem]:
        """Re-queue the clips of a shard whose worker died; return those given up.

        Each clip is retried alone, up to `max_retries` times after its first attempt.
        """
        given_up: list[WorkItem] = []
        attempt = shard.attempt + 1
        for item in shard.items:
            if attempt > self.max_retries:
                given_up.append(item)
                continue
            self._pending.append(Shard(index=self._next_index, items=(item,), attempt=attempt))
            self._next_index += 1
            self.retried_clips += 1
        return given_up
