"""The hot path's batch shortcuts give what the general path gives, row for row.

Each shortcut of `earmark score`'s 100k-row path is checked against its general path
(or an independent oracle) on seeded random rows and on hostile ones (empty and
whitespace-only texts, NUL, tabs, U+2028, NBSP, combining marks, non-BMP text, a
5,000-word row, loops):

- `none`'s pairs as given (`counting._as_given`) against the general normalising loop;
- the word count's shared tally and its distinct-word numbers (`alignment._tally_one`)
  against one alignment per pair (`align`) and `len(set(words))`;
- loop flags against `repetition_loop` on every hypothesis;
- predictions lines built by column (`Part._batch_lines`) against orjson's encoding of
  the records;
- a chunk's row codes (`RowFacts._add_plain`) against the per-row loop.
"""

from __future__ import annotations

import random

import numpy as np
import orjson
import pytest

from earmark.formats.rows import MISSING_HYPOTHESIS, ScoringRow
from earmark.metrics.alignment import EditTally, align, count_errors, count_errors_array
from earmark.metrics.hallucination import repetition_loop
from earmark.scoring import counting
from earmark.scoring.options import ScoringOptions
from earmark.scoring.parts import Part, json_contents
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.row_facts import RowFacts
from earmark.scoring.scorer import CorpusScorer
from earmark.stats.settings import BootstrapSettings
from earmark.text import get_normalizer

OPTION = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
WORDS = ["a", "b", "ab", "go", "the", "x\x00y", "é", "e\u0301", "中文", "😀", "<b>", '"q"', "\\"]
HOSTILE_TEXTS = [
    "",
    "   ",
    "\t\n",
    "\u00a0",
    "a\u2028b",
    "nul\x00here",
    "go go go go",
    "see you in the next video " * 4,
    "la " * 12,
    "word " * 5_000,
    " ".join(f"w{k % 47}" for k in range(4_900)),
]


def _text(rng: random.Random) -> str:
    if rng.random() < 0.15:
        return rng.choice(HOSTILE_TEXTS)
    sep = rng.choice([" ", " ", " ", "  ", "\t"])
    return sep.join(rng.choice(WORDS) for _ in range(rng.randint(0, 14)))


def _rows(seed: int, n: int = 300) -> list[ScoringRow]:
    rng = random.Random(seed)
    return [ScoringRow(f"u{k}", _text(rng), _text(rng)) for k in range(n)]


@pytest.mark.parametrize("seed", range(4))
def test_none_pairs_as_given_equal_the_general_loop(seed: int) -> None:
    rows = [*_rows(seed), ScoringRow("m", "x y", None, status=MISSING_HYPOTHESIS)]
    norm = get_normalizer("none")
    fast = Part(normalizer=norm, rows=rows, index=list(range(len(rows))))
    slow = Part(normalizer=norm, rows=rows, index=list(range(len(rows))))
    fast_pending = counting._as_given(fast)
    slow_pending = counting._normalise(slow)
    assert fast_pending == slow_pending
    assert fast.texts == slow.texts
    assert fast.reasons == slow.reasons
    # and the whole part scores the same either way (`_count` marks the available rows)
    fast_edits: dict[str, EditTally] = {}
    slow_edits: dict[str, EditTally] = {}
    counting._count(fast, *fast_pending, fast_edits, None)
    counting._count(slow, *slow_pending, slow_edits, None)
    assert fast.counts.keys() == slow.counts.keys()
    assert all(np.array_equal(fast.counts[k], slow.counts[k]) for k in fast.counts)
    assert np.array_equal(fast.repetition, slow.repetition)
    for view in norm.views:
        assert np.array_equal(fast.available[view], slow.available[view])
    assert fast_edits == slow_edits


@pytest.mark.parametrize("normalizer", ["none", "en-v1", "auto"])
@pytest.mark.parametrize("alignment", ["earmark", "sclite"])
def test_loop_flags_are_repetition_loop_on_every_hypothesis(
    normalizer: str, alignment: str
) -> None:
    rows = _rows(11, 400)
    policy = NormalizerPolicy.parse(normalizer)
    options = ScoringOptions(policy=policy, bootstrap=BootstrapSettings(0, 1), alignment=alignment)
    scorer = CorpusScorer(options, keep=True)
    scorer.add(rows)
    (group,) = scorer.finish().groups.values()
    (part,) = group.parts
    primary = part.normalizer.primary_view
    texts = part.texts[primary]
    expected = [pair is not None and repetition_loop(pair[1].split()) for pair in texts]
    assert part.repetition.tolist() == expected
    assert any(expected)  # the hostile loops are there


@pytest.mark.parametrize("seed", range(4))
def test_shared_tally_and_distinct_words_equal_one_alignment_per_pair(seed: int) -> None:
    rng = random.Random(seed)
    pairs = [(_text(rng), _text(rng)) for _ in range(300)]
    shared = EditTally()
    distinct: list[int] = []
    counts = count_errors_array(
        pairs, units="words", tallies=[shared] * len(pairs), distinct=distinct
    )
    oracle = EditTally()
    for k, (ref, hyp) in enumerate(pairs):
        r, h = ref.split(), hyp.split()
        c = count_errors(r, h)
        assert counts[k].tolist() == [c.substitutions, c.deletions, c.insertions, c.hits]
        oracle.add_alignment(align(r, h))
    assert shared == oracle
    assert distinct == [len(set(hyp.split())) for _, hyp in pairs]
    # two tallies (the per-pair path) split the same edits between them
    a, b = EditTally(), EditTally()
    tallies = [a if k % 2 else b for k in range(len(pairs))]
    again = count_errors_array(pairs, units="words", tallies=tallies)
    assert np.array_equal(again, counts)
    merged = EditTally(
        a.substitutions + b.substitutions, a.insertions + b.insertions, a.deletions + b.deletions
    )
    assert merged == oracle
    # `distinct` alone (no tallies) counts the same
    alone: list[int] = []
    assert np.array_equal(count_errors_array(pairs, units="words", distinct=alone), counts)
    assert alone == distinct


def _part(rows: list[ScoringRow], normalizer: str) -> Part:
    options = ScoringOptions(
        policy=NormalizerPolicy.parse(normalizer), bootstrap=BootstrapSettings(0, 1)
    )
    scorer = CorpusScorer(options, keep=True)
    scorer.add(rows)
    (group,) = scorer.finish().groups.values()
    (part,) = group.parts
    return part


@pytest.mark.parametrize("normalizer", ["none", "en-v1"])
@pytest.mark.parametrize("seed", range(3))
def test_lines_built_by_column_are_the_records_bytes(normalizer: str, seed: int) -> None:
    rows = _rows(seed)
    rows[3] = ScoringRow("slices", "a b", "a", slices=("short", "noisy</script>"))
    rows[5] = ScoringRow("lang%s", "a b", "a b c", language="en")
    rows[7] = ScoringRow("../../etc/passwd", "<script>", "&amp;", status="ok")
    part = _part(rows, normalizer)
    batch = part._batch_lines()
    assert batch is not None
    assert batch == [orjson.dumps(r, option=OPTION) for r in part.records()]


@pytest.mark.parametrize(
    "odd",
    [
        ScoringRow("missing", "a b", None, status=MISSING_HYPOTHESIS),
        ScoringRow("clip#1", "a b", "a", cluster="clip"),
        ScoringRow("spk", "a b", "a", extra={"speaker": "s1"}),
    ],
)
def test_rows_the_column_lines_do_not_cover_take_the_row_path(odd: ScoringRow) -> None:
    part = _part([*_rows(1, 20), odd], "none")
    assert part._batch_lines() is None
    assert part.record_lines() == [orjson.dumps(r, option=OPTION) for r in part.records()]


def test_json_contents_split_exactly() -> None:
    strings = ['","', '\\","\\', '"', "", ",", '\\"', "\x00", "\u2028", "😀", '["x"]'] * 3
    for k in range(len(strings) + 1):
        chosen = strings[:k]
        assert json_contents(chosen) == [orjson.dumps(s)[1:-1] for s in chosen]


def test_a_lone_surrogate_is_refused_by_both_line_paths() -> None:
    rows = [*_rows(2, 5), ScoringRow("bad", "a\ud800", "a")]
    part = _part(rows, "none")
    with pytest.raises(orjson.JSONEncodeError):
        part._batch_lines()
    with pytest.raises(orjson.JSONEncodeError):
        [orjson.dumps(r, option=OPTION) for r in part.records()]


def _sealed(
    chunks: list[list[ScoringRow]], plain: bool, monkeypatch: pytest.MonkeyPatch
) -> RowFacts:
    if not plain:
        monkeypatch.setattr(RowFacts, "_add_plain", lambda self, rows: False)
    facts = RowFacts()
    for chunk in chunks:
        facts.add(chunk)
    facts.seal()
    monkeypatch.undo()
    return facts


def test_chunk_codes_equal_the_per_row_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = _rows(5, 40)
    chunks = [
        plain[:10],
        [ScoringRow(f"g{k}", "a", "b", language="ga") for k in range(5)],
        [ScoringRow(f"m{k}", "a", None, status=MISSING_HYPOTHESIS) for k in range(4)],
        plain[10:20],
        [ScoringRow("s", "a", "a", slices=("x",)), ScoringRow("t", "a", "b", language="ga")],
        [ScoringRow("spk", "a", "b", extra={"speaker": "s1"}), *plain[20:25]],
        plain[25:],
    ]
    fast = _sealed(chunks, True, monkeypatch)
    slow = _sealed(chunks, False, monkeypatch)
    for name in ("language", "status", "speaker", "slice", "cluster"):
        assert np.array_equal(getattr(fast, f"{name}_code"), getattr(slow, f"{name}_code"))
    assert fast.language_names == slow.language_names
    assert fast.status_names == slow.status_names
    assert fast.not_ok == slow.not_ok
    assert fast.speaker_names == slow.speaker_names
    assert fast.slice_names == slow.slice_names


@pytest.mark.parametrize("seed", range(6))
def test_ranked_lists_are_the_full_sorts_first_k(seed: int) -> None:
    from collections import Counter

    from earmark.metrics.analysis import ranked_deletions, ranked_substitutions

    rng = random.Random(seed)
    units = ["a", "b", "é", "e\u0301", "\x00", "中", "😀", "", " "]
    tally = EditTally()
    for _ in range(rng.choice([0, 1, 5, 200, 2000])):
        tally.substitutions[(rng.choice(units), rng.choice(units))] += rng.choice([1, 1, 1, 2, 7])
        tally.deletions[rng.choice(units) * rng.randint(1, 3)] += rng.choice([1, 1, 3])
    for k in (0, 1, 3, 10, 10_000):
        subs = sorted(tally.substitutions.items(), key=lambda item: (-item[1], item[0]))[:k]
        assert ranked_substitutions(tally, k) == [(r, h, n) for (r, h), n in subs]
        dels = sorted(tally.deletions.items(), key=lambda item: (-item[1], item[0]))[:k]
        assert ranked_deletions(tally, k) == dels
    # units that are not strings are ranked by their text, as before
    odd = EditTally(deletions=Counter({1: 2, "1": 1, 2: 2}))
    assert ranked_deletions(odd, 2) == [("1", 3), ("2", 2)]
