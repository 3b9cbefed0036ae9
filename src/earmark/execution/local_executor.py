"""The local executor: arms one after another on this machine, each in its own process
(clean memory figures, a crash kept to its arm) or inline in this one."""

from __future__ import annotations

import ctypes
import multiprocessing
import signal
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from earmark.corpus.model import Utterance
from earmark.errors import EarmarkError
from earmark.execution.plan import RunPlan, plan_from_dict, selected_utterances

if TYPE_CHECKING:
    from earmark.execution.options import RunOptions


def _set_parent_death_signal() -> None:
    """Linux: the arm process dies with its parent (a killed run leaves no orphan writing
    to the store)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _arm_process_main(
    plan_dict: Mapping[str, Any], arm_index: int, out_dir: str, retry_failed: bool, quiet: bool
) -> None:
    _set_parent_death_signal()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from earmark.execution.arm_worker import run_arm

    plan = plan_from_dict(plan_dict)
    utterances, _ = selected_utterances(plan)
    try:
        run_arm(
            plan,
            plan.arms[arm_index],
            utterances,
            Path(out_dir),
            retry_failed=retry_failed,
            quiet=quiet,
        )
    except EarmarkError as exc:
        print(f"earmark: error: arm {plan.arms[arm_index].name}: {exc}", file=sys.stderr)
        sys.exit(2)
    except OSError as exc:  # a full disk or a file-size limit: one line, the run goes on
        where = f"{exc.filename}: " if exc.filename else ""
        what = exc.strerror or type(exc).__name__
        print(f"earmark: error: arm {plan.arms[arm_index].name}: {where}{what}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)


def run_arm_isolated(plan: RunPlan, index: int, out: Path, options: RunOptions) -> int:
    """Run arm `index` in a fresh spawned process; its exit code (0: finished)."""
    from earmark.execution.arm_environment import spawn_environment

    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(
        target=_arm_process_main,
        args=(plan.to_dict(), index, str(out), options.retry_failed, options.quiet),
        name=f"earmark-arm-{plan.arms[index].name}",
    )
    with spawn_environment(plan):  # the child loads numpy's BLAS with the plan's threads
        proc.start()
    try:
        proc.join()
    except KeyboardInterrupt:
        proc.terminate()
        proc.join(10)
        raise
    return int(proc.exitcode or 0)


def run_arms_locally(
    plan: RunPlan, utterances: list[Utterance], out: Path, options: RunOptions
) -> dict[str, int]:
    """Every arm of the plan, one after another; each arm's exit code by name."""
    arm_exit: dict[str, int] = {}
    for index, arm in enumerate(plan.arms):
        if options.isolation == "process":
            arm_exit[arm.name] = run_arm_isolated(plan, index, out, options)
        else:
            from earmark.execution.arm_worker import run_arm

            run_arm(
                plan,
                arm,
                utterances,
                out,
                retry_failed=options.retry_failed,
                quiet=options.quiet,
            )
            arm_exit[arm.name] = 0
        if arm_exit[arm.name] == 130:
            raise KeyboardInterrupt
    return arm_exit
