"""`one_row_blocks` (the blocks of one-utterance speakers, built together) gives, block for
block, what the general path gives one position at a time: equal records with the same
JSON, key order and number types included (0.0 is not 0), under both aggregates, the
minimums, normalisers with several views and a mixed unit, rows some view leaves out,
statuses, loops, and a protocol drawing with Python's `random`."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.formats.rows import ScoringRow
from earmark.results.scope import ScopeResult
from earmark.scoring import blocks
from earmark.scoring.groups import Group
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.protocols import get_protocol
from earmark.scoring.row_facts import RowFacts
from earmark.scoring.scorer import CorpusScorer
from earmark.stats.settings import UNNAMED_GENERATOR, BootstrapSettings

_WORDS = ["the", "cat", "sat", "a", "Mr.", "25", "café", "我们", "今天", "万一", "le", "chat"]
_LOOP = " ".join(["again"] * 12)
_TEXT = st.lists(st.sampled_from(_WORDS), max_size=6).map(" ".join)
_ROW = st.tuples(
    _TEXT,
    st.one_of(st.none(), _TEXT, st.just(_LOOP)),
    st.sampled_from(["en", "zh", "fr", None]),
    st.sampled_from(["ok", "ok", "missing_hypothesis"]),
    st.booleans(),  # has a speaker
)
_OPTIONS = st.builds(
    lambda policy, aggregate, resamples, generator, min_rows, min_speakers: ScoringOptions(
        policy=NormalizerPolicy.parse(policy),
        aggregate=aggregate,
        bootstrap=BootstrapSettings(resamples=resamples, seed=3, generator=generator),
        min_per_slice=min_rows,
        min_speakers=min_speakers,
    ),
    st.sampled_from(["none", "en-v1", "zh-eval-v1", "auto"]),
    st.sampled_from(["micro", "macro"]),
    st.sampled_from([0, 50]),
    st.sampled_from(["numpy-pcg64", "numpy-pcg64-poisson"]),
    st.sampled_from([None, 1, 2]),
    st.sampled_from([None, 1, 2]),
)


def _scored(
    rows: list[tuple[str, str | None, str | None, str, bool]], options: ScoringOptions
) -> tuple[dict[str, Group], RowFacts]:
    scoring_rows = [
        ScoringRow(
            f"u{k}",
            ref,
            None if status != "ok" else hyp,
            language,
            status=status,
            extra={"speaker": f"s{k}"} if speaker else {},
        )
        for k, (ref, hyp, language, status, speaker) in enumerate(rows)
    ]
    scorer = CorpusScorer(options, keep=True)
    list(scorer.add(scoring_rows))
    return scorer.finish().groups, scorer.facts


def _general(group: Group, p: int, facts: RowFacts, options: ScoringOptions) -> ScopeResult:
    """The block of position `p` by the general path, never from the memo."""
    block = blocks._compute_block(group, np.array([p], dtype=np.int64), facts, options, "clip")
    return blocks._apply_minimums(block, options, speakers=False)


def _check(groups: dict[str, Group], facts: RowFacts, options: ScoringOptions) -> None:
    for group in groups.values():
        # Every position, in an order other than the rows'.
        positions = np.arange(group.n, dtype=np.int64)[::-1].copy()
        got = blocks.one_row_blocks(group, positions, facts, options)
        assert len(got) == group.n
        for block, p in zip(got, positions.tolist(), strict=True):
            expected = _general(group, p, facts, options)
            assert block == expected
            assert repr(block.to_dict()) == repr(expected.to_dict())


@settings(max_examples=150, deadline=None)
@given(st.lists(_ROW, min_size=1, max_size=12), _OPTIONS)
def test_one_row_blocks_are_the_general_paths(
    rows: list[tuple[str, str | None, str | None, str, bool]], options: ScoringOptions
) -> None:
    _check(*_scored(rows, options), options)


@settings(max_examples=40, deadline=None)
@given(st.lists(_ROW, min_size=2, max_size=10), _OPTIONS, st.data())
def test_rows_a_view_leaves_out_take_the_general_path(
    rows: list[tuple[str, str | None, str | None, str, bool]],
    options: ScoringOptions,
    data: st.DataObject,
) -> None:
    groups, facts = _scored(rows, options)
    for group in groups.values():
        view = data.draw(st.sampled_from(list(group.normalizer.views)))
        left_out = data.draw(st.sets(st.integers(0, group.n - 1), min_size=1))
        available = group.available[view].copy()
        available[sorted(left_out)] = False
        group.available[view] = available
        group.reasons[view] = {**group.reasons[view], **dict.fromkeys(left_out, "a_reason")}
        if group.mixed_view is not None:
            group.mixed_available = group.mixed_available.copy()
            group.mixed_available[min(left_out)] = False
            group.mixed_reasons = {**group.mixed_reasons, min(left_out): "mixed_reason"}
        group.blocks.clear()  # blocks of the rows as they were scored
    _check(groups, facts, options)


def test_a_python_random_protocol_takes_the_general_path() -> None:
    options = ScoringOptions(
        policy=NormalizerPolicy.parse("blasbench-ga-v1"),
        bootstrap=BootstrapSettings(resamples=1000, seed=42, generator=UNNAMED_GENERATOR),
        protocol=get_protocol("blasbench-v1"),
    )
    rows = [("a b c", "a x c", "ga", "ok", True), ("a", "", "ga", "ok", True)]
    _check(*_scored(rows, options), options)
