"""Running arms beyond one process: the Ray executor (optional extra `ray`).

The executor lives in `earmark.run` (`run.ray_executor`, `run.ray_arm_server`,
`run.sharding`), beside the local one it shares its arm loop with; this package only
re-exports its public names for the documented `from earmark.distributed import ...`.
`run_arm_on_ray` has the contract of `earmark.run.arm_worker.run_arm`; importing this
package never imports Ray (it is imported when an arm is actually run on it).
"""

from __future__ import annotations

from earmark.run.ray_executor import ray_cluster, run_arm_on_ray
from earmark.run.sharding import WORKER_LOST

__all__ = ["WORKER_LOST", "ray_cluster", "run_arm_on_ray"]
