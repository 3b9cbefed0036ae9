"""The HTML pages read well without a browser's help: flags as words (not JSON), long
texts folded, runaway bars cut with a marked break, the leaderboard's data block unable to
close its script and its one script allowed by hash. (The layout itself is measured in
Chromium by test_report_layout.py.)"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

from report_builders import ArmData, make_run, zh_rows

from earmark.render.html import render_html_report
from earmark.render.html_examples import TEXT_LIMIT
from earmark.render.leaderboard import write_leaderboard
from earmark.render.leaderboard_html import BOARD_SCRIPT
from earmark.render.plots import Bar, axis_cap, bar_chart
from earmark.render.run_directory import load_run

XSS = "</script><script>window.__xss=1</script><!--"


def test_flags_table_reads_as_words(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", {"a": ArmData(zh_rows([1, 2]))})
    results = json.loads((run / "results.json").read_text("utf-8"))
    results["diagnostics"] = {
        "a": {
            "insertion": {
                "flagged": True,
                "by_normalizer": {"en-v1": {"reasons": ["insertions 45% of hypothesis words"]}},
            },
            "truncation": {"flagged": False},
            "normalizer_ranking_flip": {
                "flagged": True,
                "flips": [
                    {
                        "with": "b",
                        "normalizer": "en-v1",
                        "raw": [0.1, 0.12],
                        "normalized": [0.08, 0.07],
                    }
                ],
            },
        }
    }
    (run / "results.json").write_text(json.dumps(results), "utf-8")
    page = render_html_report(load_run(run))
    flags = page.split("<h3>Flags</h3>", 1)[1].split("</table>", 1)[0]
    assert '<span class="badge bad">flagged</span>' in flags
    assert "insertions 45% of hypothesis words" in flags
    # The flip in words: the order on raw texts is the reverse of the normalised order.
    assert "a vs b (en-v1): raw 10.00% vs 12.00%, normalised 8.00% vs 7.00%" in flags
    assert "{" not in flags and "FLAGGED" not in flags


def test_long_hypothesis_folds_after_the_limit(tmp_path: Path) -> None:
    runaway = "la " * 500
    run = make_run(tmp_path / "run", {"a": ArmData([("x", "en", "la la", runaway)])})
    page = render_html_report(load_run(run))
    assert f"… ({len(runaway)} characters: show all)</summary>" in page
    # The summary shows the first TEXT_LIMIT characters; the rest sits in the expander.
    folded = re.search(
        r'<details class="long"><summary><span class="transcript" lang="en">'
        r"([^<]*)</span>",
        page,
    )
    assert folded is not None and folded.group(1) == runaway[:TEXT_LIMIT]


def test_a_runaway_bar_is_cut_and_marked() -> None:
    bars = [
        Bar("en", 0.12, 0.05, 0.22),
        Bar("ga", 1.32, 1.08, 1.71),
        Bar("zh", 23.43, 20.0, 27.0),
    ]
    assert axis_cap([b.high for b in bars]) == 2.0
    svg = bar_chart(bars, title="t")
    assert "axis cut at 200%" in svg
    assert svg.count('class="axis-break"') == 2  # one break marker (two slashes), zh only
    assert ">2343.0%</text>" in svg  # the true value, as text
    widths = [float(w) for w in re.findall(r'<rect x="200" y="\d+" width="([\d.]+)"', svg)]
    # en keeps a readable length: 12% of a 200% axis (450 px plot) = 27 px, not 2 px.
    assert widths[0] == 0.12 / 2.0 * 450
    assert widths[2] == 450.0  # zh ends at the cut


def test_leaderboard_data_block_and_script_hash(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", {XSS: ArmData(zh_rows([1, 0])), "b": ArmData(zh_rows([0, 1]))})
    html = write_leaderboard([run], tmp_path / "lb")["html"].read_text("utf-8")
    block = html.split('<script type="application/json" id="board-data">', 1)[1]
    block = block.split("</script>", 1)[0]
    assert "<" not in block and ">" not in block
    assert {r["system"] for r in json.loads(block)["rows"]} == {XSS, "b"}
    digest = base64.b64encode(hashlib.sha256(BOARD_SCRIPT.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in html
    assert html.count("<script") == 2 and f"<script>{BOARD_SCRIPT}</script>" in html
    # Outside the data block, the name appears only escaped.
    assert "<script>window.__xss" not in html.replace(block, "")
