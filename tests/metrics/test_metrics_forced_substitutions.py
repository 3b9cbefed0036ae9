"""The batch counter's shortcut: S read off the distance where the lengths force it.

`count_errors_array` skips the Python list of a pair's edit operations when
dist - |n_ref - n_hyp| <= 1 (`alignment._forced_substitutions`). The oracle here is the
count it replaces: the `replace` operations of rapidfuzz's own `editops`, pair by pair,
on small alphabets (many tied alignments) and on texts that differ only in spacing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from earmark.metrics.alignment import EditTally, _forced_substitutions, count_errors_array


def _oracle(reference: Sequence[Any], hypothesis: Sequence[Any]) -> list[int]:
    """S, D, I, hits counted from every operation of `editops` (no shortcut)."""
    ops = Levenshtein.editops(reference, hypothesis).as_list()
    s = sum(1 for tag, _, _ in ops if tag == "replace")
    d = sum(1 for tag, _, _ in ops if tag == "delete")
    i = sum(1 for tag, _, _ in ops if tag == "insert")
    return [s, d, i, len(reference) - s - d]


texts = st.text(alphabet="ab c", max_size=14)
spaced = st.lists(st.sampled_from(["a", "b", "ab"]), max_size=8)


@settings(max_examples=400, deadline=None)
@given(texts, texts)
def test_forced_substitutions_are_the_operations_count(ref: str, hyp: str) -> None:
    ops = Levenshtein.editops(ref, hyp).as_list()
    forced = _forced_substitutions(len(ops), len(ref), len(hyp))
    if forced is not None:
        assert forced == sum(1 for tag, _, _ in ops if tag == "replace")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(texts, texts), max_size=12))
def test_batch_counts_equal_every_operation_counted(pairs: list[tuple[str, str]]) -> None:
    chars = count_errors_array(pairs).tolist()
    words = count_errors_array(pairs, units="words").tolist()
    assert chars == [_oracle(r, h) for r, h in pairs]
    assert words == [_oracle(r.split(), h.split()) for r, h in pairs]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(spaced, spaced, st.sampled_from([" ", "  ", "\t"])), max_size=10))
def test_tallied_words_equal_every_operation_counted(
    rows: list[tuple[list[str], list[str], str]],
) -> None:
    # Texts equal, equal but for spacing, and different, through the tallying loop.
    pairs = [(" ".join(r), sep.join(h)) for r, h, sep in rows]
    pairs += [(" ".join(r), sep.join(r)) for r, _, sep in rows]
    tally = EditTally()
    distinct: list[int] = []
    counted = count_errors_array(
        pairs, units="words", tallies=[tally] * len(pairs), distinct=distinct
    ).tolist()
    assert counted == [_oracle(r.split(), h.split()) for r, h in pairs]
    assert distinct == [len(set(h.split())) for _, h in pairs]
    expected = EditTally()
    for r, h in pairs:
        ref, hyp = r.split(), h.split()
        for tag, i, j in Levenshtein.editops(ref, hyp).as_list():
            if tag == "replace":
                expected.substitutions[(ref[i], hyp[j])] += 1
            elif tag == "insert":
                expected.insertions[hyp[j]] += 1
            else:
                expected.deletions[ref[i]] += 1
    assert list(tally.substitutions.items()) == list(expected.substitutions.items())
    assert list(tally.insertions.items()) == list(expected.insertions.items())
    assert list(tally.deletions.items()) == list(expected.deletions.items())
