"""`--glm` in the headline: every view's word counts come from the GLM-aware alignment.

Hand-computed cases where an alternate spelling or an optional filler turns an error
into a correct word, `sctk sclite -D` (references with the GLM's alternates written in
as sclite markup) as the oracle for Corr/Sub/Del/Ins, and byte-identical results without
a GLM.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from earmark.cli import main
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.metrics.alignment import EditTally
from earmark.scoring.glm import GLM_VERSION, Glm, parse_glm, read_glm
from sclite_oracle import sclite_rsum

SCTK = shutil.which("sctk")
needs_sctk = pytest.mark.skipif(
    SCTK is None, reason="sctk is not installed (apt-get install -y sctk): no sclite oracle"
)
COUNTS = ("hits", "substitutions", "deletions", "insertions", "ref_units")


def write_pairs(folder: Path, pairs: list[tuple[str, str]], glm: str) -> Path:
    """ref.trn / hyp.trn (speaker `s<k % 3>`) and rules.glm in `folder`."""
    refs = [f"{r} (s{k % 3}-u{k:03d})" for k, (r, _) in enumerate(pairs)]
    hyps = [f"{h} (s{k % 3}-u{k:03d})" for k, (_, h) in enumerate(pairs)]
    (folder / "ref.trn").write_text("\n".join(refs) + "\n", "utf-8")
    (folder / "hyp.trn").write_text("\n".join(hyps) + "\n", "utf-8")
    (folder / "rules.glm").write_text(glm, "utf-8")
    return folder / "rules.glm"


def score(folder: Path, normalizer: str = "none", **options: Any) -> dict[str, Any]:
    results = score_predictions(
        ScoreInputs(folder / "hyp.trn", refs=folder / "ref.trn"),
        ScoreFigures(normalizer=normalizer, resamples=0, **options),
    ).to_dict()
    arm: dict[str, Any] = results["arms"]["hyp"]  # type: ignore[assignment]
    return arm


def counts(metric: dict[str, Any]) -> list[int]:
    return [metric[k] for k in COUNTS]


# ------------------------------------------------------------------ by hand

HAND = [
    ("i said ok then", "i said okay then"),  # okay: S without the GLM, C with it
    ("the uh cat sat", "the cat sat"),  # (uh) left out: D without, C (still in N) with
    ("well um we go", "well we go"),  # { um / @ }: D without, not counted with
    ("a uh b", "a um b"),  # (uh) vs um: S either way (drop 2 + insert 3 > sub 4)
]
RULES = "{ ok / okay }\n(uh)\n{ um / @ }\n"


def test_alternate_and_optional_words_turn_errors_into_correct(tmp_path: Path) -> None:
    glm = write_pairs(tmp_path, HAND, RULES)
    plain = score(tmp_path)["overall"]["views"]["raw"]["wer"]
    # 4+4+4+3 = 15 reference words: ok->okay S, uh D, um D, uh->um S.
    assert counts(plain) == [11, 2, 2, 0, 15]
    arm = score(tmp_path, glm=glm)
    wer = arm["overall"]["views"]["raw"]["wer"]
    # okay matches ok (C); the missing (uh) is C and stays in N; the skipped um is not
    # counted at all (N 15 -> 14); uh->um is still a substitution.
    assert counts(wer) == [13, 1, 0, 0, 14]
    assert wer["value"] == pytest.approx(1 / 14)
    # Character units are not touched by word rules.
    assert (
        arm["overall"]["views"]["raw"]["cer"] == score(tmp_path)["overall"]["views"]["raw"]["cer"]
    )
    assert arm["glm"]["name"] == "rules.glm"
    assert arm["glm"]["version"] == GLM_VERSION == "glm-v1"
    assert arm["glm"]["sha256"] == read_glm(glm).sha256
    assert "word units of every view" in arm["glm"]["applies_to"]


def test_every_word_view_and_the_per_row_records_use_the_glm(tmp_path: Path) -> None:
    # crude-v1 has two views (raw, normalized); the GLM acts on both, on the tokens of
    # each: row 1's raw "ok" matches "okay" there too, row 2's raw "OK," does not.
    pairs = [("I said ok then", "I said okay then"), ("So OK, go", "so okay go")]
    glm = write_pairs(tmp_path, pairs, "{ ok / okay }\n")
    results = score_predictions(
        ScoreInputs(tmp_path / "hyp.trn", refs=tmp_path / "ref.trn"),
        ScoreFigures(normalizer="crude-v1", resamples=0, glm=glm),
        out_dir=tmp_path / "out",
    ).to_dict()
    views = results["arms"]["hyp"]["overall"]["views"]
    assert counts(views["normalized"]["wer"]) == [7, 0, 0, 0, 7]
    assert counts(views["raw"]["wer"]) == [5, 2, 0, 0, 7]  # So/so and OK,/okay
    without = score(tmp_path, normalizer="crude-v1")["overall"]["views"]
    assert counts(without["normalized"]["wer"]) == [5, 2, 0, 0, 7]
    assert counts(without["raw"]["wer"]) == [4, 3, 0, 0, 7]
    rows = [
        json.loads(line)
        for line in (tmp_path / "out" / "predictions.jsonl").read_text("utf-8").splitlines()
    ]
    assert [r["views"]["normalized"]["wer"]["hits"] for r in rows] == [4, 3]
    assert [r["views"]["raw"]["wer"]["substitutions"] for r in rows] == [0, 2]


def test_error_analysis_tallies_come_from_the_same_alignment() -> None:
    glm = parse_glm("{ ok / okay }\n(uh)\n")
    tallies: list[EditTally | None] = [EditTally(), None]
    got = glm.count_pairs([("ok uh cat", "okay dog"), ("x", "y")], tallies=tallies)
    assert got.tolist() == [[1, 0, 0, 2], [1, 0, 0, 0]]
    tally = tallies[0]
    assert tally is not None
    assert dict(tally.substitutions) == {("cat", "dog"): 1}
    assert not tally.deletions and not tally.insertions


def test_cli_equals_api_and_no_sclite_reports_needed(tmp_path: Path) -> None:
    glm = write_pairs(tmp_path, HAND, RULES)
    out = tmp_path / "out"
    code = main(
        ["score", str(tmp_path / "hyp.trn"), "--refs", str(tmp_path / "ref.trn")]
        + ["--normalizer", "none", "--glm", str(glm), "--bootstrap", "0", "--quiet"]
        + ["--out", str(out)]
    )
    assert code == 0
    cli = json.loads((out / "results.json").read_text("utf-8"))["arms"]["hyp"]
    api = score(tmp_path, glm=glm)
    assert cli["overall"] == api["overall"]
    # The output folder keeps the rules byte for byte, named in results, so the folder
    # alone can re-derive its figures.
    assert cli["glm"] == {**api["glm"], "file": "rules.glm"}
    copy = (out / "rules.glm").read_bytes()
    assert copy == glm.read_bytes()
    assert hashlib.sha256(copy).hexdigest() == cli["glm"]["sha256"]
    assert "rules.glm" in (out / "artefacts.sha256").read_text("utf-8")


def test_without_a_glm_results_are_unchanged(tmp_path: Path) -> None:
    # An empty rules file changes no count (the slot DP at sclite's weights can split
    # S/D/I differently from earmark's alignment, so compare on pairs without ties).
    write_pairs(tmp_path, HAND, "")
    plain = score(tmp_path)
    assert "glm" not in plain
    with_empty = score(tmp_path, glm=tmp_path / "rules.glm")
    assert with_empty["overall"]["views"] == plain["overall"]["views"]


# ------------------------------------------------------------------ sclite oracle


def markup(word: str, glm: Glm) -> str:
    """The sclite reference markup that means what the GLM says about `word`."""
    slot = glm.slot(word)
    if slot.optional:
        return f"({word})"
    if len(slot.accepts) == 1 and not slot.skippable:
        return word
    return "{ " + " / ".join([*slot.accepts, *(["@"] if slot.skippable else [])]) + " }"


def sclite_rows(folder: Path) -> dict[int, tuple[int, int, int, int]]:
    """row number -> (C, S, D, I) from `sctk sclite -D -o pra` on markup.trn / hyp.trn."""
    assert SCTK is not None
    out = subprocess.run(
        [SCTK, "sclite", "-r", "markup.trn", "trn", "-h", "hyp.trn", "trn", "-i", "rm", "-D"]
        + ["-o", "pra", "stdout"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = {}
    for block in out.split("id: ")[1:]:
        number = int(block.split(")", 1)[0].rsplit("-u", 1)[1])
        (scores,) = [line for line in block.splitlines() if line.startswith("Scores:")]
        c, s, d, i = (int(v) for v in scores.split(")")[-1].split())
        rows[number] = (c, s, d, i)
    return rows


def weighted_cost(c: int, s: int, d: int, i: int, hyp_words: int) -> int:
    """sclite's cost of a split, `@` skips (0.001 each) left out: an optional word left
    out is Correct without a hypothesis word, so such words number C - (hyp - S - I)."""
    return 4 * s + 3 * (d + i) + 2 * (c - (hyp_words - s - i))


@needs_sctk
def test_headline_counts_equal_sclites_on_hand_pairs(tmp_path: Path) -> None:
    glm = parse_glm(RULES)
    path = write_pairs(tmp_path, HAND, RULES)
    (tmp_path / "markup.trn").write_text(
        "".join(
            f"{' '.join(markup(w, glm) for w in ref.split())} (s{k % 3}-u{k:03d})\n"
            for k, (ref, _) in enumerate(HAND)
        ),
        "utf-8",
    )
    oracle = sclite_totals(tmp_path)
    assert oracle["Sum"] == [13, 1, 0, 0, 14]
    assert counts(score(tmp_path, glm=path)["overall"]["views"]["raw"]["wer"]) == oracle["Sum"]


def sclite_totals(folder: Path) -> dict[str, list[int]]:
    """speaker -> [C, S, D, I, # Wrd] from `sctk sclite -D -o rsum` on markup.trn."""
    return {
        k: [c, s, d, i, words]
        for k, (_, words, c, s, d, i) in sclite_rsum(folder, "markup.trn").items()
    }


@needs_sctk
@pytest.mark.parametrize("seed", [5, 6])
def test_headline_counts_agree_with_sclite_on_the_same_markup(tmp_path: Path, seed: int) -> None:
    """Random pairs over an 11-word vocabulary (equal-cost paths abound): every row's
    weighted cost is sclite's, and its C/S/D/I split is sclite's on all but a few rows:
    where two paths tie, sclite's network search may take another (metrics.slot_alignment;
    seed 6 has one such row of 150, seed 5 none, so its totals agree exactly)."""
    rules = "{ a / b }\n{ c / d / e }\n(f)\n{ g / @ }\nh => k\n"
    glm = parse_glm(rules)
    rng = random.Random(seed)
    vocab = "a b c d e f g h k x y".split()
    pairs = []
    for _ in range(150):
        ref = [rng.choice(vocab) for _ in range(rng.randint(1, 9))]
        hyp = [rng.choice(vocab) for _ in range(rng.randint(0, 9))]
        if rng.random() < 0.3:  # near misses too, not only random pairs
            hyp = [w for w in ref if rng.random() < 0.8] + [rng.choice(vocab)]
        pairs.append((" ".join(ref), " ".join(hyp)))
    path = write_pairs(tmp_path, pairs, rules)
    (tmp_path / "markup.trn").write_text(
        "".join(
            f"{' '.join(markup(w, glm) for w in ref.split())} (s{k % 3}-u{k:03d})\n"
            for k, (ref, _) in enumerate(pairs)
        ),
        "utf-8",
    )
    oracle = sclite_rows(tmp_path)
    ours = {k: (h, s, d, i) for k, (s, d, i, h) in enumerate(glm.count_pairs(pairs).tolist())}
    assert oracle.keys() == ours.keys()
    for k, (_, hyp) in enumerate(pairs):
        n_hyp = len(hyp.split())
        assert weighted_cost(*ours[k], n_hyp) == weighted_cost(*oracle[k], n_hyp), pairs[k]
    split_differs = [k for k in ours if ours[k] != oracle[k]]
    assert len(split_differs) == (1 if seed == 6 else 0)
    # The headline is those rows' counts summed, and sclite's totals when no row differs.
    arm = score(tmp_path, glm=path)
    wer = arm["overall"]["views"]["raw"]["wer"]
    summed = [sum(ours[k][col] for k in ours) for col in range(4)]
    assert counts(wer)[:4] == summed
    if not split_differs:
        assert counts(wer) == sclite_totals(tmp_path)["Sum"]
    # and the GLM mattered: without it the counts differ
    assert counts(score(tmp_path)["overall"]["views"]["raw"]["wer"]) != counts(wer)
