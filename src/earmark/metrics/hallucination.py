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


#: A loop is a unit sequence repeated at least this many times back to back.
LOOP_MIN_REPEATS = 4


@dataclass(frozen=True, slots=True)
class Loop:
    """Where a repetition loop sits: `repeats` copies of `tokens[start : start + period]`."""

    start: int
    period: int
    repeats: int

    @property
    def span(self) -> int:
        """Units the loop covers (whole copies only)."""
        return self.period * self.repeats


def find_loop(
    tokens: Sequence[str], *, max_n: int | None = None, min_repeats: int = LOOP_MIN_REPEATS
) -> Loop | None:
    """The first repetition loop in `tokens`, or None.

    The rule: some sequence of n units, for any n from 1 up to `max_n` (None: any length
    that fits, ``len(tokens) // min_repeats``), occurs at least `min_repeats` times back to
    back. Units are whatever the caller passes: words for segmented scripts, characters
    for unsegmented ones (the normaliser's primary unit). Whisper's failure repeats whole
    phrases ("see you in the next video" 25 times), so capping n at a few words hid the
    commonest loop. The shortest period is reported; among equal periods the earliest
    start, with the run counted to its end.

    >>> find_loop("and then see you in the next video see you in the next video "
    ...           "see you in the next video see you in the next video".split())
    Loop(start=2, period=6, repeats=4)
    >>> find_loop(list("谢谢观看谢谢观看谢谢观看谢谢观看"))
    Loop(start=0, period=4, repeats=4)
    >>> find_loop("the cat sat on the mat".split()) is None
    True
    """
    length = len(tokens)
    if min_repeats < 2:
        raise ValueError("min_repeats must be at least 2")
    longest = length // min_repeats
    if max_n is not None:
        longest = min(longest, max_n)
    if longest < 1:
        return None
    # Every unit of a loop occurs at least min_repeats times: an output whose units are
    # all rarer holds none (this skips ordinary sentences before any scan).
    counts: dict[str, int] = {}
    for token in tokens:
        counts[token] = counts.get(token, 0) + 1
    if max(counts.values()) < min_repeats:
        return None
    ids = {token: k for k, token in enumerate(counts)}
    import numpy as np

    seq = np.fromiter((ids[t] for t in tokens), dtype=np.int64, count=length)
    for n in range(1, longest + 1):
        # tokens[i] == tokens[i + n] for (min_repeats - 1) * n positions in a row is
        # exactly a stretch of period n spanning min_repeats copies.
        need = (min_repeats - 1) * n
        same = seq[:-n] == seq[n:]
        if int(same.sum()) < need:
            continue
        edges = np.flatnonzero(np.diff(np.concatenate(([0], same.view(np.int8), [0]))))
        starts, stops = edges[0::2], edges[1::2]
        runs = stops - starts
        hit = np.flatnonzero(runs >= need)
        if hit.size:
            k = int(hit[0])
            return Loop(int(starts[k]), n, (int(runs[k]) + n) // n)
    return None


def repetition_loop(
    tokens: Sequence[str], *, max_n: int | None = None, min_repeats: int = LOOP_MIN_REPEATS
) -> bool:
    """True when `tokens` hold a repetition loop (`find_loop`'s rule).

    >>> repetition_loop("go go go go".split())
    True
    >>> repetition_loop("the cat sat on the mat".split())
    False
    """
    return find_loop(tokens, max_n=max_n, min_repeats=min_repeats) is not None


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
