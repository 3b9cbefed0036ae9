"""`Record.to_dict` writes keys in `key_order`'s order, then the rest as they came.

The writer places keys without sorting; the rule it keeps is the stable sort by each key's
rank in `key_order` (a key named twice ranks by its last place, one not named goes last),
written out here as the oracle, on every permutation and duplication hypothesis finds.
"""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.results.codec import field_spec
from earmark.results.metric import MetricResult

_BASE = MetricResult(
    value=0.25,
    ci=(0.125, 0.5),
    substitutions=1,
    deletions=0,
    insertions=1,
    hits=7,
    ref_units=8,
    hyp_units=9,
    aggregate="micro",
    n_scored=3,
    median_per_utterance=0.2,
    median_per_utterance_n=3,
    extra={"zz_new": 1, "aa_new": [2]},
)
_KEYS = [*_BASE.to_dict(), "absent_key", "null_reason"]


def _ranked(out: dict[str, object], order: tuple[str, ...]) -> list[str]:
    rank = {k: i for i, k in enumerate(order)}
    return sorted(out, key=lambda k: rank.get(k, len(rank)))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_KEYS), max_size=24))
def test_keys_follow_the_stable_rank_sort(order: list[str]) -> None:
    record = dataclasses.replace(_BASE, key_order=tuple(order))
    written = record.to_dict()
    # As they came: the fields in declared order, then the extras.
    declared = [spec[0] for f in dataclasses.fields(MetricResult) if (spec := field_spec(f))]
    came = [k for k in declared if k in written] + list(_BASE.extra)
    assert sorted(came) == sorted(written)
    assert list(written) == _ranked(dict.fromkeys(came), tuple(order))


_OPTIONAL = ("median_per_utterance", "median_per_utterance_n", "null_reason", "mer", "ci")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_KEYS), max_size=24, unique=True),
    st.sets(st.sampled_from(_OPTIONAL)),
)
def test_records_without_extras_write_what_the_reordering_writes(
    order: list[str], nulls: set[str]
) -> None:
    """A record without extras is written straight in its order (one encoder per order);
    the keys, their places and their values are those of the reordered declared order."""
    record = dataclasses.replace(_BASE, extra={}, key_order=tuple(order), **dict.fromkeys(nulls))
    with_extra = dataclasses.replace(record, extra={"zz_new": 1})
    expected = with_extra.to_dict()  # the reordering path, which extras take
    del expected["zz_new"]
    written = record.to_dict()
    assert list(written.items()) == list(expected.items())
