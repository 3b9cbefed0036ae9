"""`collector_paused`: the collector is off inside, back on after (also after an error),
and left off when the caller had turned it off; reading arms for compare uses it."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from earmark.collector import collector_paused
from earmark.errors import EarmarkError
from earmark.rundir.arm_inputs import load_arms


def test_paused_inside_and_resumed_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_left_off_when_the_caller_turned_it_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_reading_arms_resumes_the_collector_after_a_bad_file(tmp_path: Path) -> None:
    good = tmp_path / "a.jsonl"
    good.write_text('{"id": "u1", "reference": "a b", "hypothesis": "a"}\n', "utf-8")
    (arm,) = load_arms(str(good))
    assert (arm.name, arm.hypotheses) == ("a", ["a"])
    bad = tmp_path / "b.jsonl"
    bad.write_text('{"id": "u1", "reference": "a"\n', "utf-8")
    with pytest.raises(EarmarkError):
        load_arms(str(bad))
    assert gc.isenabled()
