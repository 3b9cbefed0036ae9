"""Issue 23: the headline agrees with sclite on marked-up trn references, and
`--alignment sclite|kaldi` shapes every word figure (`earmark.scoring.word_counter`).

Oracles: `sctk sclite -D` on the same files (tests/sclite_oracle.py reads it), kaldialign
for Kaldi's split, and hand-computed counts. results.md's headline S/D/I, its sclite
section and results.json's sclite block are read back and compared with each other.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.formats.trn import checked_id_format, speaker_rule_line
from earmark.metrics.alignment import EditTally
from earmark.scoring.word_counter import WordCounter, resolved_reference
from sclite_oracle import sclite_rsum

SCTK = shutil.which("sctk")
needs_sctk = pytest.mark.skipif(
    SCTK is None, reason="sctk is not installed (apt-get install -y sctk): no sclite oracle"
)
SDI = ("substitutions", "deletions", "insertions")

#: (id, marked-up reference, hypothesis). Row 1 takes the second alternative and leaves
#: `(uh)` out; row 2 the `@` path; row 3 keeps an error either way.
MARKED = [
    ("s1-u1", "i said { ok / okay } (uh) then", "i said okay then"),
    ("s1-u2", "the (uh) cat sat", "the cat sat down"),
    ("s2-u3", "well { um / @ } we go", "well we go"),
    ("s2-u4", "a { b / c } d", "a x d"),
]


def write(folder: Path, lines: list[tuple[str, str, str]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ref.trn").write_text("".join(f"{r} ({i})\n" for i, r, _ in lines), "utf-8")
    (folder / "hyp.trn").write_text("".join(f"{h} ({i})\n" for i, _, h in lines), "utf-8")


def score(folder: Path, out: Path | None = None, **figures: Any) -> dict[str, Any]:
    results = score_predictions(
        ScoreInputs(folder / "hyp.trn", refs=folder / "ref.trn"),
        ScoreFigures(normalizer="none", resamples=0, **figures),
        out_dir=out,
    ).to_dict()
    arm: dict[str, Any] = results["arms"]["hyp"]  # type: ignore[assignment]
    return arm


def wer(arm: dict[str, Any], view: str = "raw") -> dict[str, int]:
    metric: dict[str, int] = arm["overall"]["views"][view]["wer"]
    return metric


def markdown_sdi(text: str) -> str:
    """The S/D/I cell of results.md's overall row."""
    row = next(line for line in text.splitlines() if line.startswith("| overall |"))
    return row.strip("|").split("|")[-1].strip()


def markdown_sum(text: str) -> list[int]:
    """C, S, D, I of results.md's sclite section's Sum row."""
    section = text.split("### sclite reports", 1)[1]
    (row,) = [line for line in section.splitlines() if line.startswith("| Sum |")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    return [int(c) for c in cells[3:7]]


# ------------------------------------------------------------------ 1. reference markup


def test_markup_by_hand_second_alternative_and_optional_word(tmp_path: Path) -> None:
    """Row 1 plain (first spelling, `uh` counted) is 1 S + 1 D; honoured it is 5 correct."""
    write(tmp_path, MARKED[:1])
    got = wer(score(tmp_path))
    assert [got[k] for k in (*SDI, "hits", "ref_units")] == [0, 0, 0, 5, 5]
    # The character unit honours it too: `okay` matched, `uh` and a space left out as
    # Correct (19 = len("i said okay uh then")), no first-spelling errors.
    cer = score(tmp_path)["overall"]["views"]["raw"]["cer"]
    assert [cer[k] for k in (*SDI, "hits", "ref_units")] == [0, 0, 0, 19, 19]


def test_markup_of_every_kind_by_hand(tmp_path: Path) -> None:
    write(tmp_path, MARKED)
    got = wer(score(tmp_path))
    # u1: 5 C. u2: the (uh) cat sat / the cat sat down: 4 C (uh left out), 1 I.
    # u3: `@` taken, not counted: 3 C. u4: a x d: 2 C, 1 S.
    assert [got[k] for k in (*SDI, "hits", "ref_units")] == [1, 0, 1, 14, 15]


@needs_sctk
def test_headline_sclite_block_and_results_md_agree_with_sctk(tmp_path: Path) -> None:
    write(tmp_path, MARKED)
    oracle = sclite_rsum(tmp_path)["Sum"]  # [# Snt, # Wrd, C, S, D, I]
    assert oracle == [4, 15, 14, 1, 0, 1]
    out = tmp_path / "out"
    arm = score(tmp_path, out, sclite_reports=True)
    got = wer(arm)
    assert [got["hits"], *(got[k] for k in SDI)] == oracle[2:]
    total = arm["sclite"]["total"]
    assert [total[k] for k in ("correct", *SDI)] == oracle[2:]
    text = (out / "results.md").read_text("utf-8")
    assert markdown_sdi(text) == "1/0/1 of 15"
    assert markdown_sum(text) == oracle[2:]
    assert "honoured here and in the headline word counts" in text


@needs_sctk
@pytest.mark.parametrize("seed", [11, 12])
def test_random_markup_headline_equals_sctk(tmp_path: Path, seed: int) -> None:
    """Random references with alternations, optional and skippable words: the headline's
    C/S/D/I are sclite's (no equal-cost split where the two searches differ, checked)."""
    rng = random.Random(seed)
    vocab = "a b c d e".split()
    lines = []
    for k in range(60):
        ref, hyp = [], []
        for _ in range(rng.randint(1, 7)):
            r = rng.random()
            w = rng.choice(vocab)
            if r < 0.2:
                other = rng.choice([v for v in vocab if v != w])
                ref.append(f"{{ {w} / {other} }}")
                hyp.append(rng.choice([w, other, w + "x"]))
            elif r < 0.3:
                ref.append(f"({w})")
                if rng.random() < 0.5:
                    hyp.append(w)
            elif r < 0.4:
                ref.append(f"{{ {w} / @ }}")
                if rng.random() < 0.5:
                    hyp.append(w)
            else:
                ref.append(w)
                hyp.append(w if rng.random() < 0.8 else rng.choice(vocab))
        if rng.random() < 0.3:
            hyp.insert(rng.randint(0, len(hyp)), rng.choice(vocab))
        lines.append((f"s{k % 3}-u{k:02d}", " ".join(ref), " ".join(hyp)))
    write(tmp_path, lines)
    oracle = sclite_rsum(tmp_path)
    arm = score(tmp_path, sclite_reports=True)
    got = wer(arm)
    assert [got["hits"], *(got[k] for k in SDI)] == oracle["Sum"][2:]
    assert got["ref_units"] == oracle["Sum"][1]
    by_speaker = {s["speaker"]: s for s in arm["sclite"]["speakers"]}
    for speaker, values in oracle.items():
        if speaker != "Sum":
            line = by_speaker[speaker]
            assert [line[k] for k in ("correct", *SDI)] == values[2:], speaker


def test_a_normaliser_that_changes_markup_is_one_line_naming_it(tmp_path: Path) -> None:
    write(tmp_path, [("s-1", "I said { OK / okay }", "i said okay")])
    with pytest.raises(EarmarkError) as info:
        score_predictions(
            ScoreInputs(tmp_path / "hyp.trn", refs=tmp_path / "ref.trn"),
            ScoreFigures(normalizer="crude-v1", resamples=0),
        )
    message = str(info.value)
    assert "\n" not in message
    assert "'s-1'" in message and "crude-v1, view normalized" in message
    assert "--normalizer none" in message
    # A case-folding normaliser keeps markup written in its output form: honoured.
    write(tmp_path, [("s-1", "i said { ok / okay }", "i said okay")])
    arm = score_predictions(
        ScoreInputs(tmp_path / "hyp.trn", refs=tmp_path / "ref.trn"),
        ScoreFigures(normalizer="crude-v1", resamples=0),
    ).to_dict()["arms"]["hyp"]
    metric = arm["overall"]["views"]["normalized"]["wer"]
    assert (metric["substitutions"], metric["hits"]) == (0, 3)


def test_markup_rows_keep_their_markup_and_verify_reproduces(tmp_path: Path) -> None:
    write(tmp_path, MARKED)
    out = tmp_path / "out"
    score(tmp_path, out)
    first = json.loads((out / "predictions.jsonl").read_text("utf-8").splitlines()[0])
    assert first["reference_markup"] == "i said { ok / okay } (uh) then"
    assert first["reference"] == "i said ok uh then"
    assert main(["verify", str(out)]) == 0


def test_resolved_reference_by_hand() -> None:
    from earmark.formats.sclite_markup import markup_slots
    from earmark.metrics.slot_alignment import align_slots

    slots = markup_slots("i { ok / okay } (uh) { um / @ } then")
    done = align_slots(slots, ["i", "okay", "then"])
    assert resolved_reference(done, slots) == (["i", "okay", "then"], ["uh"])
    done = align_slots(slots, ["i", "x", "uh", "um", "then"])
    assert resolved_reference(done, slots) == (["i", "ok", "uh", "um", "then"], [])


# ------------------------------------------------------------------ 2. --alignment


def tie_corpus(seed: int, n: int = 80) -> list[tuple[str, str, str]]:
    """Pairs over a 4-word vocabulary with shifts: equal-edit splits abound, so earmark's,
    sclite's and Kaldi's S/D/I differ while the references are the same."""
    rng = random.Random(seed)
    vocab = ["a", "b", "c", "d"]
    lines = []
    for k in range(n):
        ref = [rng.choice(vocab) for _ in range(rng.randint(1, 8))]
        hyp = [rng.choice(vocab) for _ in range(rng.randint(0, 8))]
        if k % 3 == 0:
            hyp = ref[1:] + [rng.choice(vocab)]
        lines.append((f"spk{k % 4}-u{k:03d}", " ".join(ref), " ".join(hyp)))
    return lines


@needs_sctk
def test_alignment_sclite_shapes_headline_error_analysis_and_block(tmp_path: Path) -> None:
    write(tmp_path, tie_corpus(3))
    oracle = sclite_rsum(tmp_path)["Sum"]
    default = wer(score(tmp_path))
    out = tmp_path / "out"
    arm = score(tmp_path, out, sclite_reports=True, alignment="sclite")
    got = wer(arm)
    assert [got["hits"], *(got[k] for k in SDI)] == oracle[2:]
    # earmark's own split of the same run differs (the point of the option) ...
    assert [default[k] for k in SDI] != [got[k] for k in SDI]
    # ... the sclite block and results.md say the same as the headline ...
    total = arm["sclite"]["total"]
    assert [total[k] for k in ("correct", *SDI)] == oracle[2:]
    text = (out / "results.md").read_text("utf-8")
    s, d, i = (got[k] for k in SDI)
    assert markdown_sdi(text) == f"{s}/{d}/{i} of {got['ref_units']}"
    assert markdown_sum(text) == oracle[2:]
    assert "- Word alignment: **sclite**" in text
    # ... and the error analysis counts the same alignment's edits.
    analysis = arm["error_analysis"]["und"]
    worst = {w["id"]: w for w in analysis["worst_utterances"]}
    per_row = {
        json.loads(line)["id"]: json.loads(line)["views"]["raw"]["wer"]
        for line in (out / "predictions.jsonl").read_text("utf-8").splitlines()
    }
    for ident, row in worst.items():
        assert [row[k] for k in SDI] == [per_row[ident][k] for k in SDI]
    assert arm["alignment"]["name"] == "sclite"
    assert main(["verify", str(out)]) == 0


def test_alignment_kaldi_equals_kaldialign(tmp_path: Path) -> None:
    kaldialign = pytest.importorskip(
        "kaldialign", reason="kaldialign (a meeteval dependency) is the Kaldi oracle"
    )
    lines = tie_corpus(4)
    write(tmp_path, lines)
    got = wer(score(tmp_path, alignment="kaldi"))
    expected = [0, 0, 0]
    for _, ref, hyp in lines:
        counts = kaldialign.edit_distance(ref.split(), hyp.split())
        for col, key in enumerate(("sub", "del", "ins")):
            expected[col] += counts[key]
    assert [got[k] for k in SDI] == expected
    default = wer(score(tmp_path))
    assert sum(default[k] for k in SDI) == sum(expected)  # the same edit distance
    assert [default[k] for k in SDI] != expected  # split differently


def test_default_alignment_records_nothing_new(tmp_path: Path) -> None:
    write(tmp_path, tie_corpus(5, n=6))
    arm = score(tmp_path)
    assert "alignment" not in arm
    assert score(tmp_path, alignment="kaldi")["alignment"]["name"] == "kaldi"


def test_word_counter_by_hand_tallies_and_laws() -> None:
    """ref `a b` / hyp `b c`: earmark 2 S, sclite and Kaldi 1 D + 1 I; ref `a b` / hyp
    `b a`: Kaldi deletes `a` and inserts `a`. Identity scores 0; S + D + C = N."""
    pairs = [("a b", "b c"), ("a b", "b a"), ("x y z", "x y z")]
    for name, expected in {
        "sclite": [[0, 1, 1, 1], [0, 1, 1, 1], [0, 0, 0, 3]],
        "kaldi": [[0, 1, 1, 1], [0, 1, 1, 1], [0, 0, 0, 3]],
    }.items():
        tally = EditTally()
        got = WordCounter(name).count_pairs(pairs, tallies=[tally] * 3).tolist()  # type: ignore[arg-type]
        assert got == expected, name
        assert sum(tally.deletions.values()) == 2 and sum(tally.insertions.values()) == 2
    with pytest.raises(EarmarkError, match="unknown alignment"):
        WordCounter("jiwer")  # type: ignore[arg-type]


# ------------------------------------------------------------------ 3. the id rule


def test_id_format_earmark_is_the_default_and_its_rule_is_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, [("spk3_0042", "a b", "a"), ("spk3-0043", "c", "c")])
    default = score(tmp_path, sclite_reports=True)
    named = score(tmp_path, sclite_reports=True, id_format="earmark")
    assert default["sclite"] == named["sclite"]  # the same rule, the same bytes
    assert "id_format" not in named["sclite"]
    assert [s["speaker"] for s in named["sclite"]["speakers"]] == ["spk3_0042", "spk3"]
    assert checked_id_format("earmark") is None
    argv = ["score", str(tmp_path / "hyp.trn"), "--refs", str(tmp_path / "ref.trn")]
    argv += ["--normalizer", "none", "--bootstrap", "0", "--sclite-reports"]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    printed = capsys.readouterr().out
    assert f"sclite speakers: {speaker_rule_line(None)}" in printed
    assert "sclite speakers: earmark: row speaker" in printed
    text = (tmp_path / "a" / "results.md").read_text("utf-8")
    assert "- Speakers (`--id-format`): earmark: row speaker" in text
    assert main([*argv, "--id-format", "rm", "--out", str(tmp_path / "b")]) == 0
    assert "sclite speakers: sclite -i rm: the id" in capsys.readouterr().out
    text = (tmp_path / "b" / "results.md").read_text("utf-8")
    assert "- Speakers (`--id-format`): sclite -i rm: the id" in text
    # No reports, no speaker line.
    assert main([*argv[:-1], "--out", str(tmp_path / "c")]) == 0
    assert "sclite speakers" not in capsys.readouterr().out


def test_hostile_speakers_stay_inert_in_results_md(tmp_path: Path) -> None:
    """Speaker names reach results.md's sclite table escaped: no HTML, link or cell break."""
    write(tmp_path, [("<script>|x](y)-1", "a", "a"), ("*b*-2", "a", "b")])
    out = tmp_path / "out"
    score(tmp_path, out, sclite_reports=True)
    section = (out / "results.md").read_text("utf-8").split("### sclite reports", 1)[1]
    assert "<script>" not in section
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    assert all(len(re.findall(r"(?<!\\)\|", line)) == 10 for line in rows)


# ------------------------------------------------------------------ hostile input


@pytest.mark.parametrize("figures", [{}, {"alignment": "sclite"}, {"alignment": "kaldi"}])
def test_a_huge_pair_is_one_line_naming_the_utterance(tmp_path: Path, figures: dict) -> None:
    """The pure-Python alignments are bounded (`MAX_SLOT_CELLS`): a 5,000 x 5,000-word
    pair with markup, or under sclite's or Kaldi's rule, is refused before any work."""
    big = " ".join(["w"] * 5_000)
    ref = big if figures else "{ a / b } " + big
    write(tmp_path, [("s-ok", "a b", "a b"), ("s-huge", ref, " ".join(["v"] * 5_000))])
    with pytest.raises(EarmarkError) as info:
        score(tmp_path, **figures)
    message = str(info.value)
    assert "'s-huge'" in message and "over the limit" in message and "\n" not in message


def test_hostile_markup_text_is_kept_verbatim_and_inert(tmp_path: Path) -> None:
    """Markup words holding HTML, a NUL, a lone surrogate's replacement and `|` are scored
    as words, kept verbatim (JSON-escaped) in predictions.jsonl, and never reach results.md."""
    ref = "{ <script>alert(1)</script> / ok } (a\x00b) x|y \ufffd"
    write(tmp_path, [("s-1", ref, "ok x|y \ufffd")])
    out = tmp_path / "out"
    arm = score(tmp_path, out, sclite_reports=True)
    got = wer(arm)
    assert [got[k] for k in (*SDI, "hits", "ref_units")] == [0, 0, 0, 4, 4]
    row = json.loads((out / "predictions.jsonl").read_text("utf-8"))
    assert row["reference_markup"] == ref
    text = (out / "results.md").read_text("utf-8")
    assert "<script>" not in text and "\x00" not in text


def test_markup_rows_and_plain_rows_keep_their_order_and_counts(tmp_path: Path) -> None:
    """Marked and plain rows interleaved (and the markup row a repeated clip's): every
    row's counts land at its own position."""
    lines = [
        ("s-1", "a b c", "a x c"),
        ("s-2", "{ a / b } c", "b c"),
        ("s-3", "p q", "p"),
        ("s-4", "(uh) z", "z"),
    ]
    write(tmp_path, lines)
    out = tmp_path / "out"
    score(tmp_path, out)
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text("utf-8").splitlines()]
    got = {r["id"]: [r["views"]["raw"]["wer"][k] for k in (*SDI, "hits")] for r in rows}
    assert got == {
        "s-1": [1, 0, 0, 2],
        "s-2": [0, 0, 0, 2],
        "s-3": [0, 1, 0, 1],
        "s-4": [0, 0, 0, 2],
    }


def test_markup_with_a_glm_by_hand(tmp_path: Path) -> None:
    """The rules widen the markup's slots for words; the characters resolve only the
    markup's own spellings (a GLM names words and leaves CER alone)."""
    write(tmp_path, [("s-1", "{ ok / okay } yes", "okay yep")])
    (tmp_path / "r.glm").write_text("{ yes / yep }\n", "utf-8")
    arm = score(tmp_path, glm=tmp_path / "r.glm")
    views = arm["overall"]["views"]["raw"]
    assert [views["wer"][k] for k in (*SDI, "hits")] == [0, 0, 0, 2]
    # "okay yes" against "okay yep": one character substituted, `okay` not an error.
    assert [views["cer"][k] for k in (*SDI, "hits")] == [1, 0, 0, 7]


def test_the_terminal_summary_names_a_non_default_alignment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, tie_corpus(6, n=4))
    argv = ["score", str(tmp_path / "hyp.trn"), "--refs", str(tmp_path / "ref.trn")]
    argv += ["--format", "trn", "--normalizer", "none", "--bootstrap", "0"]
    assert main([*argv, "--alignment", "sclite"]) == 0
    assert "word alignment: sclite (word units of every view" in capsys.readouterr().out
    assert main(argv) == 0
    assert "word alignment" not in capsys.readouterr().out
