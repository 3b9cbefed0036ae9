"""`CorpusScorer.add_lines` writes the bytes orjson writes for `add`'s records.

predictions.jsonl is built as bytes (`Part.record_lines`) instead of a dict per row encoded
by orjson; these tests pin the two to the same bytes, line for line, on the fixed corpus of
`fast_paths_corpus.py` (several normalisers and languages, the mixed unit, slices,
clusters, missing hypotheses) and on hostile rows (escapes, control characters, NUL,
non-BMP text, speakers, unavailable views).
"""

from __future__ import annotations

import orjson
import pytest
from fast_paths_corpus import corpus_rows

from earmark.formats.rows import MISSING_HYPOTHESIS, ScoringRow
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import CorpusScorer
from earmark.stats.settings import BootstrapSettings

OPTION = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE


def _both(rows: list[ScoringRow], normalizer: str) -> tuple[list[bytes], list[bytes]]:
    def scorer() -> CorpusScorer:
        policy = NormalizerPolicy.parse(normalizer)
        return CorpusScorer(ScoringOptions(policy=policy, bootstrap=BootstrapSettings(0, 1)))

    by_dicts, by_lines = scorer(), scorer()
    dicts: list[bytes] = []
    lines: list[bytes] = []
    for start in range(0, len(rows), 64):  # several chunks, so several parts per chunk
        chunk = rows[start : start + 64]
        dicts.extend(orjson.dumps(r, option=OPTION) for r in by_dicts.add(chunk))
        lines.extend(by_lines.add_lines(chunk))
    return dicts, lines


@pytest.mark.parametrize("normalizer", ["auto", "none", "en-v1"])
def test_fixed_corpus_lines_are_the_records_bytes(normalizer: str) -> None:
    rows = corpus_rows()
    dicts, lines = _both(rows, normalizer)
    assert len(lines) == len(rows)
    assert lines == dicts
    # and they are the records: one JSON object a line, newline-terminated
    assert orjson.loads(lines[0])["id"] == rows[0].id
    assert all(line.endswith(b"\n") and line.count(b"\n") == 1 for line in lines)


HOSTILE = [
    ScoringRow('q"uote\\back', 'say "hi"\\ now', 'say "ho"\\ now'),
    ScoringRow("ctrl", "a\tb\x01c\x1f", "a\tb\x02c"),
    ScoringRow("nul\x00id", "x\x00y", "x y"),
    ScoringRow("astral", "emoji 😀 𝄞 text", "emoji 😃 text", language="en"),
    ScoringRow("line-sep", "a\u2028b\u2029c", "a b c"),
    ScoringRow("missing", "nothing said", None, status=MISSING_HYPOTHESIS),
    ScoringRow("empty-ref", "", "inserted words"),
    ScoringRow("both-empty", "", ""),
    ScoringRow("slices", "one two", "one", slices=("short", "noisy</script>")),
    ScoringRow("spk", "hello there", "hello", extra={"speaker": "alice<b>"}),
    ScoringRow("not-a-speaker", "hello there", "hello", extra={"speaker": 7}),
    ScoringRow("clip#1", "same clip", "same clap", cluster="clip"),
    ScoringRow("clip#2", "same clip", "same clip", cluster="clip"),
    ScoringRow("zh", "我爱北京", "我爱南京", language="zh"),
    ScoringRow("ga", "Tá an t-athair", "Tá an tathair", language="ga"),
    ScoringRow("huge", "word " * 5_000, "word " * 4_999 + "bird"),
]


@pytest.mark.parametrize("normalizer", ["auto", "none", "en-v1"])
def test_hostile_rows_lines_are_the_records_bytes(normalizer: str) -> None:
    dicts, lines = _both(HOSTILE, normalizer)
    assert lines == dicts
    record = orjson.loads(lines[1])
    assert record["reference"] == "a\tb\x01c\x1f"
    assert orjson.loads(lines[5])["hypothesis"] is None


def test_unavailable_view_lines_are_the_records_bytes() -> None:
    """A row one view cannot render (`null_reason`) keeps its reason in the line."""
    rows = [ScoringRow("zh-ga", "我爱北京", "我爱", language="ga"), *HOSTILE[:3]]
    dicts, lines = _both(rows, "auto")
    assert lines == dicts


def test_a_view_with_a_null_reason_in_the_byte_path() -> None:
    """No built-in normaliser without a mixed unit nulls a view, so a part is built by
    hand: a view whose text is unavailable writes `{"null_reason": ...}` as orjson does."""
    import numpy as np

    from earmark.scoring.parts import Part
    from earmark.text import get_normalizer

    norm = get_normalizer("en-v1")
    rows = [ScoringRow("a", "Hello there", "hello"), ScoringRow("b\u2028", "x", "y")]
    part = Part(normalizer=norm, rows=rows, index=[0, 1])
    part.texts = {"raw": [("Hello there", "hello"), None], "normalized": [None, ("x", "y")]}
    part.reasons = {"raw": ["", 'why "not"\n'], "normalized": ["opencc_unavailable", ""]}
    for view in norm.views:
        for unit in norm.units:
            part.counts[(view, unit)] = np.array([[1, 1, 0, 1], [1, 0, 0, 0]], dtype=np.int64)
    expected = [orjson.dumps(r, option=OPTION) for r in part.records()]
    assert part.record_lines() == expected
    assert orjson.loads(expected[1])["views"]["raw"] == {"null_reason": 'why "not"\n'}


def test_a_marked_up_reference_keeps_its_markup_in_the_line() -> None:
    """A trn reference's sclite markup rides in the record (`reference_markup`, between
    `reference` and `slices`); its counts honour it (`scoring.word_counter`)."""
    marked = ScoringRow(
        "marked",
        "ok uh there",
        "okay there",
        extra={"speaker": "s1", "reference_markup": "{ ok / okay } (uh) there"},
    )
    dicts, lines = _both([marked, *HOSTILE[:4]], "none")
    assert lines == dicts
    assert orjson.loads(lines[0])["reference_markup"] == "{ ok / okay } (uh) there"
