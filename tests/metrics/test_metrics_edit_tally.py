"""Edits tallied while counting equal those of the column-by-column alignment.

The error analysis ranks substitutions, insertions and deletions from the tally that
`count_errors_array` fills in its counting pass; `align` (what the analysis used before)
is the oracle, on hand-made and seeded random pairs, in word and character units.
"""

from __future__ import annotations

import random

import numpy as np

from earmark.metrics.alignment import EditTally, align, count_errors_array
from earmark.metrics.analysis import (
    ranked_deletions,
    ranked_insertions,
    ranked_substitutions,
    top_deletions,
    top_insertions,
    top_substitutions,
)


def _pairs(seed: int, n: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    vocab = "a b c the cat sat on mat um 北 京".split()
    out = []
    for _ in range(n):
        ref = [rng.choice(vocab) for _ in range(rng.randint(0, 9))]
        hyp = [w for w in ref if rng.random() > 0.2]
        for _ in range(rng.randint(0, 2)):
            hyp.insert(rng.randint(0, len(hyp)), rng.choice(vocab))
        if hyp and rng.random() < 0.5:
            hyp[rng.randrange(len(hyp))] = rng.choice(vocab)
        out.append((" ".join(ref), " ".join(hyp)))
    return out


def test_hand_made_pair_is_tallied_as_aligned() -> None:
    tally = EditTally()
    counts = count_errors_array(
        [("the cat sat", "the bat sat down")], units="words", tallies=[tally]
    )
    assert counts.tolist() == [[1, 0, 1, 2]]
    assert tally.substitutions == {("cat", "bat"): 1}
    assert tally.insertions == {"down": 1} and not tally.deletions


def test_tally_equals_alignment_oracle_in_words_and_chars() -> None:
    pairs = _pairs(3, 400)
    for units, tokens in (("words", str.split), ("given", list)):
        tally = EditTally()
        counted = count_errors_array(pairs, units=units, tallies=[tally] * len(pairs))
        plain = count_errors_array(pairs, units=units)
        assert np.array_equal(counted, plain)  # tallying never changes the counts
        alignments = [align(tokens(r), tokens(h)) for r, h in pairs]
        oracle = EditTally()
        for alignment in alignments:
            oracle.add_alignment(alignment)
        assert tally == oracle
        assert ranked_substitutions(tally, 7) == top_substitutions(alignments, 7)
        assert ranked_insertions(tally, 7) == top_insertions(alignments, 7)
        assert ranked_deletions(tally, 7) == top_deletions(alignments, 7)


def test_tallies_are_kept_apart_and_none_is_skipped() -> None:
    first, second = EditTally(), EditTally()
    pairs = [("a b", "a c"), ("x", ""), ("p", "q")]
    count_errors_array(pairs, units="words", tallies=[first, second, None])
    assert first.substitutions == {("b", "c"): 1} and not first.deletions
    assert second.deletions == {"x": 1} and not second.substitutions
