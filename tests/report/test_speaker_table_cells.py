"""results.md's speaker table shows each speaker as written: its cells are escaped once.

They were escaped twice, so a speaker `a*b` showed as `a\\*b` once rendered; markdown-it (the
test extra) is the reader that proves what a person sees."""

from __future__ import annotations

import html as html_module
import re
from pathlib import Path

import pytest

from earmark.cli import main

markdown_it = pytest.importorskip("markdown_it", reason="needs markdown-it-py (test extra)")

#: Speakers with Markdown's own characters, and one plain (a trn id holds no parentheses).
SPEAKERS = ("a*b", "x_y_z", "p|q", "m`n", "[s]", "lt<b>", "plain")


def _cells(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td>(.*?)</td>", html, re.S)]


def test_speaker_cells_render_as_the_speakers(tmp_path: Path) -> None:
    ref, hyp = tmp_path / "ref.trn", tmp_path / "hyp.trn"
    ref.write_text("".join(f"the cat sat ({s}-001)\n" for s in SPEAKERS), "utf-8")
    hyp.write_text("".join(f"the cat sad ({s}-001)\n" for s in SPEAKERS), "utf-8")
    out = tmp_path / "out"
    args = ["score", str(hyp), "--refs", str(ref), "--format", "trn", "--normalizer", "none"]
    assert main([*args, "--bootstrap", "0", "--out", str(out), "--quiet"]) == 0
    text = (out / "results.md").read_text("utf-8")
    section = text.split("### Speakers", 1)[1].split("\n\n", 2)[1]
    html = markdown_it.MarkdownIt("commonmark", {"html": True}).enable(["table"]).render(section)
    shown = [c for c in _cells(html) if c.startswith("und / ")]
    assert sorted(html_module.unescape(c) for c in shown) == sorted(f"und / {s}" for s in SPEAKERS)
    assert "<b>" not in html  # a speaker's markup stays text
