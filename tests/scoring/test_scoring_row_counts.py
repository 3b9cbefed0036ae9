"""`scoring.row_counts` counts every row as `score_rows` does, each distinct pair once.

The oracle is `score_rows`' own per-row records (`predictions.jsonl`'s `views`): for
every row, view kind (primary, raw) and unit (word, char, mixed), the table's S, D, I,
hits equal the record's, and a view or mixed unit the record lacks is unavailable here
with the same reason.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from earmark.formats.rows import ScoringRow
from earmark.scoring import metric as metric_module
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.row_counts import (
    METRIC_FOR_UNIT,
    MIXED,
    PRIMARY,
    RAW,
    PairTable,
    count_rows,
)
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import BootstrapSettings

CORPUS = [
    ("e1", "en", "The cat sat on the mat.", "the cat sat on a mat"),
    ("e2", "en", "Hello world", "hello, world!"),
    ("e3", "en", "It's twenty past two", None),
    ("e4", "en", "", "uh"),
    ("e5", "en", "", ""),
    ("z1", "zh", "我爱北京天安门。", "我爱北京天安门"),
    ("z2", "zh", "我用 iPhone 15 拍照", "我用 iphone十五 拍照"),
    ("z3", "zh", "打开github和vs code", "打开 git hub 和 vscode"),
    ("z4", "zh", "今天天气很好", None),
    ("j1", "ja", "今日は良い天気です", "今日はいい天気です"),
    ("g1", "ga", "An tAthair agus an mháthair", "an t-athair agus an mhathair"),
    ("x1", None, "Ünïcode façade", "unicode facade"),
]

POLICIES = ["auto", "en-v1", "none", "zh=zh-eval-v1,*=crude-v1", "mmv-cer-v1"]


def _records(policy: str) -> list[dict[str, Any]]:
    rows = [ScoringRow(id=i, reference=r, hypothesis=h, language=lang) for i, lang, r, h in CORPUS]
    options = ScoringOptions(
        policy=NormalizerPolicy.parse(policy), bootstrap=BootstrapSettings(resamples=0)
    )
    return score_rows(rows, options).records


def _counted(policy: str) -> tuple[PairTable, Any]:
    table = PairTable(NormalizerPolicy.parse(policy))
    rows = count_rows(
        table,
        [r for _, _, r, _ in CORPUS],
        [h for _, _, _, h in CORPUS],
        [lang for _, lang, _, _ in CORPUS],
    )
    return table, rows


def _as_counts(record: dict[str, int]) -> list[int]:
    return [record[k] for k in ("substitutions", "deletions", "insertions", "hits")]


@pytest.mark.parametrize("policy", POLICIES)
def test_every_row_view_and_unit_equals_score_rows(policy: str) -> None:
    table, rows = _counted(policy)
    checked = 0
    for pos, record in enumerate(_records(policy)):
        name = record["normalizer"]
        assert rows.normalizers[pos] == name
        for kind in (PRIMARY, RAW):
            view = record["views"][table.view(name, kind)]
            if "null_reason" in view:
                assert not rows.available(kind)[pos]
                assert rows.reason(pos, kind) == view["null_reason"]
                continue
            assert rows.available(kind)[pos]
            for unit in table.units(name):
                got = rows.counts(unit, kind)[pos].tolist()
                assert got == _as_counts(view[METRIC_FOR_UNIT[unit]]), (pos, kind, unit)
                checked += 1
            if table.has_mixed(name, kind):
                if "mixed_er" in view:
                    assert rows.available(kind, MIXED)[pos]
                    got = rows.counts(MIXED, kind)[pos].tolist()
                    assert got == _as_counts(view["mixed_er"]), (pos, kind)
                    checked += 1
                else:
                    assert not rows.available(kind, MIXED)[pos]
            else:
                assert "mixed_er" not in view
    assert checked >= len(CORPUS)


def test_metric_names_are_the_scorers() -> None:
    assert METRIC_FOR_UNIT[MIXED] == metric_module.MIXED_METRIC
    assert {u: METRIC_FOR_UNIT[u] for u in ("word", "char")} == metric_module.METRIC_FOR_UNIT


def test_a_repeated_pair_is_one_entry_and_counts_do_not_depend_on_order() -> None:
    """Counting rows in any order, or twice, gives each row the same counts; a pair seen
    before reuses its entry (normalised and aligned once)."""
    refs = [r for _, _, r, _ in CORPUS]
    hyps = [h for _, _, _, h in CORPUS]
    langs = [lang for _, lang, _, _ in CORPUS]
    table, first = _counted("auto")
    size = len(table.normalizer_of)
    again = count_rows(table, refs, hyps, langs)
    assert again.entries.tolist() == first.entries.tolist()
    assert len(table.normalizer_of) == size
    order = list(range(len(CORPUS)))
    random.Random(3).shuffle(order)
    fresh = PairTable(NormalizerPolicy.parse("auto"))
    shuffled = count_rows(
        fresh, [refs[i] for i in order], [hyps[i] for i in order], [langs[i] for i in order]
    )
    for unit in ("word", "char", MIXED):
        np.testing.assert_array_equal(shuffled.counts(unit), first.counts(unit)[order])


def test_kinds_not_asked_for_are_not_counted() -> None:
    table = PairTable(NormalizerPolicy.parse("en-v1"))
    rows = count_rows(table, ["Hello world"], ["hello"], ["en"], kinds=(PRIMARY,))
    assert rows.available(PRIMARY).tolist() == [True]
    assert rows.available(RAW).tolist() == [False]
    assert rows.counts("word").tolist() == [[0, 1, 0, 1]]
    # The same pair asked for with its raw view too is another entry, counted in full.
    both = count_rows(table, ["Hello world"], ["hello"], ["en"])
    assert both.entries.tolist() != rows.entries.tolist()
    assert both.counts("word", RAW).tolist() == [[1, 1, 0, 0]]
