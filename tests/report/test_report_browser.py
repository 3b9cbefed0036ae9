"""The HTML report in a real headless Chromium: loads offline, shows the figures, runs no
injected script, renders Chinese. Needs Debian's `chromium` (+ `fonts-wqy-microhei` for
CJK glyphs) and the `playwright` Python package (never `playwright install`)."""

from __future__ import annotations

import shutil
from pathlib import Path

from headless_chromium import NEEDS_CHROMIUM
from report_builders import ArmData, make_run

from earmark.render.html import write_html_report

pytestmark = NEEDS_CHROMIUM
EXAMPLE = Path(__file__).parent / "data" / "example-run"
XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'


def _open(browser, path: Path):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    console: list[str] = []
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, console, errors, requests


def test_example_report_loads_offline_and_shows_figures(browser, tmp_path):
    run = tmp_path / "example-run"
    shutil.copytree(EXAMPLE, run)
    report = write_html_report(run)
    page, console, errors, requests = _open(browser, report)
    assert requests == [report.as_uri()]
    assert [c for c in console if c.startswith("error")] == [] and errors == []
    headline = page.inner_text("#headline")
    assert "12.28% [4.27, 21.82]" in headline  # English WER, primary view
    assert "377.08% [291.43, 476.74]" in headline
    assert page.locator("svg.chart").count() >= 3
    assert page.locator("#worst [lang=zh]").count() > 0
    # Chinese glyphs get a real width (a missing font would still lay out tofu, so also
    # check the screenshot by eye; here: the CJK column is wider than a Latin one).
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=False)
    assert shot.stat().st_size > 10_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page.close()


def test_injected_markup_does_not_run(browser, tmp_path):
    rows = [("x-1", "en", "hello there world", XSS), ("x-2", "zh", "你好世界", "你好")]
    report = write_html_report(make_run(tmp_path / "run", {"arm": ArmData(rows)}))
    page, console, errors, requests = _open(browser, report)
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert page.evaluate("document.querySelectorAll('script, img').length") == 0
    assert requests == [report.as_uri()]
    assert [c for c in console if c.startswith("error")] == [] and errors == []
    # The raw hypothesis sits in a closed <details>: open them all, then it must read
    # literally, as text.
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    assert XSS in page.inner_text("#worst")
    assert page.evaluate("typeof window.__xss") == "undefined"
    page.close()
