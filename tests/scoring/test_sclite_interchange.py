"""sclite interchange: trn/stm/ctm reading and .sys/.pra/.dtl reports, with `sctk sclite`
as the oracle (tests that need it skip, saying so, when it is not installed)."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.formats.ctm import pair_stm_ctm, read_ctm
from earmark.formats.stm import read_stm
from earmark.formats.trn import pair_trn, read_trn, trn_speaker
from earmark.metrics.alignment import align
from earmark.metrics.sclite_alignment import align_sclite

SCTK = shutil.which("sctk")
needs_sctk = pytest.mark.skipif(
    SCTK is None, reason="sctk is not installed (apt-get install -y sctk): no sclite oracle"
)


# ------------------------------------------------------------------ oracle helpers


def sclite(*args: str, cwd: Path) -> str:
    assert SCTK is not None
    done = subprocess.run(
        [SCTK, "sclite", *args], cwd=cwd, capture_output=True, text=True, check=True
    )
    return done.stdout


def sclite_trn(report: str, cwd: Path) -> str:
    """sclite on ref.trn / hyp.trn in `cwd`, speakers by `-i rm`, one report to stdout."""
    return sclite(
        "-r", "ref.trn", "trn", "-h", "hyp.trn", "trn", "-i", "rm", "-o", report, "stdout", cwd=cwd
    )


def parse_table(text: str) -> dict[str, list[float]]:
    """Rows of an sclite summary table (`-o sum`/`rsum`, or earmark's .sys/.raw):
    label -> [# Snt, # Wrd, Corr, Sub, Del, Ins, Err, S.Err]; the Mean/S.D./Median rows
    are left out (sclite rounds them from single-precision floats)."""
    out: dict[str, list[float]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[0] in ("SPKR", ""):
            continue
        try:
            values = [float(v) for v in " ".join(cells[1:3]).split()[:8]]
        except ValueError:
            continue
        if len(values) == 8 and cells[0] not in ("Mean", "S.D.", "Median"):
            out[cells[0]] = values
    return out


def parse_pra(text: str) -> dict[str, tuple[list[int], list[str], list[str], list[str]]]:
    """id -> ([C, S, D, I], REF words, HYP words, Eval letters) from a .pra dump."""
    out: dict[str, tuple[list[int], list[str], list[str], list[str]]] = {}
    ident = None
    scores: list[int] = []
    ref: list[str] = []
    hyp: list[str] = []
    for line in text.splitlines():
        if line.startswith("id: "):
            ident = line[5:-1] if line.endswith(")") else line[4:].strip("() ")
        elif line.startswith("Scores:") and ident:
            scores = [int(v) for v in line.split(")")[-1].split()]
        elif line.startswith("REF:"):
            ref = line[5:].split()
        elif line.startswith("HYP:"):
            hyp = line[5:].split()
        elif line.startswith("Eval:") and ident:
            out[ident] = (scores, ref, hyp, line[5:].split())
            ident = None
    return out


def parse_dtl_pairs(text: str) -> dict[tuple[str, str], int]:
    """The CONFUSION PAIRS section of a .dtl report: (ref, hyp) -> count."""
    section = text.split("CONFUSION PAIRS", 1)[1].split("INSERTIONS", 1)[0]
    pairs = {}
    for m in re.finditer(r"^\s+\d+:\s+(\d+)\s+->\s+(\S+) ==> (\S+)\s*$", section, re.M):
        pairs[(m.group(2), m.group(3))] = int(m.group(1))
    return pairs


# ------------------------------------------------------------------ corpora

TIE_PAIRS = [  # equal-edit alternatives that earmark and sclite split differently
    ("a b", "b c"),
    ("x y", "y z"),
    ("one two three", "two three four"),
    ("the cat sat", "cat sat on"),
]


def random_corpus(seed: int, n: int = 60) -> tuple[list[str], list[str]]:
    """trn lines (ref, hyp) over a 6-word vocabulary, so equal-cost splits abound."""
    rng = random.Random(seed)
    vocab = ["a", "b", "c", "the", "cat", "on"]
    refs, hyps = [], []
    for k in range(n):
        speaker = f"spk{k % 4}"
        ref = [rng.choice(vocab) for _ in range(rng.randint(0, 9))]
        hyp = list(ref)
        for _ in range(rng.randint(0, 4)):
            op = rng.random()
            if op < 0.3 and hyp:
                hyp[rng.randrange(len(hyp))] = rng.choice(vocab)
            elif op < 0.6 and hyp:
                del hyp[rng.randrange(len(hyp))]
            else:
                hyp.insert(rng.randint(0, len(hyp)), rng.choice(vocab))
        if k % 7 == 3:  # shift by one word: a classic tie
            hyp = hyp[1:] + [rng.choice(vocab)]
        ident = f"{speaker}-u{k:03d}"
        refs.append(f"{' '.join(ref)} ({ident})")
        hyps.append(f"{' '.join(hyp)} ({ident})")
    for k, (r, h) in enumerate(TIE_PAIRS):
        refs.append(f"{r} (tie-t{k})")
        hyps.append(f"{h} (tie-t{k})")
    return refs, hyps


def write_trn(folder: Path, refs: list[str], hyps: list[str]) -> tuple[Path, Path]:
    ref, hyp = folder / "ref.trn", folder / "hyp.trn"
    ref.write_text("\n".join(refs) + "\n", "utf-8")
    hyp.write_text("\n".join(hyps) + "\n", "utf-8")
    return ref, hyp


def earmark_sclite(hyp: Path, ref: Path, out: Path, alignment: str) -> dict:
    results = score_predictions(
        ScoreInputs(hyp, refs=ref),
        ScoreFigures(normalizer="none", resamples=0, sclite_reports=True, alignment=alignment),
        out_dir=out,
    ).to_dict()
    return results["arms"]["hyp"]


def table_from_section(section: dict) -> dict[str, list[float]]:
    keys = ("sentences", "words", "correct", "substitutions", "deletions", "insertions")
    rows = {s["speaker"]: s for s in section["speakers"]}
    rows["Sum"] = section["total"]
    return {
        name: [float(r[k]) for k in keys] + [float(r["errors"]), float(r["sentence_errors"])]
        for name, r in rows.items()
    }


# ------------------------------------------------------------------ oracle tests


@needs_sctk
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sclite_alignment_matches_sclite_by_speaker(tmp_path: Path, seed: int) -> None:
    ref, hyp = write_trn(tmp_path, *random_corpus(seed))
    theirs = parse_table(sclite_trn("rsum", tmp_path))
    arm = earmark_sclite(hyp, ref, tmp_path / "out", "sclite")
    ours = table_from_section(arm["sclite"])
    assert ours == theirs  # every speaker and the total: # Snt, # Wrd, C, S, D, I, Err, S.Err
    # The .raw file earmark wrote parses to the same table.
    assert parse_table((tmp_path / "out" / "hyp.raw").read_text("utf-8")) == theirs


@needs_sctk
def test_sys_percentages_match_sclite_sum(tmp_path: Path) -> None:
    ref, hyp = write_trn(tmp_path, *random_corpus(4))
    theirs = parse_table(sclite_trn("sum", tmp_path))
    earmark_sclite(hyp, ref, tmp_path / "out", "sclite")
    ours = parse_table((tmp_path / "out" / "hyp.sys").read_text("utf-8"))
    assert ours.keys() == theirs.keys()
    for label, values in theirs.items():
        assert ours[label] == pytest.approx(values, abs=0.051), label


@needs_sctk
def test_pra_and_dtl_match_sclite(tmp_path: Path) -> None:
    ref, hyp = write_trn(tmp_path, *random_corpus(5))
    theirs = parse_pra(sclite_trn("pra", tmp_path))
    earmark_sclite(hyp, ref, tmp_path / "out", "sclite")
    ours = parse_pra((tmp_path / "out" / "hyp.pra").read_text("utf-8"))
    assert ours.keys() == theirs.keys()
    for ident, (scores, ref_words, hyp_words, evals) in theirs.items():
        assert ours[ident] == (scores, ref_words, hyp_words, evals), ident
    dtl = sclite_trn("dtl", tmp_path)
    ours_dtl = (tmp_path / "out" / "hyp.dtl").read_text("utf-8")
    assert parse_dtl_pairs(ours_dtl) == parse_dtl_pairs(dtl)
    assert sum(parse_dtl_pairs(dtl).values()) > 0


@needs_sctk
def test_default_alignment_differs_only_in_the_split(tmp_path: Path) -> None:
    """earmark's own alignment: same # Snt and # Wrd, never more errors (it minimises
    them), and on the tie corpus a different S/D/I split, as documented."""
    ref, hyp = write_trn(tmp_path, *random_corpus(1))
    theirs = parse_table(sclite_trn("rsum", tmp_path))
    ours = table_from_section(earmark_sclite(hyp, ref, tmp_path / "out", "earmark")["sclite"])
    for label, values in theirs.items():
        assert ours[label][:2] == values[:2]
        assert ours[label][6] <= values[6]
    assert ours["tie"][3:6] == [4.0, 2.0, 2.0] and theirs["tie"][3:6] == [0.0, 4.0, 4.0]


@needs_sctk
def test_stm_ctm_match_sclite(tmp_path: Path) -> None:
    (tmp_path / "ref.stm").write_text(
        ";; a comment\n"
        ';; CATEGORY "0" "" ""\n'
        "rec1 A spk1 0.00 2.00 <o,f0,male> the cat sat\n"
        "rec1 A spk2 2.50 4.00 hello world\n"
        "rec1 A spk1 4.00 5.00 IGNORE_TIME_SEGMENT_IN_SCORING\n"
        "rec1 A spk2 5.00 7.00 good morning to you\n"
        "rec2 1 spk3 0.0 3.0 one two three four\n",
        "utf-8",
    )
    (tmp_path / "hyp.ctm").write_text(
        ";; hypotheses\n"
        "rec1 A 0.10 0.30 the 0.9\n"
        "rec1 A 0.50 0.40 cat 0.8\n"
        "rec1 A 1.00 0.50 sit NA\n"
        "rec1 A 2.60 0.50 hello\n"
        "rec1 A 3.20 0.30 big\n"
        "rec1 A 3.60 0.30 world\n"
        "rec1 A 4.20 0.30 noise\n"
        "rec1 A 5.10 0.30 good\n"
        "rec1 A 5.60 0.30 morning\n"
        "rec1 A 6.40 0.30 you\n"
        "rec2 1 0.1 0.3 one\n"
        "rec2 1 0.5 0.3 three\n"
        "rec2 1 1.0 0.3 four\n"
        "rec2 1 1.5 0.3 five\n",
        "utf-8",
    )
    for alignment in ("sclite", "earmark"):
        arm = score_predictions(
            ScoreInputs(tmp_path / "hyp.ctm", refs=tmp_path / "ref.stm"),
            ScoreFigures(normalizer="none", resamples=0, sclite_reports=True, alignment=alignment),
        ).to_dict()["arms"]["hyp"]
        report = sclite(
            "-r", "ref.stm", "stm", "-h", "hyp.ctm", "ctm", "-o", "rsum", "stdout", cwd=tmp_path
        )
        theirs = parse_table(report)
        ours = table_from_section(arm["sclite"])
        for label in ("spk1", "spk2", "spk3", "Sum"):
            assert ours[label] == theirs[label][:8], (alignment, label)
        excluded = arm["coverage"]["excluded"]
        assert excluded == [
            {
                "id": "spk1-rec1-A-4.00-5.00",
                "reason": "ignore_time_segment_in_scoring",
                "hypothesis_words_dropped": "1",
            }
        ]


# ------------------------------------------------------------------ alignment rule


def test_sclite_alignment_hand_cases() -> None:
    kinds = [op.kind for op in align_sclite("a b".split(), "b c".split()).ops]
    assert kinds == ["delete", "equal", "insert"]
    assert [op.kind for op in align("a b".split(), "b c".split()).ops] == [
        "substitute",
        "substitute",
    ]
    # A shift: both alignments delete the two leading words and insert two at the end.
    ref, hyp = "a b c d e".split(), "c d e f g".split()
    counts = align_sclite(ref, hyp).counts
    assert (counts.substitutions, counts.deletions, counts.insertions) == (0, 2, 2)
    # More edits at the same weighted cost (15): earmark 3 S + 1 D, sclite 3 D + 2 I.
    ref, hyp = "a a a c b".split(), "c b b c".split()
    c = align_sclite(ref, hyp).counts
    e = align(ref, hyp).counts
    assert (c.substitutions, c.deletions, c.insertions) == (0, 3, 2)
    assert (e.substitutions, e.deletions, e.insertions) == (3, 1, 0)
    assert align_sclite([], ["x"]).counts.insertions == 1
    assert align_sclite(["x"], []).counts.deletions == 1
    assert align_sclite([], []).ops == ()


def test_sclite_alignment_laws() -> None:
    rng = random.Random(7)
    for _ in range(300):
        ref = [rng.choice("abc") for _ in range(rng.randint(0, 7))]
        hyp = [rng.choice("abc") for _ in range(rng.randint(0, 7))]
        a = align_sclite(ref, hyp)
        c = a.counts
        assert c.ref_units == len(ref) and c.hyp_units == len(hyp)
        assert [op.ref for op in a.ops if op.ref is not None] == ref
        assert [op.hyp for op in a.ops if op.hyp is not None] == hyp
        # Weighted optimum: never costlier than the fewest-edits alignment's split.
        e = align(ref, hyp).counts
        cost = 4 * c.substitutions + 3 * (c.deletions + c.insertions)
        assert cost <= 4 * e.substitutions + 3 * (e.deletions + e.insertions)
        assert c.errors >= e.errors
    assert align_sclite(list("abc"), list("abc")).counts.errors == 0


# ------------------------------------------------------------------ readers


def test_trn_reading(tmp_path: Path) -> None:
    path = tmp_path / "r.trn"
    path.write_text("hello  world (spk1-a)\n\n (spk2-b)\nno dash here (solo)\n", "utf-8")
    utts = read_trn(path)
    assert [(u.id, u.speaker, u.words) for u in utts] == [
        ("spk1-a", "spk1", ("hello", "world")),
        ("spk2-b", "spk2", ()),
        ("solo", "solo", ("no", "dash", "here")),
    ]
    assert trn_speaker("a_b-c-d") == "a_b" and trn_speaker("-x") == "-x"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no id here\n", "ends with its utterance id"),
        ("a (x-1)\nb (x-1)\n", "duplicate utterance id"),
        ("a { b / c } d (x-1)\n", "alternation"),
        ("a (two words)\n", "invalid utterance id"),
        ("\n\n", "no records"),
    ],
)
def test_trn_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.trn"
    path.write_text(text, "utf-8")
    with pytest.raises(EarmarkError, match=message) as info:
        read_trn(path)
    assert info.value.file == str(path)


def test_trn_pairing_keeps_every_reference(tmp_path: Path) -> None:
    (tmp_path / "r.trn").write_text("a b (s-1)\nc d (s-2)\n", "utf-8")
    (tmp_path / "h.trn").write_text("a b (s-1)\nz (s-9)\n", "utf-8")
    with pytest.raises(EarmarkError, match="no reference") as info:
        pair_trn(tmp_path / "h.trn", tmp_path / "r.trn")
    assert info.value.line == 2
    pairs = pair_trn(tmp_path / "h.trn", tmp_path / "r.trn", allow_extra=True)
    assert [(r.id, r.hypothesis, r.status) for r in pairs.rows] == [
        ("s-1", "a b", "ok"),
        ("s-2", None, "missing_hypothesis"),
    ]
    assert pairs.excluded == [{"id": "s-9", "reason": "no_reference"}]


def test_stm_and_ctm_reading(tmp_path: Path) -> None:
    stm = tmp_path / "r.stm"
    stm.write_text(
        ";; comment\nf A s1 0 1.5 <o,f0,male> hi there\nf A s2 1.5 2 IGNORE_TIME_SEGMENT_IN_SCORING\n",
        "utf-8",
    )
    segs = read_stm(stm)
    assert [(s.speaker, s.start, s.end, s.label, s.words, s.ignored) for s in segs] == [
        ("s1", 0.0, 1.5, "<o,f0,male>", ("hi", "there"), False),
        ("s2", 1.5, 2.0, None, (), True),
    ]
    ctm = tmp_path / "h.ctm"
    ctm.write_text("f A 0.2 0.1 hi 0.5\nf A 0.4 0.2 there NA\n", "utf-8")
    words = read_ctm(ctm)
    assert [(w.word, w.confidence) for w in words] == [("hi", 0.5), ("there", None)]
    assert words[0].midpoint == pytest.approx(0.25)


@pytest.mark.parametrize(
    ("stm", "message"),
    [
        ("f A s 1 2\n", None),  # an empty segment is allowed
        ("f A s 1\n", "at least 5 fields"),
        ("f A s 2 1 hi\n", "ends"),
        ("f A s x 1 hi\n", "time in seconds"),
        ("f A s 0 nan hi\n", "finite time"),
    ],
)
def test_stm_errors(tmp_path: Path, stm: str, message: str | None) -> None:
    path = tmp_path / "r.stm"
    path.write_text(stm, "utf-8")
    if message is None:
        assert read_stm(path)[0].words == ()
        return
    with pytest.raises(EarmarkError, match=message) as info:
        read_stm(path)
    assert info.value.line == 1


def test_ctm_midpoint_assignment(tmp_path: Path) -> None:
    """Hand cases: inside, on a shared boundary (the later segment), in a gap (nearest,
    earlier on a tie), before the first and after the last segment, in an ignored one."""
    (tmp_path / "r.stm").write_text(
        "f A s 0 1 a b\nf A s 1 2 c\nf A t 3 4 d\nf A t 5 6 IGNORE_TIME_SEGMENT_IN_SCORING\n",
        "utf-8",
    )
    (tmp_path / "h.ctm").write_text(
        "f A 0.1 0.2 a\n"  # mid 0.2: segment 1
        "f A 0.9 0.2 b\n"  # mid 1.0: boundary -> segment 2 (starts at 1)
        "f A 2.2 0.2 x\n"  # mid 2.3 in the gap 2..3: nearer segment 2
        "f A 2.4 0.2 y\n"  # mid 2.5: tie -> the earlier (segment 2)
        "f A 2.8 0.2 d\n"  # mid 2.9: nearer segment 3
        "f A 5.2 0.2 n\n"  # ignored segment: dropped, listed
        "f A 7.0 0.2 z\n",  # after the last: nearest is the ignored one -> dropped
        "utf-8",
    )
    pairs = pair_stm_ctm(tmp_path / "h.ctm", tmp_path / "r.stm")
    assert [(r.reference, r.hypothesis) for r in pairs.rows] == [
        ("a b", "a"),
        ("c", "b x y"),
        ("d", "d"),
    ]
    assert [r.extra.get("ctm_words_outside", 0) for r in pairs.rows] == [0, 2, 1]
    assert pairs.excluded[0]["hypothesis_words_dropped"] == "2"
    (tmp_path / "h2.ctm").write_text("g B 0 1 q\n", "utf-8")
    with pytest.raises(EarmarkError, match="no stm segment"):
        pair_stm_ctm(tmp_path / "h2.ctm", tmp_path / "r.stm")
    extra = pair_stm_ctm(tmp_path / "h2.ctm", tmp_path / "r.stm", allow_extra=True)
    assert extra.excluded[-1] == {"id": "g-B", "reason": "no_reference", "hypothesis_words": "1"}


def test_stm_ctm_order_of_files_is_checked(tmp_path: Path) -> None:
    (tmp_path / "r.stm").write_text("f A s 0 1 a\n", "utf-8")
    (tmp_path / "h.ctm").write_text("f A 0 1 a\n", "utf-8")
    with pytest.raises(EarmarkError, match="swap"):
        score_predictions(
            ScoreInputs(tmp_path / "r.stm", refs=tmp_path / "h.ctm"),
            ScoreFigures(normalizer="none"),
        ).to_dict()
    with pytest.raises(EarmarkError, match="need --refs"):
        score_predictions(
            ScoreInputs(tmp_path / "h.ctm"), ScoreFigures(normalizer="none")
        ).to_dict()


# ------------------------------------------------------------------ CLI and results


def test_cli_equals_api_and_results_carry_the_tables(tmp_path: Path) -> None:
    ref, hyp = write_trn(tmp_path, *random_corpus(9, n=20))
    out = tmp_path / "cli"
    args = "--format trn --normalizer none --bootstrap 10 --sclite-reports --alignment sclite"
    code = main(
        ["score", str(hyp), "--refs", str(ref), *args.split(), "--out", str(out), "--quiet"]
    )
    assert code == 0
    cli = json.loads((out / "results.json").read_text("utf-8"))["arms"]["hyp"]
    api = earmark_sclite(hyp, ref, tmp_path / "api", "sclite")
    assert cli["sclite"] == api["sclite"]
    assert sorted(p.name for p in out.glob("hyp.*")) == ["hyp.dtl", "hyp.pra", "hyp.raw", "hyp.sys"]
    section = cli["sclite"]
    # The full table: every substitution appears, counts sum to the total S.
    assert sum(p["count"] for p in section["confusion_pairs"]) == section["total"]["substitutions"]
    assert sum(p["count"] for p in section["insertions"]) == section["total"]["insertions"]
    assert sum(p["count"] for p in section["deletions"]) == section["total"]["deletions"]
    counts = [p["count"] for p in section["confusion_pairs"]]
    assert counts == sorted(counts, reverse=True)
    # Speaker totals add up to the corpus (counts only add).
    for key in ("sentences", "words", "correct", "errors", "sentence_errors"):
        assert sum(s[key] for s in section["speakers"]) == section["total"][key]


def test_alignment_without_reports_shapes_the_headline(tmp_path: Path) -> None:
    """`--alignment` no longer needs `--sclite-reports`: it shapes the headline too
    (tests/scoring/test_alignment_headline.py); an unknown one is a one-line error."""
    ref, hyp = write_trn(tmp_path, ["a b (s-1)"], ["b c (s-1)"])
    arm = score_predictions(
        ScoreInputs(hyp, refs=ref),
        ScoreFigures(normalizer="none", alignment="sclite", resamples=0),
    ).to_dict()["arms"]["hyp"]
    wer = arm["overall"]["views"]["raw"]["wer"]
    assert [wer[k] for k in ("substitutions", "deletions", "insertions")] == [0, 1, 1]
    with pytest.raises(EarmarkError, match="unknown alignment 'sclit'"):
        score_predictions(
            ScoreInputs(hyp, refs=ref), ScoreFigures(normalizer="none", alignment="sclit")
        )


def test_results_schema_accepts_the_sclite_block(tmp_path: Path) -> None:
    import jsonschema

    from earmark.render.results import results_schema

    ref, hyp = write_trn(tmp_path, *random_corpus(3, n=10))
    results = score_predictions(
        ScoreInputs(hyp, refs=ref),
        ScoreFigures(normalizer="none", resamples=0, sclite_reports=True),
    ).to_dict()
    jsonschema.validate(results, results_schema())
    assert results["inputs"]["formats_read"] == ["trn", "trn"]


@needs_sctk
def test_docs_quick_example_runs_and_matches_sclite(tmp_path: Path) -> None:
    """docs/sclite.md's first bash block runs, and prints the table the page shows,
    which is sclite's."""
    doc = (Path(__file__).parents[2] / "docs" / "sclite.md").read_text("utf-8")
    script = doc.split("```bash\n", 1)[1].split("```", 1)[0]
    shown = doc.split("```text\n", 1)[1].split("```", 1)[0]
    done = subprocess.run(
        ["bash", "-euc", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert parse_table(done.stdout) == parse_table(shown)
    assert parse_table(shown) == parse_table(sclite_trn("rsum", tmp_path))
