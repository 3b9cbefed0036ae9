"""Three-letter ISO 639 codes name the same languages as the two-letter ones (issue 23):
`eng` rows get en-v1, `gle` ga-v1, `zho` and `cmn` zh-eval-v1 with a CER headline, where
before they fell to crude-v1 and Mandarin got a WER headline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.language_tags import base_language, engine_language

THREE_LETTER = {
    "eng": "en",
    "ENG-us": "en",
    "gle": "ga",
    "gle_IE": "ga",
    "zho": "zh",
    "cmn": "zh",
    "cmn-Hans-CN": "zh",
    "jpn": "ja",
    "tha": "th",
    "deu": "de",
    "ger": "de",  # ISO 639-2/B
    "fra": "fr",
    "fre": "fr",
    # no two-letter code: kept as written
    "yue": "yue",
    "nan": "nan",
    "fil": "fil",
    # no single language, private use, unknown: kept
    "und": "und",
    "mul": "mul",
    "zxx": "zxx",
    "qaa": "qaa",
    "abc": "abc",
}


@pytest.mark.parametrize(("tag", "expected"), sorted(THREE_LETTER.items()))
def test_three_letter_codes_map_to_their_two_letter_code(tag: str, expected: str) -> None:
    assert base_language(tag) == expected
    assert base_language(base_language(tag)) == expected  # idempotent


@pytest.mark.parametrize("tag", ["iw", "tl", "in", "sh", "mo", "zh-yue", "en-GB"])
def test_two_letter_subtags_are_kept_as_written(tag: str) -> None:
    # Deprecated or extlang tags keep their old meaning: no released figure changes.
    assert base_language(tag) == tag.split("-")[0]


def test_the_engine_gets_the_two_letter_hint() -> None:
    assert engine_language("eng") == "en"
    assert engine_language("cmn-Hans") == "zh"
    assert engine_language("und") is None


ROWS = [
    ("a", "eng", "Hello, World!", "hello world"),
    ("b", "gle", "Tá an t-athair anseo.", "tá an t-athair anseo"),
    ("c", "zho", "今天天气很好。", "今天天气很好"),
    ("d", "cmn", "我们开会。", "我们开会"),
    ("e", "en", "Hello, World!", "hello world"),
]


def test_score_gives_each_three_letter_language_its_own_normaliser(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        "".join(
            json.dumps({"id": i, "language": lang, "reference": r, "hypothesis": h}) + "\n"
            for i, lang, r, h in ROWS
        ),
        "utf-8",
    )
    out = tmp_path / "out"
    argv = [str(rows), "--normalizer", "auto", "--bootstrap", "0", "--out", str(out), "--quiet"]
    assert main(["score", *argv]) == 0
    arm = next(iter(json.loads((out / "results.json").read_text("utf-8"))["arms"].values()))
    blocks = arm["by_language"]
    names = {lang: block["normalizer"]["name"] for lang, block in blocks.items()}
    assert names == {
        "eng": "en-v1",
        "gle": "ga-v1",
        "zho": "zh-eval-v1",
        "cmn": "zh-eval-v1",
        "en": "en-v1",
    }
    assert blocks["zho"]["normalizer"]["headline_unit"] == "char"
    assert blocks["cmn"]["normalizer"]["headline_unit"] == "char"
    # `eng` and `en` are the same language scored the same way: identical figures.
    eng = blocks["eng"]["views"]["normalized"]
    en = blocks["en"]["views"]["normalized"]
    assert eng == en


@pytest.mark.parametrize(
    "tag", ["\ud800", "e\x00g", "x" * 100_000, "ﬀﬀﬀ", "ＥＮＧ", "١٢٣", "---", "_", "e n g"]
)
def test_hostile_tags_never_raise(tag: str) -> None:
    assert isinstance(base_language(tag), str)
