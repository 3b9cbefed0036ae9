"""Per-speaker blocks, built by one grouping of the rows (linear in speakers), are the
blocks of each speaker's rows scored on their own.

The oracle is the scorer itself on a subset: speaker `s`'s block in a corpus where the
speakers' rows are interleaved must equal the overall block of a corpus holding only
`s`'s rows (same rows, same order, so the same clusters and the same draws), under both
bootstrap generators, with one-row speakers (whose intervals are [value, value] without
a draw) beside speakers of several rows.
"""

from __future__ import annotations

import numpy as np
import pytest

from earmark.formats.rows import ScoringRow
from earmark.scoring.blocks import _distinct
from earmark.scoring.columns import present_codes
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import GENERATORS, BootstrapSettings

_WORDS = "one two three four five six seven eight".split()


def _rows() -> list[ScoringRow]:
    rows = []
    for k in range(40):
        speaker = f"s{k % 7}" if k < 28 else f"solo{k}"  # 7 speakers of 4 rows, 12 of 1
        ref = " ".join(_WORDS[: 2 + k % 6])
        hyp = " ".join(w for i, w in enumerate(ref.split()) if (i + k) % 4) or ""
        rows.append(ScoringRow(f"u{k:02d}", ref, hyp, "en", (), extra={"speaker": speaker}))
    return rows


@pytest.mark.parametrize("generator", GENERATORS)
def test_each_speaker_block_is_its_rows_scored_alone(generator: str) -> None:
    options = ScoringOptions(
        policy=NormalizerPolicy.parse("none"),
        bootstrap=BootstrapSettings(resamples=300, seed=11, generator=generator),
    )
    rows = _rows()
    by_speaker = score_rows(rows, options).arm.by_language["en"].by_speaker or {}
    assert len(by_speaker) == 19
    for speaker, typed in by_speaker.items():
        block = typed.to_dict()
        alone = score_rows([r for r in rows if r.extra["speaker"] == speaker], options)
        whole = alone.arm.by_language["en"].to_dict()
        for key in ("n_utterances", "n_clusters", "views", "statuses", "hallucination"):
            assert block[key] == whole[key], (speaker, key)
    solo = by_speaker["solo30"].views["raw"].metrics["wer"]
    assert solo.value is not None and solo.ci == (solo.value, solo.value)


@pytest.mark.parametrize("n", [0, 1, 5, 63, 64, 65, 1000])
@pytest.mark.parametrize("largest", [1, 10, 1000, 100_000])
def test_distinct_codes_are_present_codes(n: int, largest: int) -> None:
    """A block's distinct codes by a set, a sort or a count: the same ascending list."""
    codes = np.random.default_rng(n * largest).integers(0, largest, n)
    assert _distinct(codes) == present_codes(codes)
