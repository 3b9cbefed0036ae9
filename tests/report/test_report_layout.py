"""Layout of the shared pages in headless Chromium at a desktop (1280 px) and a phone
(390 px) width: the page never scrolls sideways (at 390 px tables scroll inside their
section, their first column pinned; at 1280 px every shown table fits, none scrolls), the headline figures show at 390 px without scrolling, chart labels
stay inside their chart, no word or number in a table cell is broken across lines, a runaway hypothesis folds into an
expander, and the leaderboard sorts and filters by clicking, with its one script allowed
by hash and injected names inert.

Screenshots are kept as test artefacts: `<pytest tmp dir>/test_*/shots/<page>-<width>.png`
(e.g. /tmp/pytest-of-$USER/pytest-current/test_example_report_layout_1280_0/shots/).
Needs Debian's `chromium` and the `playwright` Python package (never `playwright install`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from headless_chromium import NEEDS_CHROMIUM
from report_builders import ZH_REF, ArmData, make_run, zh_rows
from test_report_html_golden import CASES as GOLDEN_CASES
from test_report_html_golden import render_case

from earmark.file_comparison import compare
from earmark.render.html import write_html_report
from earmark.render.html_examples import ALIGNMENT_LIMIT, TEXT_LIMIT
from earmark.render.leaderboard import write_leaderboard

pytestmark = NEEDS_CHROMIUM
EXAMPLE = Path(__file__).parent / "data" / "example-run"
WIDTHS = (1280, 390)
XSS_NAME = '</script> <script>window.__xss=1</script> <img src=x onerror="window.__xss=2">'

#: Words in table cells that the browser laid out on two lines ("FLAGGE D", "14.0 4%").
#: A word ends at a space or just after a hyphen or slash (`tiny.en-` / `int8` is a line
#: break where Unicode allows one, not a broken word). CJK runs are left out: Chinese
#: has no spaces and wraps between any two characters. So is a word of over 20 characters
#: in a phone's pinned system column (`onerror="window.__xss=2">`): it cannot fit there
#: on one line, and breaking it beats running over the figure beside it.
BROKEN_WORDS = """() => {
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const cjk = /[\\u3000-\\u9fff\\uac00-\\ud7af\\uff00-\\uffef]/;
  let node;
  while ((node = walker.nextNode())) {
    if (!node.parentElement.closest('td, th')) continue;
    const re = /[^\\s\\-\\/]+[\\-\\/]*|[\\-\\/]+/g;
    let m;
    while ((m = re.exec(node.data))) {
      if (cjk.test(m[0])) continue;
      if (m[0].length > 20 && window.innerWidth <= 640 && node.parentElement.closest('td.sys'))
        continue;
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set(Array.from(range.getClientRects())
        .filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  return broken;
}"""


#: Boxes that left their place: a table scroller wider than the page, a first column that
#: scrolls away with the rest of its table, a chart label outside its chart.
ESCAPED_BOXES = """() => {
  const out = [];
  const width = window.innerWidth;
  document.querySelectorAll('.table-scroll').forEach((box, i) => {
    const r = box.getBoundingClientRect();
    if (r.left < 0 || r.right > width + 0.5) out.push(`scroller ${i} spans ${r.left}..${r.right}`);
    box.scrollLeft = box.scrollWidth;  // scrolled to the far right, the first column stays
    box.querySelectorAll(':scope > table > * > tr > :first-child').forEach(cell => {
      // A row label across the whole table: its text stays in view, not its cell.
      const c = (cell.colSpan > 1 ? cell.firstElementChild : cell).getBoundingClientRect();
      if (c.width && (c.left < r.left - 0.5 || c.right > r.right + 0.5))
        out.push(`first column of scroller ${i} scrolled away: ${cell.innerText.slice(0, 20)}`);
    });
    box.scrollLeft = 0;
  });
  document.querySelectorAll('svg.chart').forEach((svg, i) => {
    const r = svg.getBoundingClientRect();
    svg.querySelectorAll('text').forEach(t => {
      const b = t.getBoundingClientRect();
      if (b.width && (b.left < r.left - 0.5 || b.right > r.right + 0.5))
        out.push(`chart ${i} label cut off: ${t.textContent}`);
    });
  });
  return out;
}"""

#: Table scrollers whose table is wider than they are (it scrolls inside its section): at
#: 1280 px none may, so every table of a desktop page is read without scrolling.
SCROLLING_TABLES = """() => Array.from(document.querySelectorAll('.table-scroll'))
  .filter(box => box.getClientRects().length && box.scrollWidth > box.clientWidth + 0.5)
  .map(box => `${(box.closest('section') || {id: '?'}).id}: table of `
    + `${box.querySelector('th') ? box.querySelector('th').innerText : '?'}... is `
    + `${box.scrollWidth} px in ${box.clientWidth} px`)"""

#: Cells of the given selector whose box is not inside the viewport before any scrolling.
OFF_SCREEN = """(selector) => Array.from(document.querySelectorAll(selector))
  .filter(c => { const b = c.getBoundingClientRect();
                 return b.left < 0 || b.right > window.innerWidth; })
  .map(c => c.innerText)"""


def _open(browser, path: Path, width: int):
    page = browser.new_page(viewport={"width": width, "height": 900})
    problems: list[str] = []
    page.on(
        "console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type == "error" else None
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, problems


def _check_layout(page, shots: Path, name: str, width: int, *, wide_tables: bool = False) -> None:
    """The page's layout checks; `wide_tables`: its tables may scroll at 1280 px too (the
    leaderboard, one row per system with every figure beside it, scrolls inside its section
    with the system pinned), where a report's every table must fit."""
    overflow = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert overflow[0] <= overflow[1], f"page scrolls sideways: {overflow}"
    broken = page.evaluate(BROKEN_WORDS)
    assert broken == [], broken
    escaped = page.evaluate(ESCAPED_BOXES)
    assert escaped == [], escaped
    if width >= 1280 and not wide_tables:
        scrolling = page.evaluate(SCROLLING_TABLES)
        assert scrolling == [], scrolling
    shots.mkdir(exist_ok=True)
    page.screenshot(path=str(shots / f"{name}-{width}.png"), full_page=True)


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's example run (tiny.en on English, Mandarin, Irish), with a second arm
    that differs on a few rows and their compare.json, as `earmark report --compare`."""
    root = tmp_path_factory.mktemp("example")
    run = root / "example-run"
    shutil.copytree(EXAMPLE, run)
    rows = [
        json.loads(line) for line in (run / "predictions.jsonl").read_text("utf-8").splitlines()
    ]
    first = root / "tiny.en-int8.jsonl"
    second = root / "tiny.en-float32-beam5.jsonl"
    first.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    changed = [
        {**r, "arm": "tiny.en-float32-beam5"}
        | ({"hypothesis": (r["hypothesis"] or "") + " extra"} if i % 4 == 0 else {})
        for i, r in enumerate(rows)
    ]
    second.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in changed), "utf-8")
    result = compare([str(first), str(second)], normalizer="auto", resamples=200, seed=1)
    (run / "compare.json").write_text(result.to_json(), "utf-8")
    return run


@pytest.mark.parametrize("width", WIDTHS)
def test_example_report_layout(browser, example_run: Path, tmp_path: Path, width: int) -> None:
    report = write_html_report(example_run, out=tmp_path / "report.html")
    page, problems = _open(browser, report, width)
    assert problems == []
    assert page.locator("#comparison table").count() >= 2  # the table that ran off the edge
    # Every table sits in its own horizontal scroller, never wider than the page.
    assert page.evaluate(
        "Array.from(document.querySelectorAll('table')).every(t => t.closest('.table-scroll'))"
    )
    assert "FLAGGED" not in page.inner_text("body")
    # The headline figures (WER, CER: columns 3 and 4) show without scrolling sideways.
    figures = "#headline tbody td:nth-child(3), #headline tbody td:nth-child(4)"
    assert page.locator(figures).count() == 6
    assert "12.28% [4.27, 21.82]" in page.inner_text("#headline tbody tr:first-child")
    assert page.evaluate(OFF_SCREEN, figures) == []
    # The latency chart's labels ("p50 4.85 · p95 6.52 s") end inside the chart.
    assert page.locator("#latency svg.chart text", has_text="p95 6.52 s").count() == 1
    _check_layout(page, tmp_path / "shots", "example-report", width)
    page.close()


@pytest.mark.parametrize("case", sorted(GOLDEN_CASES))
@pytest.mark.parametrize("width", WIDTHS)
def test_every_golden_page_lays_out(browser, tmp_path: Path, case: str, width: int) -> None:
    """The pages pinned by the HTML goldens (a score folder, a two-arm run with a compare,
    a private corpus): at 1280 px every table fits, at 390 px each scrolls in its section."""
    page, problems = _open(browser, _golden_page(case, tmp_path), width)
    assert problems == []
    _check_layout(page, tmp_path / "shots", case, width)
    page.close()


def _golden_page(case: str, workdir: Path) -> Path:
    render_case(case, workdir)
    return workdir / f"{case}.html"


@pytest.mark.parametrize("width", WIDTHS)
def test_runaway_text_folds_into_an_expander(browser, tmp_path: Path, width: int) -> None:
    runaway = "and then " * 400  # 3,600 characters, 800 words
    rows = [("en-000", "en", "and then it stopped", runaway), *zh_rows([3, 1])]
    rows.append(("en-001", "en", "a very long reference with numbers 12345678", "a reference"))
    run = make_run(tmp_path / "run", {"whisper-large-v3-turbo-int8-float16-beam5": ArmData(rows)})
    report = write_html_report(run)
    page, problems = _open(browser, report, width)
    assert problems == []
    height = "document.querySelector('#worst').offsetHeight"
    closed = page.evaluate(height)
    # Open the "raw texts" expanders; the long-text ones inside stay closed.
    page.evaluate(
        "document.querySelectorAll('#worst details:not(.long)').forEach(d => d.open = true)"
    )
    text = page.inner_text("#worst")
    # The raw hypothesis shows its first TEXT_LIMIT characters, the alignment its first
    # ALIGNMENT_LIMIT columns (one per runaway word: 800 inserted, 4 reference words).
    assert f"… ({len(runaway)} characters: show all)" in text
    assert f"… {800 - ALIGNMENT_LIMIT} more aligned units (show all)" in text
    assert page.locator("#worst details.long").count() == 2
    page.evaluate("document.querySelectorAll('#worst details').forEach(d => d.open = true)")
    opened = page.inner_text("#worst")
    # Folded, the section is a fraction of its unfolded height (800 words of runaway).
    assert page.evaluate(height) > 3 * closed
    assert runaway[:TEXT_LIMIT].strip() in opened.replace("\n", " ")
    page.evaluate("document.querySelectorAll('#worst details').forEach(d => d.open = false)")
    _check_layout(page, tmp_path / "shots", "runaway-report", width)
    page.close()


@pytest.fixture(scope="module")
def leaderboard(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three runs: a verifiable one on FLEURS-like en+zh with two arms, an unverifiable one
    on another corpus (with a hostile arm name), and one whose second arm never loaded."""
    root = tmp_path_factory.mktemp("board")
    en = [
        (f"en-{i:03d}", "en", "the cat sat on the mat today", "the cat sat on a mat today")
        for i in range(6)
    ]
    en_bad = [
        (f"en-{i:03d}", "en", "the cat sat on the mat today", "a cat sat in a hat")
        for i in range(6)
    ]
    fleurs = make_run(
        root / "fleurs",
        {
            "whisper-small-int8": ArmData(en + zh_rows([1, 2, 0, 1])),
            "whisper-small-float32-beam5": ArmData(en_bad + zh_rows([0, 1, 0, 0])),
        },
        dataset="fleurs-mini",
    )
    other = make_run(
        root / "other",
        {XSS_NAME: ArmData(en_bad, revision=None), "parakeet-tdt-0.6b-v3": ArmData(en)},
        manifest_sha="b" * 64,
        dataset="common-voice-mini",
    )
    failed = ArmData(
        [(f"zh-{i:03d}", "zh", ZH_REF, "") for i in range(4)],
        extra_row_fields={"status": "arm_failed", "hypothesis": None},
    )
    dead = make_run(
        root / "dead",
        {"sensevoice-small": ArmData(zh_rows([0, 0, 1, 0])), "never-loaded": failed},
        manifest_sha="c" * 64,
        dataset="aishell-mini",
    )
    return write_leaderboard([fleurs, other, dead], root / "lb")["html"]


def _systems(page, table: str = "#ranked") -> list[str]:
    return page.evaluate(
        f"""Array.from(document.querySelectorAll('{table} tr[data-row]'))
        .filter(tr => !tr.hidden)
        .map(tr => JSON.parse(document.getElementById('board-data').textContent)
          .rows.find(r => r.id === tr.getAttribute('data-row')))
        .map(r => [r.system, r.language, r.value, r.verifiable])"""
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_leaderboard_layout_sorting_and_filter(
    browser, leaderboard: Path, tmp_path: Path, width: int
) -> None:
    page, problems = _open(browser, leaderboard, width)
    assert problems == []  # the script ran under the CSP (a blocked one logs an error)
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert page.evaluate("document.querySelectorAll('script').length") == 2
    assert page.evaluate("document.querySelectorAll('img').length") == 0
    assert XSS_NAME in page.inner_text("#ranked")  # shown as text
    # Each ranked figure (third column, after rank and system) shows without scrolling.
    figures = "#ranked tr[data-row] td:nth-child(3)"
    assert page.locator(figures).count() == 7
    assert page.evaluate(OFF_SCREEN, figures) == []
    # No system name runs over the figure beside it.
    assert (
        page.evaluate(
            "Array.from(document.querySelectorAll('td.sys')).filter(c => c.scrollWidth > "
            "c.clientWidth).map(c => c.innerText)"
        )
        == []
    )
    # Scrolled to its far right, the table still names each row's system.
    page.evaluate("document.querySelector('#ranked').parentElement.scrollLeft = 1e6")
    systems = "#ranked tr[data-row] td:nth-child(2)"
    assert page.evaluate(OFF_SCREEN, systems) == []
    page.evaluate("document.querySelector('#ranked').parentElement.scrollLeft = 0")
    _check_layout(page, tmp_path / "shots", "leaderboard", width, wide_tables=True)

    before = _systems(page)
    # Unverifiable rows sit apart, after the verifiable ones, under their own label.
    assert [r[3] for r in before] == sorted((r[3] for r in before), reverse=True)
    assert page.locator("#ranked tbody.unverifiable tr.group-label").count() == 1
    assert page.locator("#unranked tr[data-row]").count() == 1
    assert "never-loaded" in page.inner_text("#unranked")

    page.click("#ranked th button[data-key=system]")
    ascending = _systems(page)
    verifiable = [r[0] for r in ascending if r[3]]
    assert verifiable == sorted(verifiable)
    assert page.get_attribute("#ranked th:nth-child(2)", "aria-sort") == "ascending"
    page.click("#ranked th button[data-key=system]")
    descending = [r[0] for r in _systems(page) if r[3]]
    assert descending == sorted(verifiable, reverse=True)

    page.click("#ranked th button[data-key=value]")
    values = [r[2] for r in _systems(page) if r[3]]
    assert values == sorted(values)

    page.select_option("select[data-filter=language]", "zh")
    shown = _systems(page)
    assert shown and {r[1] for r in shown} == {"zh"}
    assert len(shown) == 3  # two fleurs arms and sensevoice on Mandarin
    total_zh = page.evaluate(
        "JSON.parse(document.getElementById('board-data').textContent)"
        ".rows.filter(r => r.language === 'zh').length"
    )
    assert page.inner_text("#shown") == str(total_zh)  # + the unranked Mandarin row
    page.select_option("select[data-filter=corpus]", "common-voice-mini")
    assert _systems(page) == []
    page.select_option("select[data-filter=language]", "")
    assert {r[0] for r in _systems(page)} == {XSS_NAME, "parakeet-tdt-0.6b-v3"}
    page.close()
