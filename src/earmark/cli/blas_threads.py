"""numpy loaded with one BLAS thread, for the commands that do no linear algebra.

numpy's OpenBLAS starts and sets up a thread per core as it loads: ~50 ms of CPU on two
cores, a third of a one-pair `earmark score`. Scoring, comparing and checking count
integers, and no figure of theirs goes through BLAS (numpy multiplies integer matrices in
its own loops, and `einsum` without `optimize` never calls BLAS), so these commands load
numpy under `OPENBLAS_NUM_THREADS=1` and then put the environment back: what they start
later (compare's worker processes, a user's script) inherits nothing. Commands that run
an engine keep numpy's default, so the latency they measure is the engine's own.
"""

from __future__ import annotations

import os
import sys

#: Commands that never load an engine in their own process (see the module's docstring).
COMMANDS = frozenset(
    {"score", "multispeaker", "compare", "leaderboard", "decide", "verify", "report", "normalizers"}
)

_VARIABLE = "OPENBLAS_NUM_THREADS"


def load_numpy_single_threaded() -> bool:
    """Import numpy with one OpenBLAS thread, unless it is loaded already or the user set
    the thread count (their setting wins); the environment is left as it was. True when
    this call loaded numpy."""
    if "numpy" in sys.modules or _VARIABLE in os.environ:
        return False
    os.environ[_VARIABLE] = "1"
    try:
        import numpy  # noqa: F401  # loaded here, under the setting above
    finally:
        del os.environ[_VARIABLE]
    return True
