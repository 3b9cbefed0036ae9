"""report.html's sclite tables (per speaker, and the confusion pairs in a <details>),
rendered and parsed without a browser."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.render.html import render_html_report, write_html_report
from earmark.render.html_errors import CONFUSION_LIMIT
from earmark.render.run_directory import load_run

REF = (
    "i said { ok / okay } (uh) then (um) left (spk1-u1)\n"
    "{ yes / yeah } we go (uh) (spk1-u2)\n"
    "the (uh) cat sat (spk2-u1)\n"
    "the cat sat on the mat (spk2-u2)\n"
)
HYP = (
    "i said okay uh then left (spk1-u1)\n"
    "yep we go (spk1-u2)\n"
    "the dog sat um (spk2-u1)\n"
    "the dog sat on a <mat> (spk2-u2)\n"
)


class Tables(HTMLParser):
    """Every table on the page as rows of cell texts, and whether it sat in a <details>
    (with that <details>' summary)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str | None, list[list[str]]]] = []
        self._details: list[str] = []
        self._in_summary = False
        self._cell: list[str] | None = None
        self._row: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "details":
            self._details.append("")
        elif tag == "summary":
            self._in_summary = True
        elif tag == "table":
            self.tables.append((self._details[-1] if self._details else None, []))
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "details":
            self._details.pop()
        elif tag == "summary":
            self._in_summary = False
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[-1][1].append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._in_summary and self._details:
            self._details[-1] += data
        if self._cell is not None:
            self._cell.append(data)


def parse(html: str) -> list[tuple[str | None, list[list[str]]]]:
    tables = Tables()
    tables.feed(html)
    return tables.tables


@pytest.fixture
def scored(tmp_path: Path) -> Path:
    (tmp_path / "ref.trn").write_text(REF, "utf-8")
    (tmp_path / "hyp.trn").write_text(HYP, "utf-8")
    out = tmp_path / "out"
    code = main(
        ["score", str(tmp_path / "hyp.trn"), "--refs", str(tmp_path / "ref.trn")]
        + ["--normalizer", "none", "--sclite-reports", "--alignment", "sclite"]
        + ["--bootstrap", "0", "--quiet", "--out", str(out)]
    )
    assert code == 0
    return out


def speaker_table(html: str) -> list[list[str]]:
    (table,) = [rows for _, rows in parse(html) if rows and rows[0][:2] == ["SPKR", "# Snt"]]
    return table


def test_speaker_table_matches_the_sclite_block_and_hand_counts(scored: Path) -> None:
    html = write_html_report(scored).read_text("utf-8")
    table = speaker_table(html)
    assert table[0] == ["SPKR", "# Snt", "# Wrd", "Corr", "Sub", "Del", "Ins", "Err", "S.Err"]
    # By hand (sclite -D): spk1 u1 7 Correct, u2 yes->yep S; spk2 u1 cat->dog S + um I,
    # u2 the cat sat on the mat / the dog sat on a <mat>: 3 S.
    assert table[1:] == [
        ["spk1", "2", "11", "10 (90.9%)", "1 (9.1%)", "0 (0.0%)", "0 (0.0%)", "1 (9.1%)"]
        + ["1 (50.0%)"],
        ["spk2", "2", "10", "6 (60.0%)", "4 (40.0%)", "0 (0.0%)", "1 (10.0%)", "5 (50.0%)"]
        + ["2 (100.0%)"],
        ["Sum/Avg", "4", "21", "16 (76.2%)", "5 (23.8%)", "0 (0.0%)", "1 (4.8%)"]
        + ["6 (28.6%)", "3 (75.0%)"],
    ]
    results = json.loads((scored / "results.json").read_text("utf-8"))
    total = results["arms"]["hyp"]["sclite"]["total"]
    assert table[-1][2] == str(total["words"]) and table[-1][3].startswith(str(total["correct"]))


def test_confusion_pairs_fold_into_details_and_are_escaped(scored: Path) -> None:
    html = write_html_report(scored).read_text("utf-8")
    (folded,) = [(s, rows) for s, rows in parse(html) if s and "confusion pair" in s]
    summary, rows = folded
    assert summary == "hyp: 4 confusion pair(s), 5 substitution(s)"
    assert rows[0] == ["reference", "", "hypothesis", "count"]
    assert rows[1:] == [
        ["cat", "→", "dog", "2"],
        ["mat", "→", "<mat>", "1"],
        ["the", "→", "a", "1"],
        ["yes", "→", "yep", "1"],
    ]
    assert "&lt;mat&gt;" in html and "<mat>" not in html


def test_many_pairs_are_cut_with_a_note_and_private_corpora_withhold_words(
    scored: Path,
) -> None:
    path = scored / "results.json"
    results = json.loads(path.read_text("utf-8"))
    block = results["arms"]["hyp"]["sclite"]
    block["confusion_pairs"] = [
        {"reference": f"r{k}", "hypothesis": f"h{k}", "count": 1}
        for k in range(CONFUSION_LIMIT + 7)
    ]
    path.write_text(json.dumps(results), "utf-8")
    html = render_html_report(load_run(scored))
    (rows,) = [rows for s, rows in parse(html) if s and "confusion pair" in s]
    assert len(rows) == 1 + CONFUSION_LIMIT
    assert "… 7 more in results.json" in html

    results["corpus"] = {"redistribute_transcripts": False}
    path.write_text(json.dumps(results), "utf-8")
    private = render_html_report(load_run(scored))
    assert not [s for s, _ in parse(private) if s and "confusion pair" in s]
    assert "r0" not in private and "words withheld" in private
    assert speaker_table(private)[-1][0] == "Sum/Avg"  # counts are still shown


def test_no_sclite_block_no_tables(tmp_path: Path) -> None:
    (tmp_path / "ref.trn").write_text(REF, "utf-8")
    (tmp_path / "hyp.trn").write_text(HYP, "utf-8")
    out = tmp_path / "plain"
    assert (
        main(
            ["score", str(tmp_path / "hyp.trn"), "--refs", str(tmp_path / "ref.trn")]
            + ["--normalizer", "none", "--bootstrap", "0", "--quiet", "--out", str(out)]
        )
        == 0
    )
    html = write_html_report(out).read_text("utf-8")
    assert "sclite summary" not in html and "confusion pair" not in html
