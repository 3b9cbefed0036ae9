"""The leaderboard's corpora and columns (issue 23): region-tagged and untagged rows are
ranked, a corpus scored two ways is two titled columns while the same rows under two
selections are one, the declared system type, the mean over corpora (Open ASR
Leaderboard's average) and RTFx, every new field escaped in Markdown and HTML."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from report_builders import ArmData, make_run

from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.render.leaderboard import write_leaderboard
from earmark.render.leaderboard_ranking import build_leaderboard
from earmark.render.run_directory import load_run

REF = "the cat sat on the mat"


def rows(wrong: int, n: int = 4, language: str = "en", prefix: str = "u"):
    """n rows of six words, the first `wrong` substituted: WER = wrong / 6."""
    words = REF.split()
    hyp = " ".join(["zzz"] * wrong + words[wrong:])
    return [(f"{prefix}{i}", language, REF, hyp) for i in range(n)]


def csv_rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text("utf-8"))))


# --- item 2: language keying ---------------------------------------------------------


def test_region_tagged_rows_are_covered_and_ranked(tmp_path: Path) -> None:
    tagged = rows(1, language="en-US") + rows(2, language="ga-IE", prefix="g")
    other = rows(2, language="en-US") + rows(1, language="ga-IE", prefix="g")
    run = make_run(tmp_path / "r", {"a": ArmData(tagged), "b": ArmData(other)})
    board = build_leaderboard([load_run(run)])
    got = {(e.language, e.system): (e.covered, e.rows, e.rank) for e in board.entries}
    assert got == {
        ("en-US", "a"): (4, 4, 1),
        ("en-US", "b"): (4, 4, 2),
        ("ga-IE", "a"): (4, 4, 2),
        ("ga-IE", "b"): (4, 4, 1),
    }
    assert not board.unranked


def test_a_contamination_report_marks_a_region_tagged_block(tmp_path: Path) -> None:
    """Contamination reports key languages by their base (`en`), blocks by the tag."""
    run = make_run(tmp_path / "r", {"a": ArmData(rows(1, language="en-US"))})
    report = {
        "schema": "earmark.contamination/1",
        "corpus": {"manifest_sha256": "a" * 64},
        "declared": {"path": "train.txt", "system": None},
        "summary": {"flagged": 1, "utterances": 4},
        "by_language": {"en": {"flagged": 1, "utterances": 4}},
    }
    board = build_leaderboard([load_run(run)], contamination=[report])
    assert board.entries[0].contamination == "1/4 utterances flagged (25.0%) against train.txt"


def test_score_folders_without_languages_rank_under_und(tmp_path: Path) -> None:
    outs = []
    for name, hyp in (("good", "the cat sat on the mat"), ("bad", "the cat sat")):
        pairs = tmp_path / f"{name}.jsonl"
        pairs.write_text(
            "".join(
                json.dumps({"id": f"u{i}", "reference": REF, "hypothesis": hyp}) + "\n"
                for i in range(3)
            ),
            "utf-8",
        )
        outs.append(tmp_path / name)
        argv = ["score", str(pairs), "--normalizer", "none", "--bootstrap", "0", "--quiet"]
        assert main([*argv, "--out", str(outs[-1])]) == 0
    board = build_leaderboard([load_run(p) for p in outs])
    got = {e.system: (e.language, e.covered, e.rows, e.rank, e.value) for e in board.entries}
    good, bad = (
        next(e.system for e in board.entries if e.run.endswith(n)) for n in ("good", "bad")
    )
    # Three rows of six words; "bad" drops three words in each: WER 9/18.
    assert got[good] == ("und", 3, 3, 1, 0.0)
    assert got[bad] == ("und", 3, 3, 2, 0.5)
    md = write_leaderboard(outs, tmp_path / "lb")["md"].read_text("utf-8")
    assert "coverage 0/0" not in md and "## Not ranked" not in md


# --- item 3: corpora told apart, ranked per corpus --------------------------------------


def test_the_same_rows_under_two_selections_are_one_column(tmp_path: Path) -> None:
    """`earmark leaderboard runs/tiny earmark-demo`: one corpus, two selection rules that
    kept the same rows. Same data: one column, one ranking, the rules both named."""
    a = make_run(tmp_path / "tiny", {"int8": ArmData(rows(1)), "tiny": ArmData(rows(2))})
    b = make_run(tmp_path / "demo", {"tiny": ArmData(rows(2))}, selection_rule="first 4 rows")
    board = build_leaderboard([load_run(a), load_run(b)])
    ranks = {e.system: e.rank for e in board.entries}
    assert ranks == {"int8": 1, "tiny @ tiny": 2, "tiny @ demo": 2}
    md = write_leaderboard([a, b], tmp_path / "lb")["md"].read_text("utf-8")
    header = md.split("## Systems × corpora", 1)[1].splitlines()[2]
    assert header == ("| system | system type | test-corpus [manifest aaaaaaaaaaaa] · en WER |")


def test_a_corpus_scored_two_ways_is_two_titled_columns(tmp_path: Path) -> None:
    a = make_run(tmp_path / "all", {"x": ArmData(rows(1))})
    b = make_run(tmp_path / "some", {"x": ArmData(rows(2, n=3))}, selection_rule="first 3 rows")
    md = write_leaderboard([a, b], tmp_path / "lb")["md"].read_text("utf-8")
    header = md.split("## Systems × corpora", 1)[1].splitlines()[2]
    scope = "test-corpus [manifest aaaaaaaaaaaa] · en"
    assert header == (
        f"| system | system type | {scope} · selection all rows WER | "
        f"{scope} · selection first 3 rows WER | mean WER over 2 columns (macro) |"
    )
    # The two columns share rows: averaging them would count the corpus twice.
    assert (
        "| x | undeclared | 16.67% (#1) | 33.33% (#1) | — (a corpus · language is scored two "
        "ways (normaliser or rows) among the WER columns: a mean would count it twice) |"
    ) in md
    ranks = {(e.system, e.n): e.rank for e in build_leaderboard([load_run(a), load_run(b)]).entries}
    assert ranks == {("x", 4): 1, ("x", 3): 1}  # each alone in its own group


# --- item 5: system type --------------------------------------------------------------


def test_system_type_is_declared_never_guessed(tmp_path: Path) -> None:
    run = make_run(tmp_path / "r", {"whisper": ArmData(rows(1)), "vendor": ArmData(rows(2))})
    out = tmp_path / "lb"
    argv = ["leaderboard", str(run), "--out", str(out), "--quiet"]
    assert main([*argv, "--system-type", "vendor=API"]) == 0
    md = (out / "leaderboard.md").read_text("utf-8")
    assert "| whisper | undeclared | 16.67% (#1) |" in md
    assert "| vendor | api | 33.33% (#2) |" in md
    by = {r["system"]: r for r in csv_rows(out / "leaderboard.csv")}
    assert (by["vendor"]["system_type"], by["vendor"]["system_type_source"]) == (
        "api",
        "--system-type",
    )
    assert (by["whisper"]["system_type"], by["whisper"]["system_type_source"]) == (
        "undeclared",
        "",
    )
    html = (out / "leaderboard.html").read_text("utf-8")
    assert '<option value="api">api</option>' in html


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("vendor", "is not NAME=TYPE"),
        ("=open", "is not NAME=TYPE"),
        ("vendor=free", "is not one of open, open-weights, api, closed"),
        ("nobody=open", "which is no system on this board"),
        ("<script>|=open", "which is no system on this board"),
        ("x" * 100_000 + "=open", "which is no system on this board"),
        ("vendor=open vendor=api", "names 'vendor' twice"),
        ("vendor=open\x00", "is not one of"),
    ],
)
def test_bad_system_type_flags_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, message: str
) -> None:
    run = make_run(tmp_path / "r", {"vendor": ArmData(rows(1))})
    argv = ["leaderboard", str(run), "--out", str(tmp_path / "lb")]
    for one in flag.split(" "):
        argv += ["--system-type", one]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "lb").exists()


def test_a_flag_contradicting_the_arm_declaration_is_refused(tmp_path: Path) -> None:
    run = make_run(tmp_path / "r", {"vendor": ArmData(rows(1))})
    path = run / "results.json"
    results = json.loads(path.read_text("utf-8"))
    results["arms"]["vendor"]["model"]["extra"]["system_type"] = "closed"
    path.write_text(json.dumps(results), "utf-8")
    board = build_leaderboard([load_run(run)])
    assert (board.entries[0].system_type, board.entries[0].system_type_source) == (
        "closed",
        "the model record",
    )
    assert build_leaderboard([load_run(run)], system_types={"vendor": "closed"}).entries
    with pytest.raises(EarmarkError, match="contradicts the arm's own declaration closed"):
        build_leaderboard([load_run(run)], system_types={"vendor": "open"})


# --- item 6: mean over corpora, RTFx -------------------------------------------------


def test_mean_over_corpora_is_the_macro_mean_of_full_coverage_systems(tmp_path: Path) -> None:
    cv = make_run(
        tmp_path / "cv",
        {"s1": ArmData(rows(1)), "s2": ArmData(rows(2)), "s3": ArmData(rows(0))},
        dataset="common-voice",
    )
    fl = make_run(
        tmp_path / "fl",
        {"s1": ArmData(rows(3, n=2)), "s2": ArmData(rows(2, n=2))},
        dataset="fleurs",
        manifest_sha="f" * 64,
    )
    written = write_leaderboard([cv, fl], tmp_path / "lb")
    data = json.loads(written["json"].read_text("utf-8"))
    means = {m["system"]: m for m in data["mean_over_corpora"]["rows"]}
    # s1: (1/6 + 3/6) / 2 = 1/3 (pooled over rows it would be (4 + 6) / 36 = 10/36).
    assert means["s1"]["value"] == pytest.approx(1 / 3, abs=1e-15)
    assert means["s2"]["value"] == pytest.approx(1 / 3, abs=1e-15)
    assert (means["s3"]["value"], means["s3"]["reason"]) == (None, "ranked in 1 of 2 WER columns")
    assert "macro mean" in data["mean_over_corpora"]["rule"]
    md = written["md"].read_text("utf-8")
    assert "| mean WER over 2 columns (macro) |" in md
    assert "| s3 | undeclared | 0.00% (#1) |  | — (ranked in 1 of 2 WER columns) |" in md
    by = {(r["system"], r["corpus"]): r for r in csv_rows(written["csv"])}
    assert float(by[("s1", "fleurs")]["mean_over_corpora"]) == pytest.approx(1 / 3, abs=1e-15)
    assert by[("s3", "common-voice")]["mean_over_corpora"] == ""
    assert by[("s3", "common-voice")]["mean_over_corpora_note"] == "ranked in 1 of 2 WER columns"
    assert "mean WER over 2 columns (macro)" in written["html"].read_text("utf-8")


def test_a_system_whose_model_changed_between_corpora_gets_no_mean(tmp_path: Path) -> None:
    a = make_run(tmp_path / "a", {"s": ArmData(rows(1))})
    b = make_run(
        tmp_path / "b",
        {"s": ArmData(rows(1), revision="sha256:" + "9" * 64)},
        manifest_sha="b" * 64,
    )
    board = build_leaderboard([load_run(a), load_run(b)])
    assert board.mean_of("s", "wer") is not None
    mean = board.mean_of("s", "wer")
    assert mean is not None and mean.value is None
    assert mean.reason == "the columns' figures come from different model revisions"


def test_rtfx_is_audio_seconds_per_processing_second(tmp_path: Path) -> None:
    run = make_run(
        tmp_path / "r",
        {
            "quick": ArmData(rows(1), rtf=0.25),
            "saved": ArmData(rows(1), rtf=0.0),
            "unknown": ArmData(rows(1), rtf=None),
        },
    )
    written = write_leaderboard([run], tmp_path / "lb")
    by = {r["system"]: r for r in csv_rows(written["csv"])}
    assert (by["quick"]["rtfx"], by["quick"]["rtfx_note"]) == ("4.0", "")  # the exact float
    assert (by["saved"]["rtfx"], by["saved"]["rtfx_note"]) == (
        "",
        "not measured: no decode time recorded (RTF 0)",
    )
    assert by["unknown"]["rtfx_note"] == "not measured: no real-time factor recorded"
    entries = json.loads(written["json"].read_text("utf-8"))["entries"]
    assert {e["system"]: e["rtfx"] for e in entries} == {
        "quick": 4.0,
        "saved": None,
        "unknown": None,
    }
    md = written["md"].read_text("utf-8")
    assert "| 0.250 | 4.00 |" in md and "| RTF | RTFx |" in md
    assert 'data-key="rtfx">RTFx</button>' in written["html"].read_text("utf-8")


# --- hostile names in the new fields ---------------------------------------------------

EVIL = "<script>alert(1)</script>|x"


def test_hostile_model_and_corpus_names_are_escaped(tmp_path: Path) -> None:
    a = make_run(tmp_path / "a", {EVIL: ArmData(rows(1))}, dataset=EVIL)
    b = make_run(tmp_path / "b", {EVIL: ArmData(rows(2))}, dataset=EVIL, manifest_sha="b" * 64)
    results = json.loads((a / "results.json").read_text("utf-8"))
    results["arms"][EVIL]["model"]["extra"]["architecture"] = EVIL
    (a / "results.json").write_text(json.dumps(results), "utf-8")
    written = write_leaderboard([a, b], tmp_path / "lb", system_types={EVIL: "open"})
    md = written["md"].read_text("utf-8")
    assert "<script>" not in md
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\|x" in md
    header = md.split("## Systems × corpora", 1)[1].splitlines()[2]
    assert header.count(" | ") == 4  # system, type, two corpora, the mean: no stray cell
    html = written["html"].read_text("utf-8")
    body = html.split('<script type="application/json"', 1)[0]
    assert "<script>alert" not in body and "&lt;script&gt;alert(1)&lt;/script&gt;|x" in body
    data = html.split('id="board-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data and json.loads(data)["rows"][0]["system"] == EVIL
    rows_csv = csv_rows(written["csv"])
    assert {r["system"] for r in rows_csv} == {EVIL} and {r["corpus"] for r in rows_csv} == {EVIL}
