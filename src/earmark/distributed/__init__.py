"""Running arms beyond one process: the Ray executor (optional extra `ray`).

`run_arm_on_ray` has the contract of `earmark.run.arm_worker.run_arm`; importing this
package never imports Ray (it is imported when an arm is actually run on it).
"""

from __future__ import annotations

from earmark.distributed.ray_executor import ray_cluster, run_arm_on_ray
from earmark.distributed.sharding import WORKER_LOST

__all__ = ["WORKER_LOST", "ray_cluster", "run_arm_on_ray"]
