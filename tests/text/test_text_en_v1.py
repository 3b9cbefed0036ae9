"""en-v1: the Whisper-paper English normaliser, pinned by hand-checked cases."""

from __future__ import annotations

import pytest

from earmark.text import ViewPair, get_normalizer, normalize_text
from earmark.text.en_v1 import engine_version

EN = get_normalizer("en-v1")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I won't go, it's late.", "i will not go it is late"),
        ("The colour of the centre", "the color of the center"),
        ("twenty-five dollars", "$25"),
        ("one hundred and one", "101"),
        ("Mr. Smith, uh, left.", "mister smith left"),
        ("  spaced \t out  ", "spaced out"),
    ],
)
def test_hand_checked(text: str, expected: str) -> None:
    assert normalize_text("en-v1", text)["normalized"] == expected


def test_both_sides_normalised() -> None:
    assert EN.normalize_pair("It's the colour.", "it is the color")["normalized"] == ViewPair(
        "it is the color", "it is the color"
    )


def test_engine_version_recorded() -> None:
    version = engine_version()
    assert version is not None and version[0].isdigit()
