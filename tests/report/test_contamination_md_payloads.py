"""contamination.md shows hostile paths, ids and canaries as text (issue 24, item 4: every
Markdown cell and code span earmark writes goes through `earmark.markdown_cells`).

Before, the manifest and declared-text paths sat in hand-built backticks: a path holding
a backtick closed the code span and what followed became live HTML."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from earmark.render.contamination import render_markdown

markdown_it = pytest.importorskip("markdown_it", reason="needs markdown-it-py (test extra)")

IMG = '`<img src=x onerror="window.__xss=1">`'
SCRIPT = "<script>window.__xss=2</script>"


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [name for name, _ in attrs]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _report() -> dict[str, object]:
    counts = {
        "utterances": 1,
        "too_short": 0,
        "ngrams": 4,
        "matched": 4,
        "share": 1.0,
        "flagged": 1,
        "flagged_share": 1.0,
    }
    return {
        "method": {
            "schemes": [{"normalizer": "none", "view": "raw", "unit": "word"}],
            "n": 4,
            "share": "share of n-grams found",
            "flag": "flagged at 50%",
        },
        "summary": counts,
        "by_language": {f"en{SCRIPT}": counts},
        "corpus": {"manifest": f"/data/m{IMG}.jsonl", "manifest_sha256": "0" * 64},
        "declared": {"path": f"/web/{IMG}|x.txt", "pieces_read": 3},
        "utterances": [
            {
                "id": f"u1|{SCRIPT}",
                "language": "en",
                "ngrams": 4,
                "matched": 4,
                "share": 1.0,
                "flagged": True,
            }
        ],
        "canaries": {
            "count": 1,
            "rule": "exact",
            "hits": [{"canary": IMG, "declared_count": 1, "outputs": []}],
        },
    }


def test_hostile_paths_ids_and_canaries_render_as_text() -> None:
    md = markdown_it.MarkdownIt("commonmark", {"html": True}).enable(["table"])
    page = _Tags()
    page.feed(md.render(render_markdown(_report())))  # type: ignore[arg-type]
    allowed = set("p h1 h2 table thead tbody tr th td code".split())
    assert set(page.tags) <= allowed, set(page.tags) - allowed
    assert not [a for a in page.attrs if a.startswith("on") or a in ("src", "href")]
    body = "".join(page.text)
    for text in [f"/data/m{IMG}.jsonl", f"/web/{IMG}|x.txt", f"u1|{SCRIPT}", f"en{SCRIPT}", IMG]:
        assert text in body, text
