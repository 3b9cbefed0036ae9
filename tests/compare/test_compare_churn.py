"""Hand-computed churn, WER vs the reference arm, WER vs humans, pairing and Holm."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compare_fixtures import arm_file

from earmark.cli import main
from earmark.file_comparison import compare
from earmark.stats.paired_tests import holm_adjust

REFS = {"u1": "a b c d", "u2": "e f g h", "u3": "i j k l", "u4": "m n o p"}


@pytest.fixture()
def two_arms(tmp_path: Path) -> list[str]:
    a = arm_file(tmp_path, "A", {"u1": "a b c d", "u2": "e f x h", "u3": "i j k"}, REFS)
    b = arm_file(
        tmp_path, "B", {"u1": "a b c d", "u2": "e f g h", "u3": "i j k l m", "u4": "m n"}, REFS
    )
    return [a, b]


def test_hand_computed_churn_and_wer(two_arms: list[str]) -> None:
    r = compare(two_arms, normalizer="none", reference="A", resamples=200, seed=3, jobs=1).to_dict()
    assert r["n_shared"] == 3
    # u4 only in B: listed with the arm whose row was dropped, never silently.
    assert r["unpaired"] == [
        {"arm": "B", "id": "u4", "repeat": 0, "reason": "absent from arm(s) A"}
    ]
    b = r["arms"]["B"]
    assert b["exact_match_vs_reference"]["value"] == pytest.approx(1 / 3)
    assert (b["exact_match_vs_reference"]["matches"], b["exact_match_vs_reference"]["n"]) == (1, 3)
    lo, hi = b["exact_match_vs_reference"]["ci95"]
    assert 0 <= lo <= 1 / 3 <= hi <= 1
    assert b["differs_from_reference"] == ["u2", "u3"]
    # vs A's text: u1 0/4, u2 1 sub/4, u3 2 ins/3 -> 3/11.
    wer_ref = b["vs_reference_arm"]["wer"]
    assert wer_ref["value"] == pytest.approx(3 / 11)
    assert (wer_ref["substitutions"], wer_ref["deletions"], wer_ref["insertions"]) == (1, 0, 2)
    assert wer_ref["ref_units"] == 11
    # vs humans: A has 1 sub + 1 del of 12, B 1 ins of 12.
    assert r["arms"]["A"]["vs_human"]["wer"]["value"] == pytest.approx(2 / 12)
    assert b["vs_human"]["wer"]["value"] == pytest.approx(1 / 12)
    # The reference arm against itself: exact 1.0, WER 0.
    a = r["arms"]["A"]
    assert a["exact_match_vs_reference"]["value"] == 1.0
    assert a["vs_reference_arm"]["wer"]["value"] == 0.0
    (overall_wer,) = [p for p in r["pairs"] if p["language"] is None and p["metric"] == "wer"]
    assert overall_wer["difference"] == pytest.approx(1 / 12 - 2 / 12)
    assert overall_wer["reference_value"] == pytest.approx(2 / 12)
    assert overall_wer["challenger_value"] == pytest.approx(1 / 12)
    # One clip differs (B better): sign test p = 1 with n = 1.
    assert overall_wer["sign_test_p"] == 1.0
    assert overall_wer["tests"]["challenger_fewer_errors"] == 1
    assert overall_wer["p_holm"] == overall_wer["wilcoxon_p"]  # one challenger: no Holm
    assert overall_wer["holm_family_size"] == 1


def test_missing_hypothesis_never_matches(tmp_path: Path) -> None:
    a = arm_file(tmp_path, "A", {"u1": None, "u2": "e f g h"}, REFS)
    b = arm_file(tmp_path, "B", {"u1": None, "u2": "e f g h"}, REFS)
    r = compare([a, b], normalizer="none", resamples=50, jobs=1).to_dict()
    assert r["arms"]["B"]["exact_match_vs_reference"]["matches"] == 1
    assert r["arms"]["A"]["exact_match_vs_reference"]["value"] == 0.5
    # A missing hypothesis is all deletions against the human reference.
    assert r["arms"]["B"]["vs_human"]["wer"]["deletions"] == 4


def test_identical_arms(tmp_path: Path) -> None:
    hyps = {"u1": "a b x d", "u2": "e f g", "u3": "i j k l l"}
    a = arm_file(tmp_path, "A", hyps, REFS)
    b = arm_file(tmp_path, "B", hyps, REFS)
    r = compare([a, b], normalizer="crude-v1", resamples=100, jobs=1).to_dict()
    assert r["arms"]["B"]["exact_match_vs_reference"]["value"] == 1.0
    assert r["arms"]["B"]["differs_from_reference"] == []
    for pair in r["pairs"]:
        assert pair["difference"] == 0.0
        assert pair["ci95"] == [0.0, 0.0]
        assert pair["sign_test_p"] == 1.0
        assert pair["wilcoxon_p"] == 1.0
        assert pair["share_tied"] == 1.0
        assert pair["share_challenger_better"] == 0.0


def test_human_reference_mismatch_is_unpaired(tmp_path: Path) -> None:
    a = arm_file(tmp_path, "A", {"u1": "a", "u2": "e"}, REFS)
    other = dict(REFS, u2="something else")
    b = arm_file(tmp_path, "B", {"u1": "a", "u2": "e"}, other)
    r = compare([a, b], normalizer="none", resamples=10, jobs=1).to_dict()
    assert r["n_shared"] == 1
    reasons = {(u["arm"], u["id"]): u["reason"] for u in r["unpaired"]}
    assert set(reasons) == {("A", "u2"), ("B", "u2")}
    assert "reference text differs" in reasons[("B", "u2")]


def test_holm_only_with_more_than_two_arms(tmp_path: Path) -> None:
    refs = {f"u{i}": "a b c d e" for i in range(30)}
    base = {k: "a b c d e" for k in refs}
    worse = {k: ("a b c" if i % 2 else "a b c d e") for i, k in enumerate(refs)}
    much_worse = {k: ("a" if i % 3 else "a b c d") for i, k in enumerate(refs)}
    files = [
        arm_file(tmp_path, "A", base, refs),
        arm_file(tmp_path, "B", worse, refs),
        arm_file(tmp_path, "C", much_worse, refs),
    ]
    r3 = compare(files, normalizer="none", resamples=200, jobs=1).to_dict()
    wer = [p for p in r3["pairs"] if p["language"] is None and p["metric"] == "wer"]
    assert [p["challenger"] for p in wer] == ["B", "C"]
    raw = [p["wilcoxon_p"] for p in wer]
    assert [p["p_holm"] for p in wer] == holm_adjust(raw)
    assert [p["sign_test_p_holm"] for p in wer] == holm_adjust([p["sign_test_p"] for p in wer])
    assert all(p["holm_family_size"] == 2 for p in wer)
    assert all(p["p_holm"] >= p["wilcoxon_p"] for p in wer)
    r2 = compare(files[:2], normalizer="none", resamples=200, jobs=1).to_dict()
    (pair,) = [p for p in r2["pairs"] if p["language"] is None and p["metric"] == "wer"]
    assert pair["p_holm"] == pair["wilcoxon_p"] == raw[0]
    # B loses on 15 of 30 clips and wins on none: the sign test says so.
    assert pair["sign_test_p"] == pytest.approx(2 * 0.5**15)
    assert pair["share_challenger_better"] == 0.0


def test_cli_and_api_identical(tmp_path: Path, two_arms: list[str]) -> None:
    out = tmp_path / "out"
    rc = main(
        [
            "compare",
            *two_arms,
            "--reference",
            "A",
            "--normalizer",
            "none",
            "--bootstrap",
            "300",
            "--seed",
            "5",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    from_cli = json.loads((out / "compare.json").read_text("utf-8"))
    from_api = compare(two_arms, normalizer="none", reference="A", resamples=300, seed=5).to_dict()
    from_cli.pop("created")
    from_api.pop("created")
    assert from_cli == json.loads(json.dumps(from_api))
    assert "N = 3" in (out / "compare.md").read_text("utf-8")


def test_jobs_do_not_change_numbers(two_arms: list[str]) -> None:
    one = compare(two_arms, normalizer="crude-v1", resamples=300, jobs=1).to_dict()
    two = compare(two_arms, normalizer="crude-v1", resamples=300, jobs=2).to_dict()
    one.pop("created")
    two.pop("created")
    assert one == two


def test_macro_is_labelled(two_arms: list[str]) -> None:
    r = compare(
        two_arms, normalizer="none", reference="A", aggregate="macro", resamples=50
    ).to_dict()
    wer = r["arms"]["A"]["vs_human"]["wer"]
    assert wer["aggregate"] == "macro" and r["aggregate"] == "macro"
    assert wer["value"] == pytest.approx((0 + 1 / 4 + 1 / 4) / 3)


def test_cli_prints_n(
    two_arms: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(
        [
            "compare",
            *two_arms,
            "--normalizer",
            "none",
            "--bootstrap",
            "20",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 0
    assert "N = 3" in capsys.readouterr().out


def test_unknown_reference_is_a_user_error(two_arms: list[str], tmp_path: Path) -> None:
    rc = main(
        [
            "compare",
            *two_arms,
            "--reference",
            "Z",
            "--normalizer",
            "none",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 2
