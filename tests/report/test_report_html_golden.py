"""report.html byte for byte against golden pages.

The page is assembled from many section renderers; these goldens pin their output so a
refactor (issue 13: one module per section, typed inputs) cannot change a byte unnoticed.
Cases: the two checked-in example runs, a plain `earmark score` folder (sclite tables,
punctuation, critical tokens, no provenance) and a two-arm run with a real compare.json
and hand-written blocks for branches no bundled run reaches (timestamps, resources, flags,
a language mismatch; `data/html-golden/make_inputs.py` builds it), once as is and once
as a private corpus. Nothing on the page depends on the clock: `created` is read from
results.json, and the title is fixed by the folder name. The pages are stored as
`CASE.html.golden`: data, not source, for tools that count lines of code.

After an intended change to the page: `python tests/report/test_report_html_golden.py`
rewrites the goldens; review the diff before committing it.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from earmark.render.html import write_html_report

DATA = Path(__file__).parent / "data"
GOLDEN = DATA / "html-golden"
CASES = {
    "example-run": DATA / "example-run",
    "compare-example-run": DATA.parent.parent / "compare" / "data" / "example-run",
    "score": GOLDEN / "score",
    "rich": GOLDEN / "rich",
    "rich-private": GOLDEN / "rich",
}


def _make_private(folder: Path) -> None:
    """The sidecar forbids sharing transcripts: the page keeps figures and drops text."""
    path = folder / "results.json"
    results = json.loads(path.read_text("utf-8"))
    results["corpus"]["redistribute_transcripts"] = False
    results["public"] = False
    path.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", "utf-8")


def render_case(case: str, workdir: Path) -> bytes:
    """The page `earmark report` writes for a copy of the case's folder named `case`."""
    folder = workdir / case
    shutil.copytree(CASES[case], folder)
    if case.endswith("-private"):
        _make_private(folder)
    return write_html_report(folder, out=workdir / f"{case}.html").read_bytes()


@pytest.mark.parametrize("case", sorted(CASES))
def test_page_is_byte_identical_to_its_golden(case: str, tmp_path: Path) -> None:
    expected = (GOLDEN / f"{case}.html.golden").read_bytes()
    assert render_case(case, tmp_path) == expected


def test_goldens_reach_every_section_branch() -> None:
    """The goldens are only worth their bytes if they exercise the optional parts."""
    rich = (GOLDEN / "rich.html.golden").read_text("utf-8")
    for text in (
        "Churn: rows whose text differs",
        "Unpaired rows",
        "<h3>Flags</h3>",
        "normaliser changes ranking",
        "Language mismatches",
        "Output on no-speech clips",
        "sclite summary by speaker",
        "Punctuation F1",
        "Critical tokens",
        "Absolute boundary offsets",
        "Deviations recorded by the run",
        "package versions",
        "ISA AVX2; SGEMM DNNL",
        "Overall: null",
        "<h3>Per language</h3>",
        "more aligned units (show all)",
        "characters: show all",
        "Slices (primary view)",
        "Speakers (primary view",
        "Diagnostics from compare.json",
        "challenger (column) − reference (row)",
    ):
        assert text in rich, text
    # The hostile texts in the inputs (a hypothesis, a dataset name, a deviation) are escaped.
    assert "<img" not in rich and "&lt;img src=x onerror=" in rich
    assert "golden &lt;corpus&gt;" in rich and "<i>x</i>" not in rich
    private = (GOLDEN / "rich-private.html.golden").read_text("utf-8")
    assert 'id="not-public"' in private and "words withheld" in private
    assert 'id="unverifiable"' in (GOLDEN / "score.html.golden").read_text("utf-8")


if __name__ == "__main__":  # rewrite the goldens from the current code
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for name in CASES:
            (GOLDEN / f"{name}.html.golden").write_bytes(render_case(name, Path(tmp)))
            print(f"wrote {GOLDEN / f'{name}.html.golden'}", file=sys.stderr)
