"""What every arm process is given so that a clip decodes the same anywhere.

The same plan must give the same hypotheses in a local arm process, a Ray actor, a resumed
run and on another day. Three things used to leak in from the surroundings: the thread
count (Ray sets `OMP_NUM_THREADS=1` in its workers, a shell may set something else, and
floating-point reductions split differently), the CPU code path (CTranslate2's ISA and GEMM
backend), and the sampler's random state (temperature fallback). The plan now fixes all
three; this module turns the plan into the environment, the engine setting and the per-clip
seed, in one place for both executors.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os

from earmark.engines.spec import ArmSpec
from earmark.execution.plan import RunPlan

#: The setting through which each backend takes its intra-op thread count.
THREAD_SETTING = {
    "faster-whisper": "cpu_threads",
    "whisper-cpp": "threads",
    "sherpa-onnx": "threads",
    "funasr": "threads",
    "transformers-ctc": "threads",
    "transformers-seq2seq": "threads",
}

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def arm_environment(plan: RunPlan) -> dict[str, str]:
    """Environment variables an arm process runs under (thread pools, pinned code path)."""
    from earmark.engines.cpu_runtime import pin_environment

    env = dict.fromkeys(THREAD_VARIABLES, str(plan.threads))
    if plan.cpu_isa:
        env.update(pin_environment(plan.cpu_isa))
    return env


def apply_arm_environment(plan: RunPlan) -> dict[str, str]:
    """Set `arm_environment(plan)` in this process and resize the thread pools already loaded.

    The variables only reach libraries loaded after this call; numpy's BLAS is loaded long
    before (earmark imports numpy), and its thread count changes the log-mel features
    faster-whisper computes with a matrix product: measured here, OpenBLAS on 2 threads vs 1
    turned tiny.en int8's "brown fox" into "round-fark". threadpoolctl resizes the pools
    (OpenBLAS, OpenMP, MKL) that are loaded now; torch's is set directly. A local arm process
    also gets the variables at spawn (`spawn_environment`), before numpy loads.
    """
    import sys

    from threadpoolctl import threadpool_limits

    env = arm_environment(plan)
    os.environ.update(env)
    threadpool_limits(limits=plan.threads)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(plan.threads)
    return env


class spawn_environment:
    """Within the block, `os.environ` carries the arm environment, so a process started in
    it (multiprocessing spawn) loads numpy's BLAS with the plan's settings; restored after."""

    def __init__(self, plan: RunPlan) -> None:
        self.env = arm_environment(plan)
        self.saved: dict[str, str | None] = {}

    def __enter__(self) -> dict[str, str]:
        self.saved = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)
        return self.env

    def __exit__(self, *exc: object) -> None:
        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def with_plan_threads(spec: ArmSpec, threads: int) -> ArmSpec:
    """The arm with the plan's thread count, unless the arm sets its own.

    The setting becomes part of the arm's canonical form, so it is in every row's cache key:
    rows decoded with another thread count are not reused.
    """
    key = THREAD_SETTING.get(spec.backend)
    if key is None or key in spec.settings_dict:
        return spec
    return dataclasses.replace(spec, settings=(*spec.settings, (key, str(threads))))


def clip_seed(plan_seed: int, utterance_id: str, repeat: int) -> int:
    """A 32-bit seed for one clip × repeat: independent of clip order, process and resume.

    The arm is left out on purpose: two arms decoding the same clip draw from the same
    stream (common random numbers), so their difference is not inflated by sampling.
    """
    text = f"{plan_seed}\x00{utterance_id}\x00{repeat}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:4], "big")
