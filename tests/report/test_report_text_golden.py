"""results.md, the terminal summary and the leaderboard files byte for byte against goldens.

Written before those renderers moved from nested dictionaries to the typed results model
(issue 13), so the move cannot change a byte unnoticed. Cases:

- results.md and the terminal summary (80 and 120 columns, with the worst alignments) for
  the two checked-in example runs, the HTML goldens' `score` and `rich` folders (sclite,
  punctuation, critical tokens, timestamps, resources, speakers, hallucination), and a
  live `earmark score` folder of three languages (en, ga, zh: several views, a CER-headline
  language, a mixed-unit view, an empty hypothesis);
- the leaderboard's md/csv/json/html for runs built with the real scorer: ties, an
  unverifiable run (no provenance.json), an incomplete one (an arm that never loaded, one
  that timed out on some rows), the example runs, a self-reported row and a contamination
  report; once with the default minimum coverage and once with `--min-coverage 0.5`.

The clock and the temporary folder are the only things that vary between runs: the
leaderboard's `created` and the folder's path are replaced by fixed text before comparing.
Goldens are data, stored as `*.golden` under `data/text-golden/`. After an intended change:
`python tests/report/test_report_text_golden.py` rewrites them; review the diff.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import pytest
from report_builders import MANIFEST_SHA, ArmData, make_run, zh_rows
from rich.console import Console

from earmark.cli import main
from earmark.render.leaderboard import write_leaderboard
from earmark.render.markdown import render_results_markdown
from earmark.render.terminal import print_summary, print_worst_alignments

DATA = Path(__file__).parent / "data"
GOLDEN = DATA / "text-golden"
FOLDERS = {
    "example-run": DATA / "example-run",
    "compare-example-run": DATA.parent.parent / "compare" / "data" / "example-run",
    "score": DATA / "html-golden" / "score",
    "rich": DATA / "html-golden" / "rich",
}
TEXT_CASES = [*FOLDERS, "live-score", "live-protocol", "live-crude"]
WIDTHS = (80, 120)
REF = "the cat sat on the mat"

LIVE_ROWS = [
    ("en-1", "en", "The cat sat on the mat, on 3 May 2024.", "the bat sat on a mat on 3 may 2024"),
    ("en-2", "en", "Call 555-0100 now!", "call 555 0100 now"),
    ("en-3", "en", "Hello there, how are you?", ""),
    (
        "ga-1",
        "ga",
        "Tá an t-athair ag obair i nGaillimh inniu.",
        "ta an tathair ag obair in gaillimh",
    ),
    ("ga-2", "ga", "Bhí an aimsir go hálainn ar an trá inné.", None),
    ("zh-1", "zh", "今天天气很好我们去公园", "今天天气很好我们去公圆"),
    ("zh-2", "zh", "我有3个苹果。", "我有三个苹果"),
    ("zh-3", "zh", "我用iPhone打电话", "我用 iphone 打电话"),
]
#: `earmark score` options of each live case: the default policy with punctuation and
#: critical tokens; a published protocol (its generator and notes); a character-headline
#: normaliser with a pre-registered minimum (null figures with a reason).
LIVE_CASES = {
    "live-score": ["--normalizer", "auto", "--bootstrap", "200", "--seed", "5", "--punctuation"],
    "live-protocol": ["--protocol", "blasbench-v1"],
    "live-crude": [
        "--normalizer",
        "zh=crude-char-v1,*=auto",
        "--min-per-slice",
        "2",
        "--seed",
        "5",
    ],
}


#: Live cases scored on some languages only: blasbench-v1 refuses rows that are not Irish.
LIVE_LANGUAGES = {"live-protocol": ("ga",)}


def live_score(case: str, workdir: Path) -> Path:
    """A real `earmark score` folder over three languages (made by the CLI, not by hand)."""
    rows = [
        {"id": i, "language": lang, "reference": ref, "hypothesis": hyp, "slices": [f"s{k % 2}"]}
        for k, (i, lang, ref, hyp) in enumerate(LIVE_ROWS)
        if lang in LIVE_LANGUAGES.get(case, (lang,))
    ]
    source = workdir / "live.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    out = workdir / case
    args = ["score", str(source), *LIVE_CASES[case], "--critical-tokens"]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    return out


def folder(case: str, workdir: Path) -> Path:
    if case in LIVE_CASES:
        return live_score(case, workdir)
    return FOLDERS[case]


def render_markdown_case(case: str, workdir: Path) -> str:
    run = folder(case, workdir)
    results = json.loads((run / "results.json").read_text("utf-8"))
    return render_results_markdown(results, title=f"earmark results: {case}")


def render_terminal_case(case: str, width: int, workdir: Path) -> str:
    run = folder(case, workdir)
    results = json.loads((run / "results.json").read_text("utf-8"))
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    print_summary(results, title=case, console=console)
    print_worst_alignments(results, run / "predictions.jsonl", console=console)
    return str(console.export_text())


def en_rows(wrong_words: int, n: int = 10) -> list[tuple[str, str, str, str]]:
    """n rows of six words, the first `wrong_words` substituted: WER = wrong_words / 6."""
    words = REF.split()
    hyp = " ".join(["zzz"] * wrong_words + words[wrong_words:])
    return [(f"u{i}", "en", REF, hyp) for i in range(n)]


def _timed_out(path: Path, every: int) -> None:
    """Every `every`-th row of the run's predictions timed out (no hypothesis)."""
    lines = path.read_text("utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    for k, row in enumerate(rows):
        if row["arm"] == "partly" and k % every == 0:
            row.update(status="timeout", hypothesis=None)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    # make_run's results.json names no predictions hash, so nothing else to update.


def leaderboard_runs(workdir: Path) -> tuple[list[Path], Path, Path]:
    """Runs of every kind the leaderboard treats apart, a self-reported file and a
    contamination report."""
    a = make_run(
        workdir / "run-a",
        {"alpha": ArmData(en_rows(1)), "beta": ArmData(en_rows(1)), "gamma": ArmData(en_rows(3))},
    )
    b = make_run(workdir / "run-b", {"delta": ArmData(en_rows(0))}, write_provenance=False)
    never = ArmData(
        zh_rows([11] * 4), extra_row_fields={"status": "arm_failed", "hypothesis": None}
    )
    c = make_run(
        workdir / "run-c",
        {"full": ArmData(zh_rows([2] * 4)), "dead": never, "partly": ArmData(zh_rows([1] * 4))},
        dataset="zh-corpus",
        manifest_sha="c" * 64,
    )
    _timed_out(c / "predictions.jsonl", every=2)
    d = make_run(workdir / "run-d", {"eps": ArmData(en_rows(2), revision=None)})
    copies = []
    for name in ("example-run", "compare-example-run"):
        copies.append(workdir / name)
        shutil.copytree(FOLDERS[name], copies[-1])
    published = workdir / "published.json"
    published.write_text(
        json.dumps(
            {
                "schema": "earmark.self-reported/1",
                "rows": [
                    {
                        "system": "paper-model <b>",
                        "manifest_sha256": MANIFEST_SHA,
                        "language": "en",
                        "metric": "wer",
                        "value": 0.05,
                        "source": "https://example.invalid/paper",
                        "note": "test-clean subset",
                    }
                ],
            }
        ),
        "utf-8",
    )
    report = workdir / "contamination.json"
    report.write_text(
        json.dumps(
            {
                "schema": "earmark.contamination/1",
                "corpus": {"manifest_sha256": MANIFEST_SHA},
                "declared": {"path": "train.txt", "system": None},
                "summary": {"flagged": 2, "utterances": 10},
                "by_language": {"en": {"flagged": 2, "utterances": 10}},
                "canaries": {"hits": [{"canary": "CANARY-1", "declared_count": 1}]},
            }
        ),
        "utf-8",
    )
    return [a, b, c, d, *copies], published, report


LEADERBOARD_CASES = {"default": 1.0, "min-coverage-half": 0.5}
EXTENSIONS = ("md", "csv", "json", "html")


def render_leaderboard_case(case: str, workdir: Path) -> dict[str, str]:
    runs, published, report = leaderboard_runs(workdir)
    written = write_leaderboard(
        runs,
        workdir / "board",
        min_coverage=LEADERBOARD_CASES[case],
        self_reported=[published],
        contamination=[report],
    )
    created = json.loads(written["json"].read_text("utf-8"))["created"]
    out = {}
    for ext in EXTENSIONS:
        text = written[ext].read_text("utf-8")
        out[ext] = text.replace(created, "CREATED").replace(str(workdir.resolve()), "WORKDIR")
    return out


@pytest.mark.parametrize("case", TEXT_CASES)
def test_results_markdown_is_byte_identical(case: str, tmp_path: Path) -> None:
    expected = (GOLDEN / f"{case}.results.md.golden").read_text("utf-8")
    assert render_markdown_case(case, tmp_path) == expected


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("case", TEXT_CASES)
def test_terminal_summary_is_byte_identical(case: str, width: int, tmp_path: Path) -> None:
    expected = (GOLDEN / f"{case}.terminal-{width}.txt.golden").read_text("utf-8")
    assert render_terminal_case(case, width, tmp_path) == expected


@pytest.mark.parametrize("case", sorted(LEADERBOARD_CASES))
def test_leaderboard_files_are_byte_identical(case: str, tmp_path: Path) -> None:
    got = render_leaderboard_case(case, tmp_path)
    for ext in EXTENSIONS:
        expected = (GOLDEN / f"leaderboard-{case}.{ext}.golden").read_text("utf-8")
        assert got[ext] == expected, ext


def test_goldens_reach_the_branches_they_are_for() -> None:
    """The goldens pin the optional parts only if they contain them."""
    board = (GOLDEN / "leaderboard-default.md.golden").read_text("utf-8")
    for text in ("## Not ranked", "## Contamination", "## Self-reported", "⚠ unverifiable"):
        assert text in board
    half = (GOLDEN / "leaderboard-min-coverage-half.md.golden").read_text("utf-8")
    assert "partly | zh-corpus" in half and "9.09% (#" in half  # 2/4 rows ranks at 0.5
    md = "".join((GOLDEN / f"{c}.results.md.golden").read_text("utf-8") for c in TEXT_CASES)
    for text in (
        "### Punctuation",
        "### Critical tokens",
        "### Timestamp accuracy",
        "### Speed and memory",
        "### Slices",
        "### Error analysis",
        "Mixed error rate",
        "Overall: null",
        "### Rows without a usable hypothesis",
        "- Protocol: **blasbench-v1**",
        "generator python-random",
        "- Headline unit, language zh",
    ):
        assert text in md, text
    live = (GOLDEN / "live-score.results.md.golden").read_text("utf-8")
    assert "language ga" in live and "language zh" in live and "language en" in live
    narrow = (GOLDEN / "example-run.terminal-80.txt.golden").read_text("utf-8")
    assert "narrow terminal" in narrow or "S/D/I" in narrow


def _rewrite() -> None:
    import tempfile

    GOLDEN.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for case in TEXT_CASES:
            work = Path(tmp) / f"md-{case}"
            work.mkdir()
            text = render_markdown_case(case, work)
            (GOLDEN / f"{case}.results.md.golden").write_text(text, "utf-8")
            for width in WIDTHS:
                work = Path(tmp) / f"term-{case}-{width}"
                work.mkdir()
                text = render_terminal_case(case, width, work)
                (GOLDEN / f"{case}.terminal-{width}.txt.golden").write_text(text, "utf-8")
        for case in LEADERBOARD_CASES:
            work = Path(tmp) / f"lb-{case}"
            work.mkdir()
            for ext, text in render_leaderboard_case(case, work).items():
                (GOLDEN / f"leaderboard-{case}.{ext}.golden").write_text(text, "utf-8")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    _rewrite()
