"""`multispeaker.md` shows hostile recording ids as text (issue 24, item 4).

Recording ids come from files anyone can write; before, they went into the tables and
lists unescaped, and markdown-it (raw HTML allowed, as many viewers do) ran a script.
Every cell now goes through `earmark.markdown_cells`. The same page in a real Chromium:
tests/report/test_multispeaker_md_browser.py.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from earmark.formats.segments import Segment
from earmark.scoring.multispeaker import score_segments
from earmark.scoring.multispeaker_markdown import render_markdown

pytest.importorskip("meeteval", reason="needs earmark[multi-speaker] (meeteval)")
markdown_it = pytest.importorskip("markdown_it", reason="needs markdown-it-py (test extra)")

IMG = '<img src=x onerror="window.__xss=1">'
SCRIPT = "<script>window.__xss=2</script>"
PAYLOADS = [
    IMG,
    SCRIPT,
    "a|b||c\\|d",
    "`x` ``y``` <b>z</b>",
    "one\n# two <i>three</i>\r\n- four",
    "[click](javascript:alert(1)) ![t](http://t.invalid/x.png)",
    "&lt;script&gt; &amp; &#60;",
    "*bold* _it_ ~~gone~~",
]
ALLOWED_TAGS = set("p h1 h2 ul li table thead tbody tr th td code".split())


def hostile_result():
    """A scored recording per payload, one more without a hypothesis, one hypothesis
    recording without a reference (all ids hostile)."""
    ref = [Segment(f"r{k} {p}", "A", 0.0, 1.0, "a b c") for k, p in enumerate(PAYLOADS)]
    ref.append(Segment(f"missing {SCRIPT}", "A", 0.0, 1.0, "a b"))
    hyp = [Segment(f"r{k} {p}", "X", 0.0, 1.0, "a c") for k, p in enumerate(PAYLOADS)]
    hyp.append(Segment(f"stray {IMG}", "X", 0.0, 1.0, "z"))
    result = score_segments(
        ref, hyp, ["cpwer", "orcwer"], resamples=0, allow_extra=True, normalizer="none"
    )
    return result


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[str] = []
        self.text: list[str] = []
        self.rows: list[int] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [name for name, _ in attrs]
        if tag == "tr":
            self.rows.append(0)
        elif tag in ("td", "th"):
            self.rows[-1] += 1

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def rendered(markdown: str) -> _Page:
    md = markdown_it.MarkdownIt("commonmark", {"html": True}).enable(["table"])
    page = _Page()
    page.feed(md.render(markdown))
    page.close()
    return page


def test_hostile_recording_ids_render_as_text() -> None:
    result = hostile_result()
    page = rendered(render_markdown(result))
    assert set(page.tags) <= ALLOWED_TAGS, set(page.tags) - ALLOWED_TAGS
    assert not [a for a in page.attrs if a.startswith("on") or a in ("src", "href")]
    assert page.tags.count("table") == 3  # totals, then one per metric
    # Totals: 8 columns; per recording: 7 (a `|` in an id splits no cell).
    assert set(page.rows) == {7, 8}
    body = " ".join("".join(page.text).split())
    for payload in [*PAYLOADS, f"missing {SCRIPT}", f"stray {IMG}"]:
        assert " ".join(payload.split()) in body, payload


def test_the_counts_beside_hostile_ids_are_the_plain_ids_counts() -> None:
    # Each payload recording: reference `a b c`, hypothesis `a c`: one deletion of 3.
    result = hostile_result()
    cp = result.metrics["cpwer"]
    scored = [r for r in cp.recordings if r.recording.startswith("r")]
    assert [(r.counts.errors, r.counts.length) for r in scored] == [(1, 3)] * len(PAYLOADS)
    markdown = render_markdown(result)
    assert len(re.findall(r"\| 33\.33 \| 1 \| 3 \| 0 \| 1 \| 0 \|", markdown)) == 2 * 8
