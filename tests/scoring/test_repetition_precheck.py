"""The scorer's set pre-check before `repetition_loop` never changes a row's loop flag.

Oracle: `repetition_loop` itself, called on every row's primary-view tokens, over random
hypotheses built to sit on both sides of the pre-check (units repeated 0-5 times, loops of
period 1-4 repeated 3-5 times, words and characters).
"""

from __future__ import annotations

import random

import pytest

from earmark.formats.rows import ScoringRow
from earmark.metrics.hallucination import repetition_loop
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import BootstrapSettings


def _hypotheses(seed: int) -> list[str]:
    rng = random.Random(seed)
    vocab = ["a", "b", "c", "d", "e", "go", "see", "you"]
    out = ["", "go", "go go go", "go go go go", "a b a b a b a b", "a b a b a b", "a a b a a"]
    for _ in range(400):
        words = [rng.choice(vocab) for _ in range(rng.randint(0, 12))]
        if rng.random() < 0.4:
            period = [rng.choice(vocab) for _ in range(rng.randint(1, 4))]
            at = rng.randint(0, len(words))
            words[at:at] = period * rng.randint(3, 5)
        out.append(" ".join(words))
    return out


@pytest.mark.parametrize("normalizer", ["none", "crude-v1"])
def test_flags_equal_repetition_loop(normalizer: str) -> None:
    hyps = _hypotheses(7)
    rows = [ScoringRow(id=f"u{i}", reference="a b c", hypothesis=h) for i, h in enumerate(hyps)]
    scored = score_rows(
        rows,
        ScoringOptions(
            policy=NormalizerPolicy.parse(normalizer), bootstrap=BootstrapSettings(resamples=0)
        ),
    )
    [group] = scored.groups.values()
    expected = [repetition_loop(h.split()) for h in hyps]
    assert group.repetition.tolist() == expected
    # Both sides of the pre-check are exercised, loops included.
    assert 20 < sum(expected) < len(hyps) - 20
