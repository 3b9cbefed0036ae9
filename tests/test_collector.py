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


def test_what_the_block_kept_goes_to_the_oldest_generation_and_stays_collectable() -> None:
    """Ending a pause does not leave the young generation holding all the block built (its
    first collection would walk them all), and a cycle dropped later is still collected."""
    import weakref

    class Node:
        pass

    with collector_paused():
        kept = [[i] for i in range(5_000)]
        a, b = Node(), Node()
        a.other, b.other = b, a  # type: ignore[attr-defined]
    assert any(x is kept for x in gc.get_objects(generation=2))
    assert gc.get_freeze_count() == 0
    gone = weakref.ref(a)
    del a, b
    gc.collect()
    assert gone() is None
    assert len(kept) == 5_000


def test_only_the_process_entry_freezes_at_exit(tmp_path: Path) -> None:
    """`earmark ...` (argv None: the process's own command line) freezes the collector as it
    returns, so the interpreter's exit need not tear its modules down; `main([...])`
    called in a process that goes on (a test, a script) leaves the collector as it was."""
    import subprocess
    import sys

    from earmark.cli import main

    data = tmp_path / "one.jsonl"
    data.write_text('{"id": "u1", "reference": "a b c", "hypothesis": "a x c"}\n', "utf-8")
    words = ["score", str(data), "--normalizer", "none", "--bootstrap", "0", "--quiet"]
    assert main([*words, "--out", str(tmp_path / "a")]) == 0
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    probe = (
        "import gc, sys\nfrom earmark.cli import main\n"
        f"sys.argv = ['earmark', *{[*words, '--out', str(tmp_path / 'b')]!r}]\n"
        "code = main()\nprint(code, gc.get_freeze_count() > 0)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "True"]
    assert (tmp_path / "b" / "results.json").read_bytes().count(b"\n") > 10


def test_what_a_caller_froze_stays_frozen() -> None:
    """A forked compare worker's inherited heap is frozen: a pause inside it must not
    release it (the collector would walk, and copy, every inherited page)."""
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with collector_paused():
            _ = [[i] for i in range(100)]
        # A frozen object still dies by reference count, so the count may fall by a few
        # (a fresh-clone run saw 812,994 -> 812,992); a released freeze leaves none.
        assert gc.get_freeze_count() > frozen // 2
    finally:
        gc.unfreeze()
