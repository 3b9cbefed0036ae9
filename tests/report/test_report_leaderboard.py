"""Leaderboard ranking: competition ranks, ties, null values, unverifiable runs last."""

from __future__ import annotations

import csv
import io
import json

from hypothesis import given
from hypothesis import strategies as st
from report_builders import ArmData, make_run

from earmark.cli import main
from earmark.render.leaderboard import write_leaderboard
from earmark.render.leaderboard_ranking import build_leaderboard, competition_ranks
from earmark.render.run_directory import load_run

REF = "the cat sat on the mat"


def en_rows(wrong_words: int, n: int = 10) -> list[tuple[str, str, str, str]]:
    """n rows of six words, the first `wrong_words` substituted: WER = wrong_words / 6."""
    words = REF.split()
    hyp = " ".join(["zzz"] * wrong_words + words[wrong_words:])
    return [(f"u{i}", "en", REF, hyp) for i in range(n)]


def test_competition_ranks_hand_cases():
    assert competition_ranks([0.3, 0.1, 0.2, 0.2]) == [4, 1, 2, 2]
    assert competition_ranks([0.1, None, 0.1]) == [1, None, 1]
    # Unverifiable rows come after every verifiable one, however good.
    assert competition_ranks([0.05, 0.2, 0.3, 0.05], [False, True, True, False]) == [3, 1, 2, 3]


@given(st.lists(st.one_of(st.none(), st.integers(0, 5).map(lambda k: k / 10)), max_size=12))
def test_competition_rank_laws(values):
    ranks = competition_ranks(values)
    for v, r in zip(values, ranks, strict=True):
        if v is None:
            assert r is None
        else:  # rank = 1 + number of strictly better values
            assert r == 1 + sum(1 for w in values if w is not None and w < v)


def test_ties_share_a_rank_and_unverifiable_run_ranks_last(tmp_path):
    a = make_run(
        tmp_path / "run-a",
        {"alpha": ArmData(en_rows(1)), "beta": ArmData(en_rows(1)), "gamma": ArmData(en_rows(3))},
    )
    # The best WER of all, but without provenance.json: unverifiable.
    b = make_run(tmp_path / "run-b", {"delta": ArmData(en_rows(0))}, write_provenance=False)
    # Verifiable run, but one arm has no model revision or hashes.
    c = make_run(tmp_path / "run-c", {"eps": ArmData(en_rows(2), revision=None)})
    board = build_leaderboard([load_run(p) for p in (a, b, c)])
    ranks = {e.system: (e.rank, e.verifiable, e.value) for e in board.entries}
    assert ranks["alpha"] == (1, True, 1 / 6)
    assert ranks["beta"] == (1, True, 1 / 6)
    assert ranks["gamma"] == (3, True, 3 / 6)
    assert ranks["delta"][:2] == (4, False) and ranks["delta"][2] == 0.0
    assert ranks["eps"][:2] == (5, False)
    order = [e.system for e in board.entries]
    assert order == ["alpha", "beta", "gamma", "delta", "eps"]
    delta = next(e for e in board.entries if e.system == "delta")
    assert "provenance.json" in delta.missing[0]


def test_different_corpora_rank_separately_and_files_are_written(tmp_path):
    a = make_run(
        tmp_path / "cv",
        {"sys1": ArmData(en_rows(1)), "sys2": ArmData(en_rows(2))},
        dataset="common-voice",
    )
    b = make_run(
        tmp_path / "fl",
        {"sys1": ArmData(en_rows(3)), "sys2": ArmData(en_rows(2))},
        dataset="fleurs",
        manifest_sha="f" * 64,
    )
    written = write_leaderboard([a, b, a], tmp_path / "lb")
    assert sorted(written) == ["csv", "html", "json", "md"]
    data = json.loads(written["json"].read_text("utf-8"))
    assert data["schema"] == "earmark.leaderboard/1"
    got = {(e["corpus"], e["system"]): e["rank"] for e in data["entries"]}
    assert got == {
        ("common-voice", "sys1"): 1,
        ("common-voice", "sys2"): 2,
        ("fleurs", "sys1"): 2,
        ("fleurs", "sys2"): 1,
    }
    rows = list(csv.DictReader(io.StringIO(written["csv"].read_text("utf-8"))))
    assert len(rows) == 4  # the repeated run directory is read once
    first = rows[0]
    assert first["metric"] == "wer" and float(first["value"]) == 1 / 6
    assert float(first["wer_ci_low"]) <= 1 / 6 <= float(first["wer_ci_high"])
    assert first["rtf"] == "0.5" and first["peak_rss_bytes"] == str(500 * 2**20)
    md = written["md"].read_text("utf-8")
    # Declared type (none here), a cell per corpus, then the macro mean (1/6 + 3/6) / 2.
    assert "| sys1 | undeclared | 16.67% (#1) | 50.00% (#2) | 33.33% |" in md
    html = written["html"].read_text("utf-8")
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "Content-Security-Policy" in html


def test_cli_leaderboard_marks_unverifiable(tmp_path, capsys):
    a = make_run(tmp_path / "a", {"good": ArmData(en_rows(2))})
    b = make_run(tmp_path / "b", {"nohash": ArmData(en_rows(1))}, write_provenance=False)
    assert main(["leaderboard", str(a), str(b), "--out", str(tmp_path / "lb")]) == 0
    out = capsys.readouterr().out
    assert "nohash ⚠ unverifiable" in out
    assert "| 1 | good |" in out and "| 2 | nohash ⚠ unverifiable |" in out
    assert 'class="badge bad">⚠ unverifiable' in (tmp_path / "lb" / "leaderboard.html").read_text()
