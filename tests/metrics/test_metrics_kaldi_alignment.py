"""Kaldi's split of the errors (`compute-wer`'s `LevenshteinEditDistance` tie rule):
hand-computed tie cases, the laws every alignment keeps, and kaldialign (which shares the
rule: checked on 20,000 tie-heavy pairs while writing this) as the oracle."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.metrics.alignment import count_errors
from earmark.metrics.counts import ErrorCounts
from earmark.metrics.kaldi_alignment import align_kaldi, count_errors_kaldi
from earmark.metrics.sclite_alignment import align_sclite


def kinds(ref: str, hyp: str) -> list[str]:
    return [op.kind for op in align_kaldi(ref.split(), hyp.split()).ops]


def test_hand_computed_ties() -> None:
    # ref `a b` / hyp `b c`: cell (b, b) is a match at cost 1, equal to deleting `a` then
    # matching; the last cell ties sub (1+1=2) with ins (1+1=2): the insertion wins.
    assert kinds("a b", "b c") == ["delete", "equal", "insert"]
    # ref `a a` / hyp `a`: at cell (2, 1) the diagonal (1 + 0) ties the deletion (0 + 1):
    # the deletion wins, so the first `a` is matched and the second deleted.
    assert kinds("a a", "a") == ["equal", "delete"]
    # ref `a` / hyp `a a`: at cell (1, 2) the diagonal (1 + 0) ties the insertion (0 + 1).
    assert kinds("a", "a a") == ["equal", "insert"]
    # ref `a b` / hyp `b a`: earmark inserts `b`, matches `a`, deletes `b`. Kaldi: at the
    # last cell the diagonal, the deletion and the insertion all cost 2, so the insertion
    # of `a` wins; then (2, 1) matches `b` at cost 1, and `a` is deleted.
    assert kinds("a b", "b a") == ["delete", "equal", "insert"]
    # ref `x y` / hyp `z w`: two substitutions are strictly cheaper than any indel path.
    assert kinds("x y", "z w") == ["substitute", "substitute"]
    # Where the three rules part: ref `a b a` / hyp `b a b`.
    ref, hyp = "a b a".split(), "b a b".split()
    assert count_errors_kaldi(ref, hyp) == ErrorCounts(0, 1, 1, 2)
    assert count_errors(ref, hyp) == ErrorCounts(0, 1, 1, 2)
    assert count_errors_kaldi(["a", "b"], ["b", "c"]) == ErrorCounts(0, 1, 1, 1)
    assert count_errors(["a", "b"], ["b", "c"]) == ErrorCounts(2, 0, 0, 0)
    assert align_sclite(["a", "b"], ["b", "c"]).counts == ErrorCounts(0, 1, 1, 1)


def test_edges() -> None:
    assert kinds("", "") == []
    assert kinds("a b", "") == ["delete", "delete"]
    assert kinds("", "a b") == ["insert", "insert"]
    assert count_errors_kaldi([1, 2, 3], [1, 3]) == ErrorCounts(0, 1, 0, 2)


def tie_pairs(n: int, seed: int) -> list[tuple[list[str], list[str]]]:
    rng = random.Random(seed)
    return [
        (
            [rng.choice("ab") for _ in range(rng.randint(0, 9))],
            [rng.choice("abc") for _ in range(rng.randint(0, 9))],
        )
        for _ in range(n)
    ]


def test_laws_and_totals_agree_with_earmark() -> None:
    for ref, hyp in tie_pairs(2000, 3):
        done = align_kaldi(ref, hyp)
        c = done.counts
        assert c.substitutions + c.deletions + c.hits == len(ref)
        assert c.substitutions + c.insertions + c.hits == len(hyp)
        assert c.errors == count_errors(ref, hyp).errors  # the split differs, not the total
        assert [op.ref for op in done.ops if op.ref is not None] == ref
        assert [op.hyp for op in done.ops if op.hyp is not None] == hyp
        assert count_errors_kaldi(ref, hyp) == c


def test_split_equals_kaldialign() -> None:
    kaldialign = pytest.importorskip("kaldialign", reason="kaldialign is the Kaldi oracle")
    differs_from_earmark = 0
    for ref, hyp in tie_pairs(3000, 4):
        c = count_errors_kaldi(ref, hyp)
        theirs = kaldialign.edit_distance(ref, hyp)
        assert (c.substitutions, c.deletions, c.insertions) == (
            theirs["sub"],
            theirs["del"],
            theirs["ins"],
        ), (ref, hyp)
        differs_from_earmark += c != count_errors(ref, hyp)
    assert differs_from_earmark > 50  # tie-heavy data: the rules really part


def test_score_alignment_kaldi_reports_compute_wer_split(tmp_path: Path) -> None:
    kaldialign = pytest.importorskip("kaldialign", reason="kaldialign is the Kaldi oracle")
    pairs = tie_pairs(40, 5)
    (tmp_path / "ref.trn").write_text(
        "".join(f"{' '.join(r)} (s{k % 3}-u{k})\n" for k, (r, _) in enumerate(pairs)), "utf-8"
    )
    (tmp_path / "hyp.trn").write_text(
        "".join(f"{' '.join(h)} (s{k % 3}-u{k})\n" for k, (_, h) in enumerate(pairs)), "utf-8"
    )
    score_predictions(
        ScoreInputs(tmp_path / "hyp.trn", refs=tmp_path / "ref.trn"),
        ScoreFigures(normalizer="none", resamples=0, sclite_reports=True, alignment="kaldi"),
        out_dir=tmp_path / "out",
    )
    block = json.loads((tmp_path / "out" / "results.json").read_text("utf-8"))["arms"]["hyp"][
        "sclite"
    ]
    assert block["alignment"] == "kaldi"
    want = [0, 0, 0]
    for ref, hyp in pairs:
        d = kaldialign.edit_distance(ref, hyp)
        want = [want[0] + d["sub"], want[1] + d["del"], want[2] + d["ins"]]
    total = block["total"]
    assert [total["substitutions"], total["deletions"], total["insertions"]] == want
