"""Every command a user runs gives byte-identical outputs before and after the spine
refactor (issue 22): the goldens were captured at c80343e, the commit before it, by
`capture.py` in this folder (run it with `--write` to renew them after an intended change)."""

from __future__ import annotations

import difflib
from pathlib import Path

from capture import capture, read_goldens


def test_every_command_writes_what_it_wrote_before_the_refactor(tmp_path: Path) -> None:
    expected = read_goldens()
    found = capture(tmp_path)
    assert sorted(found) == sorted(expected)
    changed = []
    for key, text in expected.items():
        if found[key] != text:
            diff = difflib.unified_diff(
                text.splitlines(), found[key].splitlines(), "before", "now", lineterm="", n=1
            )
            changed.append(f"{key}:\n" + "\n".join(list(diff)[:20]))
    assert changed == [], "\n\n".join(changed)
