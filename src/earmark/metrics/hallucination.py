"""Signals of insertion-driven failure: output on silence, repetition loops, runaway length.

BlasBench (seed 003) found every Whisper variant above 100% WER on Irish, driven by
fluent English insertions; an average hides that, so these counts travel beside WER.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy.typing as npt

#: An output with more than this many times the reference's units is "runaway".
RUNAWAY_RATIO = 2.0


def repetition_loop(tokens: Sequence[str], *, max_n: int = 4, min_repeats: int = 4) -> bool:
    """True when some n-gram (n ≤ max_n) repeats ≥ min_repeats times back to back.

    >>> repetition_loop("go go go go".split())
    True
    >>> repetition_loop("the cat sat on the mat".split())
    False
    """
    length = len(tokens)
    # A loop repeats at least (min_repeats - 1) units, so a sequence with fewer repeated
    # units cannot hold one; this cheap check skips ordinary sentences.
    if length - len(set(tokens)) < min_repeats - 1:
        return False
    for n in range(1, max_n + 1):
        if length < n * min_repeats:
            break
        for offset in range(n):
            run = 1
            for start in range(offset + n, length - n + 1, n):
                if tokens[start : start + n] == tokens[start - n : start]:
                    run += 1
                    if run >= min_repeats:
                        return True
                else:
                    run = 1
    return False


@dataclass(frozen=True, slots=True)
class HallucinationCounts:
    """Per-row flags summed over a set of rows; adds like `ErrorCounts`."""

    rows: int = 0
    no_speech_rows: int = 0
    no_speech_with_output: int = 0
    empty_outputs: int = 0
    repetition_loops: int = 0
    runaway_outputs: int = 0

    def __add__(self, other: HallucinationCounts) -> HallucinationCounts:
        return HallucinationCounts(
            self.rows + other.rows,
            self.no_speech_rows + other.no_speech_rows,
            self.no_speech_with_output + other.no_speech_with_output,
            self.empty_outputs + other.empty_outputs,
            self.repetition_loops + other.repetition_loops,
            self.runaway_outputs + other.runaway_outputs,
        )

    def as_dict(self) -> dict[str, object]:
        def share(k: int, n: int) -> float | None:
            return k / n if n else None

        speech_rows = self.rows - self.no_speech_rows
        return {
            "rows": self.rows,
            "no_speech_rows": self.no_speech_rows,
            "no_speech_with_output": self.no_speech_with_output,
            "no_speech_output_rate": share(self.no_speech_with_output, self.no_speech_rows),
            "empty_outputs": self.empty_outputs,
            "empty_output_rate": share(self.empty_outputs, speech_rows),
            "repetition_loops": self.repetition_loops,
            "runaway_outputs": self.runaway_outputs,
        }


def hallucination_counts(
    ref_units: npt.ArrayLike,
    hyp_units: npt.ArrayLike,
    loops: npt.ArrayLike,
    *,
    runaway_ratio: float = RUNAWAY_RATIO,
) -> HallucinationCounts:
    """The flags summed over rows, from per-row unit counts and loop flags.

    Output on an empty reference is output on no-speech; an empty output on a non-empty
    reference is an empty output; a runaway output has more than `runaway_ratio` × the
    reference's units (and at least 3 more).

    >>> flags = hallucination_counts([0, 3, 2], [4, 0, 9], [False, False, True])
    >>> flags.runaway_outputs, flags.empty_outputs, flags.repetition_loops
    (2, 1, 1)
    """
    import numpy as np

    ref = np.asarray(ref_units, dtype=np.int64)
    hyp = np.asarray(hyp_units, dtype=np.int64)
    no_speech = ref == 0
    return HallucinationCounts(
        rows=int(ref.size),
        no_speech_rows=int(no_speech.sum()),
        no_speech_with_output=int((no_speech & (hyp > 0)).sum()),
        empty_outputs=int((~no_speech & (hyp == 0)).sum()),
        repetition_loops=int(np.asarray(loops, dtype=bool).sum()),
        runaway_outputs=int(((hyp > runaway_ratio * ref) & (hyp - ref >= 3)).sum()),
    )
