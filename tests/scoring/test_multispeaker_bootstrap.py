"""multispeaker carries one `BootstrapSettings`; multispeaker.json and .md spell it as before.

The JSON's `bootstrap` block keeps its keys in order (`unit` after the settings, which name
their generator since issue 25)
and the Markdown names resamples, seed and level as it did when they were three fields.
"""

from __future__ import annotations

import pytest

from earmark.formats.segments import Segment
from earmark.scoring.multispeaker import score_segments
from earmark.scoring.multispeaker_markdown import render_markdown
from earmark.stats.settings import DEFAULT_SEED, BootstrapSettings

pytest.importorskip("meeteval.wer.wer", reason="multi-speaker scoring needs the meeteval extra")

REF = [
    Segment("r1", "A", 0.0, 1.0, "hello world"),
    Segment("r1", "B", 1.0, 2.0, "good morning"),
    Segment("r2", "A", 0.0, 1.0, "see you soon"),
]
HYP = [
    Segment("r1", "x", 0.0, 1.0, "hello word"),
    Segment("r1", "y", 1.0, 2.0, "good morning"),
    Segment("r2", "x", 0.0, 1.0, "see you"),
]


def test_settings_travel_as_one_value_and_print_as_three_keys() -> None:
    result = score_segments(REF, HYP, ["cpwer"], resamples=300, seed=7, level=0.9)
    assert result.bootstrap == BootstrapSettings(resamples=300, seed=7, level=0.9)
    block = result.to_json()["bootstrap"]
    assert list(block.items()) == [
        ("resamples", 300),
        ("seed", 7),
        ("level", 0.9),
        ("generator", "numpy-pcg64-poisson"),
        ("unit", "recording"),
    ]
    md = render_markdown(result)
    assert ", bootstrap 300 resamples of recordings (seed 7)." in md
    assert "| Metric | Rate % | 90% CI |" in md


def test_no_seed_is_the_default_seed_and_no_resamples_no_bootstrap() -> None:
    result = score_segments(REF, HYP, ["cpwer"], resamples=0)
    assert result.bootstrap == BootstrapSettings(resamples=0, seed=DEFAULT_SEED, level=0.95)
    assert result.metrics["cpwer"].ci is None
    assert ", no bootstrap." in render_markdown(result)
