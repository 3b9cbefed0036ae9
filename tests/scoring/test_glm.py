"""GLM alternates and optional words, applied during alignment (`metrics.slot_alignment`,
`scoring.glm`), with `sctk sclite -D` as the oracle for trn markup `{ a / b }` / `(uh)`."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.formats.sclite_markup import markup_slots, plain_text
from earmark.formats.trn import pair_trn, read_trn
from earmark.metrics.counts import ErrorCounts
from earmark.metrics.sclite_alignment import align_sclite
from earmark.metrics.slot_alignment import Slot, align_slots
from earmark.scoring.glm import GLM_VERSION, parse_glm, read_glm
from sclite_oracle import sclite_rsum

SCTK = shutil.which("sctk")
needs_sctk = pytest.mark.skipif(
    SCTK is None, reason="sctk is not installed (apt-get install -y sctk): no sclite oracle"
)


def words(*tokens: str) -> list[Slot]:
    return [Slot.word(t) for t in tokens]


# ------------------------------------------------------------------ slot alignment


def test_alternate_spelling_is_a_hit_at_zero_cost() -> None:
    ref = [Slot.word("i"), Slot(("ok", "okay", "o.k.")), Slot.word("then")]
    done = align_slots(ref, ["i", "o.k.", "then"])
    assert done.counts == ErrorCounts(substitutions=0, deletions=0, insertions=0, hits=3)
    assert [op.ref for op in done.ops] == ["i", "o.k.", "then"]  # shown as matched
    wrong = align_slots(ref, ["i", "okey", "then"])
    assert wrong.counts == ErrorCounts(substitutions=1, deletions=0, insertions=0, hits=2)
    assert wrong.ops[1].ref == "ok"  # an unmatched alternation shows its first spelling


def test_optional_word_deleted_is_correct_and_stays_in_n() -> None:
    # sclite -D: a missing (uh) is Correct and counted in # Wrd.
    ref = [Slot.word("the"), Slot(("uh",), optional=True), Slot.word("cat")]
    missing = align_slots(ref, ["the", "cat"])
    assert missing.counts == ErrorCounts(substitutions=0, deletions=0, insertions=0, hits=3)
    assert missing.counts.ref_units == 3
    assert [(op.kind, op.ref, op.hyp) for op in missing.ops][1] == ("equal", "(uh)", None)
    said = align_slots(ref, ["the", "uh", "cat"])
    assert said.counts.hits == 3 and said.counts.errors == 0
    # A non-optional word missing is a deletion.
    assert align_slots(words("the", "uh", "cat"), ["the", "cat"]).counts.deletions == 1


def test_optional_word_costs_sclites_two() -> None:
    # ref "a (uh) b", hyp "a um b": dropping (uh) (2) and inserting um (3) costs 5, more
    # than substituting um for (uh) (4): sclite -D prints `(UH)`/`UM` as S; so do we.
    ref = [Slot.word("a"), Slot(("uh",), optional=True), Slot.word("b")]
    done = align_slots(ref, ["a", "um", "b"])
    assert done.counts == ErrorCounts(substitutions=1, deletions=0, insertions=0, hits=2)
    assert (done.ops[1].ref, done.ops[1].hyp) == ("(uh)", "um")
    # With a cost of 3 (a plain word) the tie rule would pick the same; at 2 an optional
    # word is dropped before a plain one: ref "x (x)", hyp "x" leaves (x) out, Correct.
    two = align_slots([Slot.word("x"), Slot(("x",), optional=True)], ["x"])
    assert two.counts == ErrorCounts(substitutions=0, deletions=0, insertions=0, hits=2)


def test_skippable_slot_left_out_is_not_counted() -> None:
    # `{ um / @ }`: the reference may have nothing there; skipped, it is not in N.
    ref = [Slot.word("a"), Slot(("um",), skippable=True), Slot.word("b")]
    skipped = align_slots(ref, ["a", "b"])
    assert skipped.counts == ErrorCounts(substitutions=0, deletions=0, insertions=0, hits=2)
    assert [op.ref for op in skipped.ops] == ["a", "b"]
    said = align_slots(ref, ["a", "um", "b"])
    assert said.counts.hits == 3


def test_plain_slots_give_sclites_alignment_exactly() -> None:
    rng = random.Random(7)
    vocab = "a b c d e".split()
    for _ in range(300):
        ref = [rng.choice(vocab) for _ in range(rng.randint(0, 8))]
        hyp = [rng.choice(vocab) for _ in range(rng.randint(0, 8))]
        assert align_slots(words(*ref), hyp) == align_sclite(ref, hyp)


# ------------------------------------------------------------------ GLM rules files


def test_glm_rules_parse_into_classes_and_optional_words() -> None:
    glm = parse_glm(
        ";; spellings\n"
        "{ ok / okay / o.k. }\n"
        "colour => color / [ ] __ [ ] ;; NIST's no-context suffix\n"
        "okay => okey\n"  # joins the ok class
        "(uh)\n"
        "{ um / @ }\n"
        "hmm =>\n"
    )
    assert glm.alternates["ok"] == {"ok", "okay", "o.k.", "okey"}
    assert glm.alternates["okey"] == glm.alternates["ok"]
    assert glm.alternates["color"] == {"color", "colour"}
    assert glm.optional == {"uh"}
    assert glm.skippable == {"um", "hmm"}
    assert glm.slot("okay") == Slot(("okay", "o.k.", "ok", "okey"))
    assert glm.slot("uh") == Slot(("uh",), optional=True)
    assert glm.slot("um") == Slot(("um",), skippable=True)
    assert glm.slot("cat") == Slot(("cat",))


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("ok => okay\nnew york => newyork\n", "not one word", 2),
        ("a => b / [ x ] __ [ ]\n", "context", 1),
        (";; c\n\nwhat is this\n", "not a GLM rule", 3),
        ("{ / @ }\n", "no words", 1),
    ],
)
def test_glm_errors_name_the_line(text: str, message: str, line: int) -> None:
    with pytest.raises(EarmarkError, match=message) as info:
        parse_glm(text, source="rules.glm")
    assert (info.value.file, info.value.line) == ("rules.glm", line)


def test_glm_component_records_name_hash_and_version(tmp_path: Path) -> None:
    path = tmp_path / "en.glm"
    data = b"{ ok / okay }\n(uh)\n"
    path.write_bytes(data)
    assert read_glm(path).component == {
        "name": "en.glm",
        "sha256": hashlib.sha256(data).hexdigest(),
        "version": GLM_VERSION,
    }


# ------------------------------------------------------------------ trn markup


def test_markup_slots_and_plain_text() -> None:
    slots = markup_slots("i said { ok / okay } (uh) {um/@} left")
    assert slots == [
        Slot(("i",)),
        Slot(("said",)),
        Slot(("ok", "okay")),
        Slot(("uh",), optional=True),
        Slot(("um",), skippable=True),
        Slot(("left",)),
    ]
    assert plain_text(slots) == "i said ok uh um left"
    with pytest.raises(EarmarkError, match="unbalanced"):
        markup_slots("a { b / c d")
    with pytest.raises(EarmarkError, match="not one word"):
        markup_slots("a { b c / d }")


def test_trn_references_read_markup_hypotheses_refuse_it(tmp_path: Path) -> None:
    (tmp_path / "r.trn").write_text("a { b / c } (uh) d (s-1)\n", "utf-8")
    (tmp_path / "h.trn").write_text("a c d (s-1)\n", "utf-8")
    (ref,) = read_trn(tmp_path / "r.trn", reference=True)
    assert ref.words == ("a", "b", "uh", "d")
    assert ref.markup == "a { b / c } (uh) d"
    (row,) = pair_trn(tmp_path / "h.trn", tmp_path / "r.trn").rows
    assert row.reference == "a b uh d"
    assert row.extra == {"speaker": "s", "reference_markup": "a { b / c } (uh) d"}
    with pytest.raises(EarmarkError, match="alternation"):
        read_trn(tmp_path / "r.trn")  # as a hypothesis


# ------------------------------------------------------------------ end to end, sclite oracle

REF = (
    "i said { ok / okay } (uh) then (um) left (spk1-u1)\n"
    "{ yes / yeah } we go (uh) (spk1-u2)\n"
    "the (uh) cat sat (spk2-u1)\n"
)
HYP = "i said okay uh then left (spk1-u1)\nyep we go (spk1-u2)\nthe dog sat um (spk2-u1)\n"


def speaker_counts(results: dict) -> dict[str, list[int]]:
    (arm,) = results["arms"].values()
    keys = ("sentences", "words", "correct", "substitutions", "deletions", "insertions")
    rows = [*arm["sclite"]["speakers"], arm["sclite"]["total"]]
    return {"total" if r is rows[-1] else r["speaker"]: [r[k] for k in keys] for r in rows}


def sclite_counts(cwd: Path) -> dict[str, list[int]]:
    """speaker -> [# Snt, # Wrd, C, S, D, I] from `sctk sclite -D -o rsum`."""
    return {"total" if k == "Sum" else k: v for k, v in sclite_rsum(cwd).items()}


def score(tmp_path: Path, **options: object) -> dict:
    figures = ScoreFigures(
        normalizer="none",
        sclite_reports=True,
        alignment="sclite",
        resamples=0,
        **options,  # type: ignore[arg-type]
    )
    inputs = ScoreInputs(tmp_path / "hyp.trn", refs=tmp_path / "ref.trn")
    return score_predictions(inputs, figures).to_dict()


def test_markup_counts_by_hand(tmp_path: Path) -> None:
    (tmp_path / "ref.trn").write_text(REF, "utf-8")
    (tmp_path / "hyp.trn").write_text(HYP, "utf-8")
    got = speaker_counts(score(tmp_path))
    # u1: all 7 correct (okay alternate, uh said, (um) missing); u2: yes->yep S, (uh) free;
    # spk2: (uh) free, cat->dog S, um inserted.
    assert got["spk1"] == [2, 11, 10, 1, 0, 0]
    assert got["spk2"] == [1, 4, 3, 1, 0, 1]
    assert got["total"] == [3, 15, 13, 2, 0, 1]


@needs_sctk
def test_markup_counts_agree_with_sclite(tmp_path: Path) -> None:
    rng = random.Random(11)
    vocab = "a b c d e f".split()
    refs, hyps = [], []
    for k in range(120):
        parts = []
        for _ in range(rng.randint(1, 9)):
            roll = rng.random()
            if roll < 0.15:
                parts.append(f"({rng.choice(vocab)})")
            elif roll < 0.3:
                alts = rng.sample(vocab, rng.randint(2, 3))
                if rng.random() < 0.2:
                    alts.append("@")
                parts.append("{ " + " / ".join(alts) + " }")
            else:
                parts.append(rng.choice(vocab))
        ident = f"s{k % 7}-u{k}"
        refs.append(f"{' '.join(parts)} ({ident})")
        hyps.append(f"{' '.join(rng.choice(vocab) for _ in range(rng.randint(0, 9)))} ({ident})")
    (tmp_path / "ref.trn").write_text("\n".join(refs) + "\n", "utf-8")
    (tmp_path / "hyp.trn").write_text("\n".join(hyps) + "\n", "utf-8")
    assert speaker_counts(score(tmp_path)) == sclite_counts(tmp_path)


@needs_sctk
def test_glm_file_scores_as_sclite_scores_the_same_markup(tmp_path: Path) -> None:
    # Plain references plus a GLM file must count as sclite counts the references with
    # the GLM's alternates and optional words written in as markup.
    (tmp_path / "plain.trn").write_text(
        "i said ok uh then um left (spk1-u1)\nyes we go uh (spk1-u2)\nthe uh cat sat (spk2-u1)\n",
        "utf-8",
    )
    (tmp_path / "hyp.trn").write_text(HYP, "utf-8")
    (tmp_path / "en.glm").write_text("{ ok / okay }\n{ yes / yeah / yep }\n(uh)\n(um)\n", "utf-8")
    (tmp_path / "ref.trn").write_text(
        "i said { ok / okay } (uh) then (um) left (spk1-u1)\n"
        "{ yes / yeah / yep } we go (uh) (spk1-u2)\n"
        "the (uh) cat sat (spk2-u1)\n",
        "utf-8",
    )
    got = score_predictions(
        ScoreInputs(tmp_path / "hyp.trn", refs=tmp_path / "plain.trn"),
        ScoreFigures(
            normalizer="none",
            sclite_reports=True,
            alignment="sclite",
            resamples=0,
            glm=tmp_path / "en.glm",
        ),
    ).to_dict()
    assert speaker_counts(got) == sclite_counts(tmp_path)
    assert speaker_counts(got)["total"] == [3, 15, 14, 1, 0, 1]
    (arm,) = got["arms"].values()
    assert arm["sclite"]["glm"]["name"] == "en.glm"
    assert arm["sclite"]["glm"]["version"] == GLM_VERSION


def test_cli_and_api_agree_with_glm(tmp_path: Path) -> None:
    (tmp_path / "ref.trn").write_text(REF, "utf-8")
    (tmp_path / "hyp.trn").write_text(HYP, "utf-8")
    (tmp_path / "en.glm").write_text("{ yes / yep }\n", "utf-8")
    out = tmp_path / "out"
    code = main(
        ["score", str(tmp_path / "hyp.trn"), "--refs", str(tmp_path / "ref.trn")]
        + ["--normalizer", "none", "--sclite-reports", "--alignment", "sclite"]
        + ["--glm", str(tmp_path / "en.glm"), "--bootstrap", "0", "--quiet", "--out", str(out)]
    )
    assert code == 0
    cli = json.loads((out / "results.json").read_text("utf-8"))
    api = score(tmp_path, glm=tmp_path / "en.glm")
    assert speaker_counts(cli) == speaker_counts(api)
    assert speaker_counts(cli)["total"] == [3, 15, 14, 1, 0, 1]  # yep now matches yes
    (arm,) = cli["arms"].values()
    assert arm["sclite"]["reference_markup"] == 3
    assert "(uh)" in (out / "hyp.pra").read_text("utf-8")


def test_glm_refuses_a_protocol_and_markup_needs_plain_text(tmp_path: Path) -> None:
    # --glm no longer needs --sclite-reports (it applies to the headline too,
    # tests/scoring/test_glm_headline.py); a protocol's figures cannot take one.
    (tmp_path / "ref.trn").write_text("A { b / c } (s-1)\n", "utf-8")
    (tmp_path / "hyp.trn").write_text("a c (s-1)\n", "utf-8")
    (tmp_path / "en.glm").write_text("(uh)\n", "utf-8")
    with pytest.raises(EarmarkError, match="protocol") as info:
        score_predictions(
            ScoreInputs(tmp_path / "hyp.trn", refs=tmp_path / "ref.trn"),
            ScoreFigures(protocol="blasbench-v1", glm=tmp_path / "en.glm"),
        ).to_dict()
    assert info.value.field == "glm"
    # crude-v1 folds `A` to `a`: the headline (not only the sclite block) refuses the
    # markup it cannot honour, naming the utterance, the normaliser and its view.
    for reports in (True, False):
        with pytest.raises(EarmarkError, match="normaliser changes") as info:
            score_predictions(
                ScoreInputs(tmp_path / "hyp.trn", refs=tmp_path / "ref.trn"),
                ScoreFigures(normalizer="crude-v1", sclite_reports=reports, resamples=0),
            ).to_dict()
        assert "'s-1'" in info.value.message and "crude-v1, view normalized" in info.value.message
        assert info.value.hint is not None and "--normalizer none" in info.value.hint


@needs_sctk
def test_docs_glm_example_runs_and_matches_sclite(tmp_path: Path) -> None:
    """docs/sclite.md's GLM example runs, prints the table the page shows, and that table
    is `sctk sclite -D`'s for the references with the GLM's alternates written in."""
    doc = (Path(__file__).parents[2] / "docs" / "sclite.md").read_text("utf-8")
    section = doc.split("## Alternates and optional words", 1)[1]
    script = section.split("```bash\n", 1)[1].split("```", 1)[0]
    shown = section.split("```text\n", 1)[1].split("```", 1)[0]
    done = subprocess.run(
        ["bash", "-euc", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )

    def table(text: str) -> dict[str, list[str]]:
        rows = [line.replace("|", " ").split() for line in text.splitlines()]
        return {r[0]: r[1:] for r in rows if r and r[0] in ("spk1", "spk2", "Sum")}

    assert table(done.stdout) == table(shown) != {}
    ref = (tmp_path / "ref.trn").read_text("utf-8").replace("yes", "{ yes / yeah / yep }")
    (tmp_path / "ref.trn").write_text(ref, "utf-8")
    oracle = sclite_counts(tmp_path)
    assert {k: [int(v) for v in vs[:6]] for k, vs in table(shown).items()} == {
        ("Sum" if k == "total" else k): v for k, v in oracle.items()
    }


@needs_sctk
def test_pra_lines_match_sclites_for_markup(tmp_path: Path) -> None:
    """The .pra columns (alternates shown as matched, `(uh)` kept, a left-out optional
    word blank) read as `sctk sclite -D -o pra` prints them."""
    import jsonschema

    from earmark.render.results import results_schema

    (tmp_path / "ref.trn").write_text(REF, "utf-8")
    (tmp_path / "hyp.trn").write_text(HYP, "utf-8")
    results = score_predictions(
        ScoreInputs(tmp_path / "hyp.trn", refs=tmp_path / "ref.trn"),
        ScoreFigures(normalizer="none", sclite_reports=True, alignment="sclite", resamples=0),
        out_dir=tmp_path / "out",
    ).to_dict()
    jsonschema.validate(results, results_schema())
    assert SCTK is not None
    theirs = subprocess.run(
        [SCTK, "sclite", "-r", "ref.trn", "trn", "-h", "hyp.trn", "trn", "-i", "rm", "-D"]
        + ["-o", "pra", "stdout"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    ours = (tmp_path / "out" / "hyp.pra").read_text("utf-8")

    def columns(text: str) -> list[str]:
        keep = ("id:", "Scores:", "REF:", "HYP:", "Eval:")
        return [line.rstrip() for line in text.splitlines() if line.startswith(keep)]

    assert columns(ours) == columns(theirs)
    assert "REF:  i said okay (uh) then (um) left" in columns(ours)
