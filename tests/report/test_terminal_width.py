"""What a person sees in an 80- and a 120-column terminal: tables that fit without folding
a number, `score`'s short default, punctuation figures, and plain progress lines when the
output is not a terminal."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from earmark.cli import main
from earmark.comparison.compare_report import print_compare
from earmark.execution.progress import ClipProgress as _progress
from earmark.file_comparison import compare
from earmark.render.demo_table import print_demo_table
from earmark.render.terminal import print_summary, print_worst_alignments
from earmark.terminal_table import Column, print_fitted

EXAMPLE = Path(__file__).parent / "data" / "example-run"
WIDTHS = (80, 120)


def _render(width: int, draw) -> str:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    draw(console)
    return console.export_text()


def _fits(text: str, width: int) -> None:
    too_long = [line for line in text.splitlines() if len(line) > width]
    assert too_long == []


@pytest.mark.parametrize("width", WIDTHS)
def test_score_summary_fits_and_keeps_figures_whole(width: int) -> None:
    results = json.loads((EXAMPLE / "results.json").read_text("utf-8"))
    text = _render(width, lambda c: print_summary(results, console=c))
    _fits(text, width)
    # The figures of results.md, each on one line and unbroken: rate, then its CI.
    for figure in ("12.28%", "[4.27, 21.82]", "377.08%", "[291.43, 476.74]", "132.26%"):
        assert figure in text
    assert "4.96%" in text and "[1.56, 9.63]" in text
    # Every view's row is there (8 rows: en 2, ga 2, zh 4; zh has no WER): 12 + 4 n/a.
    assert len(re.findall(r"\d+\.\d\d%", text)) == 12
    assert text.count("n/a") == 4


def test_score_summary_at_120_columns_keeps_every_column() -> None:
    results = json.loads((EXAMPLE / "results.json").read_text("utf-8"))
    text = _render(120, lambda c: print_summary(results, console=c))
    assert "S/D/I" in text and "88/8/266" in text
    assert "narrow terminal" not in text
    assert "normaliser / view" in text  # the header on one line


@pytest.mark.parametrize("width", WIDTHS)
def test_demo_table_fits(width: int) -> None:
    results = json.loads((EXAMPLE / "results.json").read_text("utf-8"))
    text = _render(width, lambda c: print_demo_table(results, console=c))
    _fits(text, width)
    for figure in ("12.28%", "[4.27, 21.82]", "96.76%", "[78.90, 126.81]", "1/3"):
        assert figure in text
    if width == 120:  # speed columns shown per language
        assert "0.290" in text and "1.389" in text
    else:  # dropped, and said so
        assert "RTF, p95 latency not shown" in text


def test_no_layout_fits_prints_one_block_per_row() -> None:
    columns = [Column("system"), Column("language"), Column("WER [95% CI]", numeric=True)]
    rows = [["a-very-long-system-name-" * 2, "en", "14.04% [9.10, 17.50]"]]
    text = _render(40, lambda c: print_fitted(c, columns, rows, title="t"))
    _fits(text, 40)
    assert "  WER [95% CI]: 14.04% [9.10, 17.50]" in text


def test_cells_are_text_not_markup() -> None:
    columns = [Column("arm"), Column("N", numeric=True)]
    text = _render(80, lambda c: print_fitted(c, columns, [["[bold]x[/bold]", "3"]], title="t"))
    assert "[bold]x[/bold]" in text


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("arms")
    refs = [f"the quick brown fox number {i} jumps over the lazy dog" for i in range(12)]
    files = []
    for name, every in (("whisper-small-float32", 0), ("whisper-small-int8-beam5", 3)):
        path = folder / f"{name}.jsonl"
        rows = []
        for i, ref in enumerate(refs):
            hyp = ref.replace("lazy", "hazy") if every and i % every == 0 else ref
            rows.append({"id": f"u{i}", "reference": ref, "hypothesis": hyp, "language": "en"})
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
        files.append(str(path))
    return compare(files, normalizer="en-v1", resamples=200, seed=3)


@pytest.mark.parametrize("width", WIDTHS)
def test_compare_tables_fit(compared: dict, width: int) -> None:
    text = _render(width, lambda c: print_compare(compared, console=c))
    _fits(text, width)
    # 4 of 12 rows lose one word of 10 (+1 word "number i" -> 11 words): 4 / 132.
    assert f"{100 * 4 / 132:.2f}%" in text
    assert "whisper-small-int8-beam5" in text
    assert "(reference)" in text
    assert "+3.03" in text  # the paired difference in points, whole


def test_alignments_are_cut_to_the_width_and_capped(tmp_path: Path) -> None:
    ref = " ".join(f"word{i}" for i in range(30))
    hyp = ref + " " + " ".join(["again"] * 200)  # a runaway output
    rows = [{"id": "run-1", "reference": ref, "hypothesis": hyp, "language": "en"}]
    source = tmp_path / "hyps.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    out = tmp_path / "out"
    assert main(["score", str(source), "--normalizer", "none", "--out", str(out), "--quiet"]) == 0
    results = json.loads((out / "results.json").read_text("utf-8"))
    text = _render(
        80,
        lambda c: print_worst_alignments(results, out / "predictions.jsonl", 1, console=c),
    )
    _fits(text, 80)
    assert "… 170 more aligned units not shown" in text  # 230 columns, 60 shown
    assert text.count("REF:") >= 2  # wrapped as whole REF/HYP blocks, not line by line


def test_score_prints_the_summary_without_alignments_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"id": "a", "reference": "Hello, world. How are you?", "language": "en"},
        {"id": "b", "reference": "Yes, it is.", "language": "en"},
    ]
    for row in rows:
        row["hypothesis"] = row["reference"]
    source = tmp_path / "hyps.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    out = tmp_path / "out"
    args = ["score", str(source), "--normalizer", "en-v1", "--out", str(out), "--punctuation"]
    assert main([*args, "--bootstrap", "200"]) == 0
    printed = capsys.readouterr().out
    assert "REF:" not in printed  # no alignment unless --show-alignments N
    results = json.loads((out / "results.json").read_text("utf-8"))
    f1 = results["arms"]["hyps"]["punctuation"]["overall"]["position"]["f1"]["value"]
    assert f1 == 1.0  # identical texts: every mark found
    assert "punctuation F1" in printed and "position 1.000" in printed
    assert main([*args, "--show-alignments", "1"]) == 0
    assert "REF:" not in capsys.readouterr().out  # nothing to show: no errors


class _FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_without_a_terminal_prints_plain_lines() -> None:
    stream, clock = io.StringIO(), _FakeClock()
    with _progress("tiny", 40, False, stream=stream, interval_s=10.0, clock=clock) as advance:
        for _ in range(40):
            clock.now += 0.5  # 2 clips/s
            advance()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "tiny: decoding 40 clips"
    # Every tenth (4 clips = 2 s) comes before the 10 s interval: 10 lines and the start.
    assert len(lines) == 11
    assert lines[1] == "tiny: 4/40 clips (10%), 2.00 clips/s, ETA 0:00:18"
    assert lines[-1] == "tiny: 40/40 clips (100%), 2.00 clips/s, done in 0:00:20"
    assert "\x1b" not in stream.getvalue() and "\r" not in stream.getvalue()


def test_progress_interval_prints_between_tenths_on_a_slow_arm() -> None:
    stream, clock = io.StringIO(), _FakeClock()
    with _progress("slow", 1000, False, stream=stream, interval_s=10.0, clock=clock) as advance:
        for _ in range(30):
            clock.now += 4.0  # 0.25 clips/s: a tenth would take 400 s
            advance()
    lines = stream.getvalue().splitlines()
    # One line per 10 s at least (every third clip), and a last one where it stopped.
    assert lines[1] == "slow: 3/1000 clips (0%), 0.25 clips/s, ETA 1:06:28"
    assert len(lines) == 1 + 10
    assert lines[-1].startswith("slow: 30/1000 clips")


def test_progress_quiet_prints_nothing() -> None:
    stream = io.StringIO()
    with _progress("q", 5, True, stream=stream) as advance:
        advance()
    assert stream.getvalue() == ""
