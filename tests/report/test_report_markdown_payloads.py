"""Every Markdown file earmark writes shows hostile ids, names and transcripts as text.

Rendered with markdown-it with raw HTML allowed (as many wikis and viewers do), a payload
must not become an element, a link or a new block, and a table must keep its columns.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from report_builders import ArmData, make_run

from earmark.cli import main
from earmark.markdown_cells import md_code, md_fence, md_table, md_text
from earmark.postprocess.markdown import render_postprocess_markdown

markdown_it = pytest.importorskip("markdown_it", reason="needs markdown-it-py (test extra)")

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(1)</script>"
PIPES = "a|b||c\\|d"
TICKS = "`x` ``y```"
NEWLINE = "one\n# two <b>three</b>\r\n- four"
LINK = "[click](javascript:alert(1)) ![t](http://t.invalid/x.png) [r]: http://t.invalid"
ENTITY = "&lt;script&gt; &amp; &#60;"
EMPHASIS = "*bold* _it_ ~~gone~~ **x**"
PAYLOADS = [IMG, SCRIPT, PIPES, TICKS, NEWLINE, LINK, ENTITY, EMPHASIS]
#: Elements the renderers may produce; anything else came from a payload.
ALLOWED_TAGS = {
    *"p h1 h2 h3 h4 h5 h6 ul ol li table thead tbody tr th td code pre".split(),
    *"strong em blockquote hr br".split(),
}


def _renderer():
    return markdown_it.MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def flat(text: str) -> str:
    """What a payload must read as once rendered: line breaks become spaces."""
    return re.sub(r"\r\n|[\n\r]", " ", text)


class _Page(HTMLParser):
    """Tags, attributes and the text of a rendered page, and the cells of each table."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[str] = []
        self.text: list[str] = []
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [name for name, _ in attrs]
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def render(markdown: str) -> _Page:
    page = _Page()
    page.feed(_renderer().render(markdown))
    page.close()
    return page


def assert_inert(markdown: str, texts: list[str]) -> _Page:
    """No element beyond the renderer's own, no event handler, no link; every text present."""
    page = render(markdown)
    assert set(page.tags) <= ALLOWED_TAGS, set(page.tags) - ALLOWED_TAGS
    assert not [a for a in page.attrs if a.startswith("on") or a in ("src", "href")]
    body = "".join(page.text)
    for text in texts:
        assert flat(text) in body, text
    for table in page.tables:
        widths = {len(row) for row in table}
        assert widths == {len(table[0])}, table
    return page


def raw_table_widths(markdown: str) -> list[int]:
    """Cell separators per table line, counted as GFM does (a `\\|` is no separator)."""
    widths = []
    for line in markdown.splitlines():
        if line.startswith("|"):
            widths.append(len(re.findall(r"(?<!\\)(?:\\\\)*\|", line)))
    return widths


# --- the escaping functions themselves ---------------------------------------------------


def test_md_text_examples() -> None:
    assert md_text("13.2% [9.1, 17.5]") == "13.2% [9.1, 17.5]"  # readable figures stay
    assert md_text("utt_001 +0.12 (#1)") == "utt_001 +0.12 (#1)"
    assert md_text(IMG) == "&lt;img src=x onerror=alert(1)&gt;"
    assert md_text("a|b") == "a\\|b"
    assert md_text("[x](y)") == "[x\\](y)"
    assert md_text("# h") == "\\# h" and md_text("- x") == "\\- x" and md_text("1. x") == "1\\. x"
    assert md_text("x\ny") == "x y"
    assert md_code("a`b") == "``a`b``" and md_code("`") == "`` ` ``"
    assert md_fence("a\n```\nb") == ["````", "a", "```", "b", "````"]


TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40
)


def words(page: _Page) -> str:
    return " ".join("".join(page.text).split())


@settings(max_examples=300, deadline=None)
@given(TEXT)
@example("--")  # `- --` is a thematic break, found by this test (now escaped)
@example("- -")
@example(" -- ")
def test_md_text_renders_to_its_text_anywhere(text: str) -> None:
    expected = " ".join(text.split())  # renderers collapse nothing, but strip block edges
    for markdown in (md_text(text), f"- {md_text(text)}", f"## {md_text(text)}"):
        page = render(markdown)
        assert set(page.tags) <= {"p", "ul", "li", "h2"}, markdown
        assert words(page) == expected, markdown
    table = render(md_table(["h", "k"], [[text, "z"]])).tables
    assert [len(row) for row in table[0]] == [2, 2]
    assert " ".join(table[0][1][0].split()) == expected and table[0][1][1] == "z"


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_md_code_and_md_fence_show_text_verbatim(text: str) -> None:
    # In a code span every line break (as str.splitlines sees them) becomes a space.
    one_line = re.sub("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]", " ", text)
    page = render(f"- {md_code(text)}")
    assert page.tags == ["ul", "li", "code"]
    assert "".join(page.text).strip("\n") == (one_line or " ")
    lines = re.sub(r"\r\n|\r", "\n", text)
    fenced = render("\n".join(md_fence(lines)))
    assert fenced.tags == ["pre", "code"]
    assert "".join(fenced.text) == lines + "\n\n"  # the block's last line, then the page's


# --- every Markdown file, written by the real commands -----------------------------------


def _rows(arm: str, prefix: str) -> list[dict[str, object]]:
    """Per payload, one row whose id and words carry it and one without a hypothesis (its
    id and status listed among the rows scored as deletions); one good row."""
    rows: list[dict[str, object]] = []
    for k, payload in enumerate(PAYLOADS):
        rows.append(
            {
                "arm": arm,
                "id": f"{prefix}{k}-{payload}",
                "reference": f"ref {payload} words",
                "hypothesis": f"hyp {payload} x",
                "language": "en",
            }
        )
        rows.append(
            {
                "arm": arm,
                "id": f"{prefix}missing{k}-{payload}",
                "reference": f"{payload} b",
                "status": SCRIPT,
            }
        )
    rows.append({"arm": arm, "id": f"{prefix}ok", "reference": "a b", "hypothesis": "a b"})
    return rows


def _write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


ARM_A = f"arm {SCRIPT}"
ARM_B = f"arm|{IMG}"


def test_results_md_from_score(tmp_path: Path) -> None:
    preds = _write_jsonl(tmp_path / "p.jsonl", _rows("x", "id"))
    out = tmp_path / "score"
    args = ["score", str(preds), "--normalizer", "none", "--language", "en", "--bootstrap", "20"]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    markdown = (out / "results.md").read_text("utf-8")
    results = json.loads((out / "results.json").read_text("utf-8"))
    (arm,) = results["arms"].values()
    worst = [w["id"] for w in arm["error_analysis"]["en"]["worst_utterances"][:3]]
    missing = [f"idmissing{k}-{p}" for k, p in enumerate(PAYLOADS)]
    page = assert_inert(markdown, [*missing, *worst, f"{SCRIPT}: {len(PAYLOADS)}"])
    # The worst utterances' alignments (fenced blocks) keep the raw words, tags and all.
    references = {r["id"]: r["reference"] for r in _rows("x", "id")}
    assert any("<" in references[w] for w in worst)
    body = " ".join("".join(page.text).split())
    for w in worst:
        assert " ".join(f"REF: {references[w]}".split()) in body
    table = markdown.split("\n\n### ")[0]
    assert set(raw_table_widths(table)) == {7}  # six columns: seven separators per line


def test_compare_and_gap_md(tmp_path: Path) -> None:
    unpaired = {"arm": ARM_B, "id": f"lonely-{NEWLINE}", "reference": "a", "hypothesis": "a"}
    rows = [*_rows(ARM_A, "id"), *_rows(ARM_B, "id"), unpaired]
    preds = _write_jsonl(tmp_path / "run" / "predictions.jsonl", rows)
    out = tmp_path / "cmp"
    common = ["--normalizer", "none", "--bootstrap", "20"]
    rc = main(["compare", str(preds.parent), *common, "--out", str(out), "--quiet"])
    assert rc == 0
    markdown = (out / "compare.md").read_text("utf-8")
    assert_inert(markdown, [ARM_A, ARM_B])
    cells = [c for t in render(markdown).tables for row in t for c in row]
    assert f"{ARM_A} (reference)" in cells and ARM_B in cells and flat(unpaired["id"]) in cells
    gap_a = _write_jsonl(tmp_path / "ga" / "predictions.jsonl", _rows(ARM_A, "a"))
    gap_b = _write_jsonl(tmp_path / "gb" / "predictions.jsonl", _rows(ARM_A, "b"))
    gout = tmp_path / "gap"
    args = ["compare", "--gap", str(gap_a.parent), str(gap_b.parent), "--arm", ARM_A, *common]
    assert main([*args, "--out", str(gout), "--quiet"]) == 0
    gap_md = (gout / "gap.md").read_text("utf-8")
    assert_inert(gap_md, [ARM_A, str(gap_a.parent)])


def _payload_run(path: Path) -> Path:
    rows = [(f"u{k}-{p}", "en", f"ref {p} words", f"hyp {p} words") for k, p in enumerate(PAYLOADS)]
    rows += [(f"ok{k}", "en", "a b c d", "a b c d") for k in range(8)]
    worse = [(i, lang, ref, hyp + " extra") for i, lang, ref, hyp in rows]
    return make_run(
        path,
        {IMG: ArmData(rows, revision=None), SCRIPT: ArmData(worse)},
        dataset=f"corpus {PIPES} {NEWLINE}",
        selection_rule=LINK,
        resamples=20,
    )


def test_leaderboard_and_decision_md(tmp_path: Path) -> None:
    run = _payload_run(tmp_path / "run")
    out = tmp_path / "board"
    assert main(["leaderboard", str(run), "--out", str(out), "--quiet"]) == 0
    board = (out / "leaderboard.md").read_text("utf-8")
    page = assert_inert(board, [IMG, SCRIPT, f"corpus {PIPES} {NEWLINE}"])
    systems = [row[1] for row in page.tables[1][1:]]  # detail table: rank, system, ...
    assert any(s.startswith(SCRIPT) for s in systems) and any(s.startswith(IMG) for s in systems)
    dout = tmp_path / "decision"
    args = ["decide", "--baseline", f"{run}#{IMG}", "--challenger", f"{run}#{SCRIPT}"]
    assert main([*args, "--out", str(dout), "--quiet"]) == 0
    (decision,) = dout.glob("decision-*.md")
    assert_inert(decision.read_text("utf-8"), [IMG, SCRIPT, f"corpus {PIPES} {NEWLINE}", LINK])


def test_postprocess_md_payload_names() -> None:
    from dataclasses import replace

    from earmark.postprocess.evaluate import summarise
    from earmark.postprocess.guard import LexicalGuard
    from earmark.postprocess.report import (
        OutputRecord,
        PostprocessReport,
        SourceInfo,
        SourceRow,
    )
    from earmark.stats.settings import BootstrapSettings

    sources = (SourceRow("a", "x", "x", "zh"),)
    outputs = (OutputRecord(0, 0, "y", "x", False, SCRIPT, 0.0),)
    summary = summarise(
        sources, outputs, repeats=1, guard=LexicalGuard(), bootstrap=BootstrapSettings(0)
    )
    document = PostprocessReport(
        earmark_version="0",
        created="0",
        source=SourceInfo(f"/p/{SCRIPT}", f"/p/{SCRIPT}.jsonl", "0" * 64, LINK, 1),
        processor_spec=f"cmd {PIPES}",
        processor={"kind": IMG, "opencc_version": TICKS},
        plan=None,
        served_model=None,
        guard=None,
        summary=replace(summary, warnings=(NEWLINE,)),
        punctuation_probes=(),
        sources=sources,
        outputs=outputs,
    )
    markdown = render_postprocess_markdown(document)
    assert_inert(markdown, [IMG, TICKS, f"cmd {PIPES}", f"/p/{SCRIPT}.jsonl", LINK, SCRIPT])
    assert "&lt;script&gt;" in markdown
