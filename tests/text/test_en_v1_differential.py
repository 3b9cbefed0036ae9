"""en-v1 against its oracle: OpenAI Whisper's own `EnglishTextNormalizer`, loaded by path.

The contract of en-v1 is equality with OpenAI's code on every input, so these tests
compare the two on tens of thousands of generated texts (`en_v1_corpus`) and on random
strings drawn from the characters the rules react to. `whisper_english` must equal the
oracle character for character (edge spaces included) and the `normalized` view must
be that output without its edge spaces. Skipped, with the reason, only when
openai-whisper is not installed (CI installs it with `pip install --no-deps`).
"""

from __future__ import annotations

import hashlib
from importlib.resources import files
from pathlib import Path

import pytest
from en_v1_corpus import sentences, soup
from hypothesis import given, settings
from hypothesis import strategies as st
from test_text_en_v1 import WHISPER_REPOSITORY_CASES
from whisper_oracle import load_oracle

from earmark.text.en_v1 import english_view, whisper_english

ORACLE, WHERE = load_oracle()
pytestmark = pytest.mark.skipif(ORACLE is None, reason=WHERE)


def _differences(texts: list[str]) -> list[tuple[str, str, str, str]]:
    assert ORACLE is not None
    found = []
    for text in texts:
        expected = ORACLE(text)
        ours = whisper_english(text)
        view = english_view(text)
        if ours != expected or view != expected.strip(" "):
            found.append((text, expected, ours, view))
    return found


def _report(found: list[tuple[str, str, str, str]]) -> str:
    return "\n".join(
        f"{text!r}: openai {expected!r}, earmark {ours!r} (view {view!r})"
        for text, expected, ours, view in found[:10]
    )


def test_twelve_thousand_sentences_equal_openai() -> None:
    texts = sentences(12_000)
    assert len(set(texts)) >= 10_000
    found = _differences(texts)
    assert not found, f"{len(found)} differences from OpenAI's normaliser:\n{_report(found)}"


def test_fragment_soup_equals_openai() -> None:
    found = _differences(soup(8_000))
    assert not found, f"{len(found)} differences from OpenAI's normaliser:\n{_report(found)}"


def test_whisper_repository_cases_equal_openai() -> None:
    found = _differences([text for text, _ in WHISPER_REPOSITORY_CASES])
    assert not found, _report(found)


_REACTIVE = st.sampled_from(
    list("abdegilmnorstuvy '.,$¢€£%()[]<>-0123456789\t\n")
    + ["n't", "'s", "'d", "mr", "st", "gotta", "one", "oh", "and", "a half", "point"]
    + ["double", "hundred", "thousand", "first", "twenties", "per", "cent", "dollars"]
    + ["minus", "um", "colour", "é", "\u0301", "١", "²", "½", "ß", "İ", "\u2028"]
)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(st.lists(_REACTIVE, max_size=20).map("".join))
def test_random_strings_equal_openai(text: str) -> None:
    assert _differences([text]) == []


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.text(max_size=40))
def test_arbitrary_unicode_equals_openai(text: str) -> None:
    assert _differences([text]) == []


def test_bundled_spellings_are_openais_file() -> None:
    ours = files("earmark.text").joinpath("en_v1_spellings.json").read_bytes()
    theirs = (Path(WHERE) / "english.json").read_bytes()
    assert hashlib.sha256(ours).hexdigest() == hashlib.sha256(theirs).hexdigest()


def test_plain_texts_equal_openai() -> None:
    """Texts of ASCII letters and spaces take a short path (`_plain`): fillers, rewritten
    words, number words, "half", British spellings, capitals and runs of spaces among
    ordinary words, each sent down it or back to the full path, all equal OpenAI's."""
    import random

    from earmark.text.en_v1 import _WORD_REWRITES, _spellings

    rng = random.Random(25)
    british = sorted(_spellings())[:300]
    special = [
        *("hmm mm mhm mmm uh um um uhm mhmm".split()),
        *(w for w in _WORD_REWRITES if w.isalpha()),
        *("one two twenty hundred thousand first second point and double per percent".split()),
        *("half halfway behalf and a half dollars cents pounds minus plus oh zero".split()),
    ]
    ordinary = "the cat sat on mat dog ran to park it is was colour honour mister".split()
    texts = []
    for _ in range(6_000):
        words = [
            rng.choice(british if rng.random() < 0.2 else special)
            if rng.random() < 0.3
            else rng.choice(ordinary)
            for _ in range(rng.randint(1, 12))
        ]
        text = (" " * rng.randint(1, 2)).join(words)
        if rng.random() < 0.2:
            text = text.upper() if rng.random() < 0.5 else text.title()
        if rng.random() < 0.1:
            text = " " + text + "  "
        texts.append(text)
    found = _differences(texts)
    assert not found, f"{len(found)} differences from OpenAI's normaliser:\n{_report(found)}"
