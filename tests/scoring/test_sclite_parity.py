"""Issue 23, parity with sclite: speakers read from trn ids by `sclite -i FORM`, and every
figure of the `.sys`/`.raw` tables printed as sclite prints it. `sctk sclite` is the
oracle, run on the same files (tests that need it skip, saying so, when it is absent)."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.formats.trn import ID_FORMATS, checked_id_format, sclite_speaker

SCTK = shutil.which("sctk")
needs_sctk = pytest.mark.skipif(
    SCTK is None, reason="sctk is not installed (apt-get install -y sctk): no sclite oracle"
)

#: Ids of every form the four rules tell apart: separators first, doubled, leading,
#: trailing, mixed; upper case; ids shorter than three characters; no separator at all
#: (sclite then counts the utterance under the previous one's speaker).
ID_FORMS = [
    "spk3_0042", "spk3_0043", "SPK4_0001", "ab-cd_ef-gh", "ab-cd_ef-ij", "4ozc0201",
    "4ozc0202", "sw2001-A_000000-000100", "sw2001-A_000100-000200", "sw2001-B_000000-000100",
    "noseps", "a_b_c-d", "x-y-z", "p_q_r", "_lead", "-lead", "sp", "a_-b", "a-_b", "ab_",
    "ab-", "x_y.z-w", "en_4156_A_00123", "A.B_c", "q", "abcd",
]  # fmt: skip


def sclite_table(folder: Path, form: str, report: str) -> dict[str, list[str]]:
    """label -> the printed cells of `sctk sclite -i FORM -o REPORT` on ref.trn/hyp.trn."""
    assert SCTK is not None
    out = subprocess.run(
        [SCTK, "sclite", "-r", "ref.trn", "trn", "-h", "hyp.trn", "trn", "-i", form]
        + ["-o", report, "stdout"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return table_cells(out)


def table_cells(text: str) -> dict[str, list[str]]:
    """Every row of a summary table (sclite's or earmark's .sys/.raw) as printed strings."""
    rows: dict[str, list[str]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] != "SPKR" and cells[0][:1] not in ("-", "="):
            rows[cells[0]] = (cells[1] + " " + cells[2]).split()
    return rows


def score_trn(folder: Path, out: Path, **figures: object) -> dict:
    """earmark score hyp.trn --refs ref.trn --normalizer none --bootstrap 0 FIGURES."""
    return score_predictions(
        ScoreInputs(folder / "hyp.trn", refs=folder / "ref.trn"),
        ScoreFigures(normalizer="none", resamples=0, **figures),  # type: ignore[arg-type]
        out_dir=out,
    ).to_dict()


def write_pair(folder: Path, lines: list[tuple[str, str, str]]) -> None:
    """(id, reference, hypothesis) lines as ref.trn and hyp.trn, in the same order."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ref.trn").write_text("".join(f"{r} ({i})\n" for i, r, _ in lines), "utf-8")
    (folder / "hyp.trn").write_text("".join(f"{h} ({i})\n" for i, _, h in lines), "utf-8")


def earmark_table(folder: Path, form: str | None, report: str = "sys") -> dict[str, list[str]]:
    out = folder / f"out-{form}"
    score_trn(folder, out, sclite_reports=True, alignment="sclite", id_format=form)
    return table_cells((out / f"hyp.{report}").read_text("utf-8"))


def id_corpus(seed: int) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    lines = []
    for ident in ID_FORMS:
        ref = [rng.choice("abcde") for _ in range(rng.randint(1, 6))]
        hyp = [w if rng.random() < 0.7 else rng.choice("abcdexy") for w in ref]
        if rng.random() < 0.3:
            hyp.insert(rng.randrange(len(hyp) + 1), "y")
        lines.append((ident, " ".join(ref), " ".join(hyp)))
    return lines


# ------------------------------------------------------------------ speaker rules


def test_sclite_speaker_rules_by_hand() -> None:
    assert [sclite_speaker(i, "rm") for i in ("spk3_0042", "AB-cd_ef", "a_b_c-d", "a_-b")] == [
        "spk3",
        "ab",
        "a_b_c",
        "a_",
    ]
    assert sclite_speaker("noseps", "spu_id") is None
    assert sclite_speaker("-lead", "swb") == ""
    assert [sclite_speaker(i, "wsj") for i in ("4ozc0201", "AB", "x", "zz-0")] == [
        "4oz",
        "ab)",
        "x)",
        "zz-",
    ]
    assert checked_id_format(None) is None
    with pytest.raises(EarmarkError, match="unknown id format"):
        checked_id_format("kaldi")


@needs_sctk
@pytest.mark.parametrize("form", ID_FORMATS)
def test_speakers_and_sys_equal_sclite_for_each_id_format(tmp_path: Path, form: str) -> None:
    write_pair(tmp_path, id_corpus(7))
    for report, ours in (("sum", "sys"), ("rsum", "raw")):
        theirs = sclite_table(tmp_path, form, report)
        mine = earmark_table(tmp_path, form, ours)
        theirs["Sum/Avg" if report == "sum" else "Sum"] = theirs.pop(
            "Sum/Avg" if report == "sum" else "Sum"
        )
        assert mine == theirs, (form, report)


@needs_sctk
def test_spu_id_groups_underscore_ids_by_speaker(tmp_path: Path) -> None:
    """The issue's case: `spk3_0042` ids are one speaker per `spk3` under spu_id, as
    `sctk sclite -i spu_id` groups them; earmark's default rule keeps each id apart."""
    lines = [(f"spk{k % 3}_{k:04d}", "a b c", "a c" if k % 2 else "a b c") for k in range(12)]
    write_pair(tmp_path, lines)
    theirs = sclite_table(tmp_path, "spu_id", "sum")
    mine = earmark_table(tmp_path, "spu_id")
    assert mine == theirs
    assert [k for k in mine if k.startswith("spk")] == ["spk0", "spk1", "spk2"]
    assert len([k for k in earmark_table(tmp_path, None) if k.startswith("spk")]) == 12


def test_id_format_needs_the_reports_and_the_cli_prints_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_pair(tmp_path, [("spk1_1", "a b", "a"), ("spk1_2", "c", "c")])
    with pytest.raises(EarmarkError, match="--id-format"):
        score_trn(tmp_path, tmp_path / "o", id_format="spu_id")
    code = main(
        ["score", str(tmp_path / "hyp.trn"), "--refs", str(tmp_path / "ref.trn")]
        + ["--normalizer", "none", "--bootstrap", "0", "--sclite-reports"]
        + ["--id-format", "spu_id", "--out", str(tmp_path / "cli")]
    )
    assert code == 0
    assert "sclite speakers: sclite -i spu_id: the id" in capsys.readouterr().out
    import json

    block = json.loads((tmp_path / "cli" / "results.json").read_text("utf-8"))["arms"]["hyp"][
        "sclite"
    ]
    assert block["id_format"] == "spu_id"
    assert [s["speaker"] for s in block["speakers"]] == ["spk1"]


# ------------------------------------------------------------------ printed figures


def halves_corpus(seed: int) -> list[tuple[str, str, str]]:
    """Utterances of 4, 8, 16, 40, 80 words and few errors, over several speakers: the
    percentages and their means land on x.x5 often (1/16 = 6.25%, means of two)."""
    rng = random.Random(seed)
    lines = []
    speakers = rng.randint(2, 8)
    for k in range(rng.randint(3, 24)):
        ref = [f"w{i}" for i in range(rng.choice([1, 2, 4, 5, 8, 16, 20, 40, 80, 3, 7]))]
        hyp = list(ref)
        for _ in range(rng.randint(0, 4)):
            r = rng.random()
            if r < 0.4 and hyp:
                hyp[rng.randrange(len(hyp))] = "x"
            elif r < 0.7 and hyp:
                del hyp[rng.randrange(len(hyp))]
            else:
                hyp.insert(rng.randint(0, len(hyp)), "y")
        lines.append((f"s{rng.randrange(speakers)}-u{k}", " ".join(ref), " ".join(hyp)))
    return lines


@needs_sctk
def test_every_printed_figure_equals_sclites(tmp_path: Path) -> None:
    """Every cell of `.sys` (percentages, Mean, S.D., Median) and `.raw` (counts and their
    statistics) as `sctk sclite -o sum` / `-o rsum` prints it, on 30 tables where halves
    abound; the figures that sit on a half are counted, so the test cannot pass vacuously."""
    on_half = 0
    for seed in range(30):
        folder = tmp_path / str(seed)
        write_pair(folder, halves_corpus(seed))
        for report, ours in (("sum", "sys"), ("rsum", "raw")):
            theirs = sclite_table(folder, "rm", report)
            mine = earmark_table(folder, "rm", ours)
            assert mine == theirs, (seed, report)
            on_half += sum(
                1 for cells in theirs.values() for v in cells if "." in v and v.endswith("3")
            )
    assert on_half > 50


def test_sclite_figure_rounds_halves_up() -> None:
    """1.25 prints 1.3 in sclite's `.sys` (Python's and printf's `%.1f` give 1.2): the
    rounding adds a half to the value times ten and truncates, as SCTK's `F_ROUND`."""
    from earmark.scoring.sclite_text import sclite_figure

    assert f"{1.25:.1f}" == "1.2"
    assert [sclite_figure(v) for v in (1.25, 6.25, 18.75, 0.25, 99.95, 2 / 3 * 100)] == [
        "1.3",
        "6.3",
        "18.8",
        "0.3",
        "100.0",
        "66.7",
    ]


# ------------------------------------------------------------------ hostile ids


@pytest.mark.parametrize("ident", ["x\x00y-1", "a\x1b[2J-1", "tab\x7f-2"])
def test_control_characters_in_trn_ids_are_one_line_errors(tmp_path: Path, ident: str) -> None:
    write_pair(tmp_path, [("ok-1", "a", "a"), (ident, "b", "b")])
    with pytest.raises(EarmarkError, match="invalid utterance id") as err:
        score_trn(tmp_path, tmp_path / "o", sclite_reports=True, id_format="rm")
    assert "\n" not in str(err.value)


def test_undecodable_trn_is_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "ref.trn").write_bytes(b"a (spk_1)\n\xed\xa0\x80 (spk_2)\n")  # a lone surrogate
    (tmp_path / "hyp.trn").write_bytes(b"a (spk_1)\n")
    with pytest.raises(EarmarkError) as err:
        score_trn(tmp_path, tmp_path / "o", sclite_reports=True, id_format="spu_id")
    assert "\n" not in str(err.value)


def test_hostile_ids_keep_their_rule_and_every_row(tmp_path: Path) -> None:
    """Markup, traversal, a 100,000-character id and non-ASCII capitals: each speaker is
    what the rule says (read, never interpreted), and every row is counted."""
    huge = "h" * 100_000 + "_1"
    lines = [
        ("<script>alert'x'</script>_1", "a b", "a"),
        ("../../etc/passwd", "c", "c"),  # no separator: the previous row's speaker
        (huge, "d", "e"),
        ("ÄB-1", "f", "f"),
        ("ÄB-2", "g", "g"),
    ]
    write_pair(tmp_path, lines)
    results = score_trn(tmp_path, tmp_path / "o", sclite_reports=True, id_format="rm")
    block = results["arms"]["hyp"]["sclite"]
    speakers = {s["speaker"]: s["sentences"] for s in block["speakers"]}
    assert speakers == {"<script>alert'x'</script>": 2, "h" * 100_000: 1, "Äb": 2}
    assert block["total"]["sentences"] == 5
    sys_text = (tmp_path / "o" / "hyp.sys").read_text("utf-8")
    assert "<script>alert'x'</script>" in sys_text  # plain text, written as read
