"""`multispeaker.md` with hostile recording ids, rendered by markdown-it (raw HTML allowed)
and opened in a real headless Chromium: no injected script runs, no element appears
(issue 24, item 4: the alert used to fire). Needs Debian's `chromium` and `playwright`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from headless_chromium import NEEDS_CHROMIUM

pytestmark = NEEDS_CHROMIUM
markdown_it = pytest.importorskip("markdown_it", reason="needs markdown-it-py (test extra)")
pytest.importorskip("meeteval", reason="needs earmark[multi-speaker] (meeteval)")


def test_hostile_recording_ids_run_no_script(browser, tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scoring"))
    from test_multispeaker_markdown import PAYLOADS, hostile_result

    from earmark.scoring.multispeaker_markdown import render_markdown

    md = markdown_it.MarkdownIt("commonmark", {"html": True}).enable(["table"])
    page_file = tmp_path / "multispeaker.html"
    body = md.render(render_markdown(hostile_result()))
    page_file.write_text(f"<!doctype html><meta charset=utf-8><body>{body}</body>", "utf-8")
    page = browser.new_page()
    errors: list[str] = []
    requests: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(page_file.as_uri())
    page.wait_for_load_state("load")
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert page.evaluate("document.querySelectorAll('script, img, a, b, i').length") == 0
    assert requests == [page_file.as_uri()] and errors == []
    text = " ".join(page.inner_text("body").split())
    for payload in PAYLOADS:
        assert " ".join(payload.split()) in text, payload
    page.close()
