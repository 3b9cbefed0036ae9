"""MAPSSWE and McNemar: hand-computed cases, laws, and NIST sc_stats as the oracle (its
tests skip, saying so, when sctk is not installed)."""

from __future__ import annotations

import itertools
import json
import math
import random
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from earmark.errors import EarmarkError
from earmark.metrics.sclite_alignment import align_sclite
from earmark.stats.paired_tests import (
    mapsswe_from_columns,
    mapsswe_from_segments,
    mapsswe_segments,
    mapsswe_test,
    mcnemar_test,
    segment_columns,
    sign_test,
)

SCTK = shutil.which("sctk")
needs_sctk = pytest.mark.skipif(
    SCTK is None, reason="sctk is not installed (apt-get install -y sctk): no sc_stats oracle"
)

# ------------------------------------------------------------------ McNemar


def test_mcnemar_hand_cases() -> None:
    # x right where y is wrong on 6 sentences, never the reverse: p = 2 * (1/2)^6.
    r = mcnemar_test([0] * 6 + [1, 1], [1] * 6 + [2, 0])
    assert (r.both_correct, r.only_x_correct, r.only_y_correct, r.both_wrong) == (0, 6, 1, 1)
    # b = 6, c = 1: 2 * P(X <= 1), X ~ Bin(7, 1/2) = 2 * 8/128.
    assert r.p_value == pytest.approx(16 / 128)
    assert mcnemar_test([0, 1], [1, 0]).p_value == 1.0  # b == c
    assert mcnemar_test([0, 0], [0, 0]).p_value == 1.0  # no discordant sentence
    assert mcnemar_test([0], [3]).p_value == 1.0  # one discordant: 2 * 1/2


def test_mcnemar_agrees_with_scipy_binomtest() -> None:
    rng = random.Random(3)
    for _ in range(50):
        x = [rng.choice([0, 0, 1, 2]) for _ in range(40)]
        y = [rng.choice([0, 1, 1, 3]) for _ in range(40)]
        r = mcnemar_test(x, y)
        n = r.only_x_correct + r.only_y_correct
        if n and r.only_x_correct != r.only_y_correct:
            expected = scipy_stats.binomtest(r.only_x_correct, n, 0.5).pvalue
            assert r.p_value == pytest.approx(expected, rel=1e-12)
        # McNemar is the sign test on correct/incorrect indicators.
        indicator = sign_test([v > 0 for v in x], [v > 0 for v in y])
        assert r.p_value == pytest.approx(indicator.p_value)


def test_mcnemar_rejects_misaligned_input() -> None:
    with pytest.raises(EarmarkError, match="rows"):
        mcnemar_test([0, 1], [0])


# ------------------------------------------------------------------ MAPSSWE segments


@pytest.mark.parametrize(
    ("x", "y", "segments"),
    [
        # One error in the middle: two good words on each side bound it; the segment
        # keeps its bounding words (2 + 1 + 2 reference words).
        ("CCCCSCCCC", "CCCCCCCCC", [(5, 1, 0)]),
        # Errors one good word apart stay in one segment; two apart split (and share
        # the two bounding words).
        ("CSCSCC", "CCCCCC", [(6, 2, 0)]),
        ("CSCCSCC", "CCCCCCC", [(4, 1, 0), (5, 1, 0)]),
        # An error at the sentence edge runs to the edge.
        ("SCC", "CCC", [(3, 1, 0)]),
        ("CCS", "CCC", [(3, 1, 0)]),
        # Both err on different words of one stretch: one segment, both counted.
        ("CSCC", "CCDC", [(4, 1, 1)]),
        # An insertion breaks a run of good words, and trailing ones count.
        ("CCICC", "CCCC", [(4, 1, 0)]),
        ("CC", "CCI", [(2, 0, 1)]),
        ("ICC", "CC", [(2, 1, 0)]),
        # Nothing wrong: no segment at all.
        ("CCCC", "CCCC", []),
        ("", "", []),
        ("", "I", [(0, 0, 1)]),
    ],
)
def test_mapsswe_segments_hand_cases(x: str, y: str, segments: list) -> None:
    assert mapsswe_segments(x, y) == segments
    # Swapping the systems swaps the error columns, nothing else.
    assert mapsswe_segments(y, x) == [(r, b, a) for r, a, b in segments]


def test_mapsswe_segments_min_good() -> None:
    # With min_good = 1 a single shared good word closes a segment.
    assert mapsswe_segments("CSCSC", "CCCCC", min_good=1) == [(3, 1, 0), (3, 1, 0)]
    assert mapsswe_segments("CSCSC", "CCCCC", min_good=3) == [(5, 2, 0)]
    with pytest.raises(EarmarkError, match="min_good"):
        mapsswe_segments("C", "C", min_good=0)
    with pytest.raises(EarmarkError, match="same reference"):
        mapsswe_segments("CC", "C")
    with pytest.raises(EarmarkError, match="letters"):
        mapsswe_segments("CX", "CC")


def test_mapsswe_segments_laws() -> None:
    """Every error of either system lands in exactly one segment (errors are never
    counted twice; only bounding *correct* words are shared)."""
    rng = random.Random(11)
    for _ in range(500):
        ref = [rng.choice("abcd") for _ in range(rng.randint(0, 10))]
        hyps = [[w for w in ref if rng.random() > 0.15] for _ in range(2)]
        for h in hyps:
            for _ in range(rng.randint(0, 2)):
                h.insert(rng.randint(0, len(h)), rng.choice("abcde"))
        x, y = (evals(ref, h) for h in hyps)
        segs = mapsswe_segments(x, y)
        assert sum(s[1] for s in segs) == sum(c != "C" for c in x)
        assert sum(s[2] for s in segs) == sum(c != "C" for c in y)
        assert all(s[1] or s[2] for s in segs)


def test_one_alignment_on_both_sides_equals_the_column_by_column_machine() -> None:
    """Two arms that agree on a sentence (most sentences of a weight-type sweep): equal
    to the oracle on every string of up to 7 letters, at each `min_good`, and on long
    random ones."""
    strings = ["".join(t) for k in range(8) for t in itertools.product("CSDI", repeat=k)]
    rng = random.Random(5)
    for _ in range(300):
        rate = rng.choice([0.02, 0.1, 0.4])
        letters = (rng.choice("SDI") if rng.random() < rate else "C" for _ in range(120))
        strings.append("".join(letters))
    for min_good in (1, 2, 3, 4):
        for x in strings:
            assert mapsswe_segments(x, x, min_good) == _column_by_column(x, x, min_good), (
                x,
                min_good,
            )
    assert mapsswe_segments("CCSCCIC", "CCSCCIC") == [(5, 1, 1), (3, 1, 1)]


def _column_by_column(x_evals: str, y_evals: str, min_good: int) -> list[tuple[int, int, int]]:
    """sclite's state machine one column at a time, as earmark ran it before issue 25
    (it now segments every sentence at once with numpy, `segment_columns`): the oracle."""
    n1, n2 = len(x_evals), len(y_evals)
    out: list[tuple[int, int, int]] = []

    def close(beg1: int, beg2: int, end1: int, end2: int) -> None:
        s1, s2 = x_evals[max(beg1, 0) : end1 + 1], y_evals[max(beg2, 0) : end2 + 1]
        e1 = len(s1) - s1.count("C")
        e2 = len(s2) - s2.count("C")
        if e1 or e2:
            out.append(((len(s1) - s1.count("I") + len(s2) - s2.count("I")) // 2, e1, e2))

    i1 = i2 = eog1 = eog2 = good = 0
    state = "b"
    while i1 < n1 or i2 < n2:
        while i1 < n1 and x_evals[i1] == "I":
            i1, state = i1 + 1, "e"
        while i2 < n2 and y_evals[i2] == "I":
            i2, state = i2 + 1, "e"
        both = i1 < n1 and i2 < n2 and x_evals[i1] == "C" and y_evals[i2] == "C"
        if state == "b":
            if both:
                eog1, eog2 = i1, i2
            else:
                state = "e"
        elif both:
            good = 1 if state == "e" else good + 1
            state = "g"
            if good == min_good:
                close(eog1 - (min_good - 1), eog2 - (min_good - 1), i1, i2)
                eog1, eog2, state = i1, i2, "b"
        else:
            state = "e"
        i1 = min(i1 + 1, n1)
        i2 = min(i2 + 1, n2)
    if state != "b":
        close(eog1 - (min_good - 1), eog2 - (min_good - 1), n1 - 1, n2 - 1)
    return out


def _system(rng: random.Random, words: int, rate: float) -> str:
    out = []
    for _ in range(words):
        while rng.random() < rate / 3:
            out.append("I")
        out.append(rng.choice("SD") if rng.random() < rate else "C")
    while rng.random() < rate / 3:
        out.append("I")
    return "".join(out)


def test_mapsswe_segments_equal_the_column_by_column_machine() -> None:
    rng = random.Random(25)
    for trial in range(3000):
        words = rng.randint(0, 60)
        rate = rng.choice([0.02, 0.1, 0.3, 0.7])
        x, y = _system(rng, words, rate), _system(rng, words, rate / 2)
        for min_good in (1, 2, 3):
            assert mapsswe_segments(x, y, min_good) == _column_by_column(x, y, min_good), (
                trial,
                x,
                y,
                min_good,
            )


def _oracle_columns(pairs: list[tuple[str, str]], min_good: int) -> list[tuple[int, int, int, int]]:
    return [
        (i, *segment)
        for i, (x, y) in enumerate(pairs)
        for segment in _column_by_column(x, y, min_good)
    ]


def test_segment_columns_of_many_sentences_equal_the_oracle_sentence_by_sentence() -> None:
    """Many sentences at once (more than one numpy chunk, sentences without columns or
    with insertions only among them) give each sentence's segments, in order."""
    rng = random.Random(26)
    pairs = [("", ""), ("", "I"), ("II", ""), ("C", "C")]
    for _ in range(5000):
        words = rng.randint(0, 40)
        rate = rng.choice([0.0, 0.02, 0.1, 0.3, 0.7])
        x = _system(rng, words, rate)
        pairs.append((x, x) if rng.random() < 0.5 else (x, _system(rng, words, rate / 2)))
    rng.shuffle(pairs)
    for min_good in (1, 2, 3, 4):
        columns = segment_columns([x for x, _ in pairs], [y for _, y in pairs], min_good)
        got = list(zip(*(c.tolist() for c in columns), strict=True))
        assert got == _oracle_columns(pairs, min_good), min_good
        xs = [x for x, _ in pairs]  # one list on both sides: its letters are read once
        got = list(zip(*(c.tolist() for c in segment_columns(xs, xs, min_good)), strict=True))
        assert got == _oracle_columns([(x, x) for x in xs], min_good), min_good
    assert all(c.size == 0 for c in segment_columns([], []))


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(st.text("CSDI", max_size=12), st.text("CSDI", max_size=12)).filter(
            lambda p: len(p[0]) - p[0].count("I") == len(p[1]) - p[1].count("I")
        ),
        max_size=6,
    ),
    st.integers(1, 4),
)
def test_segment_columns_property(pairs: list[tuple[str, str]], min_good: int) -> None:
    columns = segment_columns([x for x, _ in pairs], [y for _, y in pairs], min_good)
    assert list(zip(*(c.tolist() for c in columns), strict=True)) == _oracle_columns(
        pairs, min_good
    )


def test_mapsswe_from_segments_is_the_test_over_sentences() -> None:
    sentences = [("CCSCC", "CCCCC"), ("SCC", "SCC"), ("SSCC", "CCCC"), ("CCC", "CCS")]
    found = [seg for x, y in sentences for seg in mapsswe_segments(x, y)]
    assert mapsswe_from_segments(found) == mapsswe_test(sentences)


def test_mapsswe_from_columns_is_the_test_from_segments() -> None:
    """The column form compare uses gives the same result, bit for bit (same order)."""
    rng = random.Random(7)
    found = [(rng.randint(1, 9), rng.randint(0, 4), rng.randint(0, 4)) for _ in range(500)]
    table = np.asarray(found, dtype=np.int64)
    got = mapsswe_from_columns(table[:, 0], table[:, 1], table[:, 2])
    assert got == mapsswe_from_segments(found)
    assert got.std_dev is not None and got.errors_x == sum(s[1] for s in found)
    none = np.zeros(0, dtype=np.int64)
    assert mapsswe_from_columns(none, none, none) == mapsswe_from_segments([])
    same = np.asarray([2, 2, 2], dtype=np.int64)
    assert mapsswe_from_columns(same, same, same - 1).null_reason is not None


def evals(ref: list[str], hyp: list[str]) -> str:
    letters = {"equal": "C", "substitute": "S", "delete": "D", "insert": "I"}
    return "".join(letters[op.kind] for op in align_sclite(ref, hyp).ops)


# ------------------------------------------------------------------ MAPSSWE statistic


def test_mapsswe_statistic_hand_computed() -> None:
    # Segment differences x - y: +1, +1, +2, -1 -> mean 0.75, s^2 = 1.5833..
    sentences = [("CCSCC", "CCCCC"), ("SCC", "CCC"), ("SSCC", "CCCC"), ("CCC", "CCS")]
    r = mapsswe_test(sentences)
    assert r.n_segments == 4 and (r.errors_x, r.errors_y) == (4, 1)
    diffs = [1, 1, 2, -1]
    mean = sum(diffs) / 4
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / 3)
    assert r.mean_difference == pytest.approx(mean)
    assert r.std_dev == pytest.approx(sd)
    assert r.z == pytest.approx(mean / (sd / 2))
    assert r.p_value == pytest.approx(2 * (1 - scipy_stats.norm.cdf(abs(mean / (sd / 2)))))


def test_mapsswe_degenerate_cases() -> None:
    none = mapsswe_test([("CC", "CC")])
    assert (none.n_segments, none.p_value) == (0, 1.0)
    tied = mapsswe_test([("SC", "DC"), ("CS", "CD")])
    assert tied.p_value == 1.0 and tied.mean_difference == 0.0
    same = mapsswe_test([("SCC", "CCC"), ("CCCCS", "CCCCC")])
    assert same.p_value is None and "zero variance" in (same.null_reason or "")


# ------------------------------------------------------------------ sc_stats oracle


def _corpus(seed: int, n: int = 80) -> tuple[list[str], list[str], list[str]]:
    rng = random.Random(seed)
    vocab = "the a cat sat on mat dog ran".split()
    refs, hyp_a, hyp_b = [], [], []
    for k in range(n):
        ref = [rng.choice(vocab) for _ in range(rng.randint(1, 12))]
        out = []
        for rate in (0.1, 0.2 if seed % 2 else 0.1):
            hyp = []
            for w in ref:
                u = rng.random()
                if u < rate / 2:
                    continue
                hyp.append(rng.choice(vocab) if u < rate else w)
                if rng.random() < rate / 4:
                    hyp.append(rng.choice(vocab))
            out.append(hyp)
        ident = f"s{k % 3}-u{k}"
        refs.append(f"{' '.join(ref)} ({ident})")
        hyp_a.append(f"{' '.join(out[0])} ({ident})")
        hyp_b.append(f"{' '.join(out[1])} ({ident})")
    return refs, hyp_a, hyp_b


def _sgml_evals(path: Path) -> dict[str, str]:
    out = {}
    text = path.read_text("utf-8")
    for m in re.finditer(r'<PATH id="\(([^)]*)\)"[^>]*>\n(.*?)</PATH>', text, re.S):
        body = m.group(2).strip()
        out[m.group(1)] = "".join(col[0] for col in body.split(":")) if body else ""
    return out


@needs_sctk
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_mapsswe_and_mcnemar_match_sc_stats(tmp_path: Path, seed: int) -> None:
    refs, a, b = _corpus(seed)
    for name, lines in (("R.trn", refs), ("A.trn", a), ("B.trn", b)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", "utf-8")
    assert SCTK is not None
    subprocess.run(
        [SCTK, "sclite", "-r", "R.trn", "trn", "-h", "A.trn", "trn", "-h", "B.trn", "trn",
         "-i", "rm", "-o", "sgml", "-O", str(tmp_path)],
        cwd=tmp_path, check=True, capture_output=True,
    )  # fmt: skip
    sgml = [tmp_path / "A.trn.sgml", tmp_path / "B.trn.sgml"]
    report = subprocess.run(
        [SCTK, "sc_stats", "-p", "-t", "mapsswe", "mcn", "-v", "-n", "-"],
        input="".join(p.read_text("utf-8") for p in sgml),
        cwd=tmp_path, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    ea, eb = _sgml_evals(sgml[0]), _sgml_evals(sgml[1])
    assert ea.keys() == eb.keys()
    # sclite's own alignments are what our weighted aligner produces.
    for line_ref, line_a in zip(refs, a, strict=True):
        ident = line_ref.rsplit("(", 1)[1][:-1]
        assert (
            evals(line_ref.rsplit("(", 1)[0].split(), line_a.rsplit("(", 1)[0].split())
            == (ea[ident])
        )
    ours = mapsswe_test([(ea[k], eb[k]) for k in ea])
    m = re.search(
        r"\(# segs: (\d+)\).*\(mean: (-?[\d.]+)\) \(std dev: ([\d.]+)\) \(Z Stat: (-?[\d.]+)\)",
        report,
    )
    assert m is not None, report
    assert ours.n_segments == int(m.group(1))
    assert ours.mean_difference == pytest.approx(float(m.group(2)), abs=5e-4)
    assert ours.std_dev == pytest.approx(float(m.group(3)), abs=5e-4)
    assert ours.z == pytest.approx(float(m.group(4)), abs=5e-4)
    totals = re.search(r"Totals\s+(\d+)\s+(\d+)\s+(\d+)", report)
    assert totals is not None
    assert (ours.errors_x, ours.errors_y) == (int(totals.group(2)), int(totals.group(3)))
    # McNemar: the sentence table and the p-value (sc_stats prints 3 decimals).
    errors_a = [sum(c != "C" for c in ea[k]) for k in ea]
    errors_b = [sum(c != "C" for c in eb[k]) for k in ea]
    mc = mcnemar_test(errors_a, errors_b)
    table = re.search(
        r"McNemar test results.*?corr\s+(\d+)\s+(\d+)\s+incorr\s+(\d+)\s+(\d+)",
        report.split("Performing the McNemar")[1],
        re.S,
    )
    assert table is not None
    assert (mc.both_correct, mc.only_x_correct, mc.only_y_correct, mc.both_wrong) == tuple(
        int(g) for g in table.groups()
    )
    # sc_stats 2.4.10's own McNemar p is wrong once b + c exceeds about 20 (its binomial
    # tail overflows: b=19, c=12 prints 0.001 where the exact value is 0.281), so the
    # p-value is checked against scipy here and against sc_stats on small tables below.
    n = mc.only_x_correct + mc.only_y_correct
    if mc.only_x_correct != mc.only_y_correct:
        expected = scipy_stats.binomtest(mc.only_y_correct, n, 0.5).pvalue
        assert mc.p_value == pytest.approx(expected, rel=1e-12)


def _run_sc_stats(folder: Path, test: str) -> str:
    assert SCTK is not None
    subprocess.run(
        [SCTK, "sclite", "-r", "R.trn", "trn", "-h", "A.trn", "trn", "-h", "B.trn", "trn",
         "-i", "rm", "-o", "sgml", "-O", str(folder)],
        cwd=folder, check=True, capture_output=True,
    )  # fmt: skip
    sgml = "".join((folder / f"{n}.trn.sgml").read_text("utf-8") for n in ("A", "B"))
    return subprocess.run(
        [SCTK, "sc_stats", "-p", "-t", test, "-n", "-"],
        input=sgml, cwd=folder, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip


@needs_sctk
@pytest.mark.parametrize(("b", "c"), [(3, 0), (5, 1), (8, 2), (10, 4), (12, 5), (7, 7)])
def test_mcnemar_p_matches_sc_stats(tmp_path: Path, b: int, c: int) -> None:
    """b sentences only A gets right, c only B: sc_stats' Conf is our p (3 decimals)."""
    lines: dict[str, list[str]] = {"R": [], "A": [], "B": []}
    for k in range(b + c):
        a_ok = k < b
        lines["R"].append(f"a (s-{k})")
        lines["A"].append(f"{'a' if a_ok else 'b'} (s-{k})")
        lines["B"].append(f"{'b' if a_ok else 'a'} (s-{k})")
    for name, text in lines.items():
        (tmp_path / f"{name}.trn").write_text("\n".join(text) + "\n", "utf-8")
    report = _run_sc_stats(tmp_path, "mcn")
    conf = re.search(r"Conf=\(([\d.]+)\)", report)
    assert conf is not None, report
    ours = mcnemar_test([0] * b + [1] * c, [1] * b + [0] * c)
    assert ours.p_value == pytest.approx(float(conf.group(1)), abs=5e-4)


# ------------------------------------------------------------------ in `earmark compare`


def _arm(folder: Path, name: str, hyps: dict[str, str], refs: dict[str, str]) -> str:
    path = folder / f"{name}.jsonl"
    rows = [{"id": k, "reference": refs[k], "hypothesis": h} for k, h in hyps.items()]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return str(path)


def test_compare_reports_mcnemar_and_mapsswe_with_holm(tmp_path: Path) -> None:
    from earmark.file_comparison import compare
    from earmark.stats.paired_tests import holm_adjust

    refs = {f"u{k}": "a b c d e f" for k in range(8)}
    ref_arm = {k: "a b x d e f" for k in refs}  # one substitution everywhere
    better = {k: ("a b c d e f" if int(k[1:]) < 6 else "a b x d e f") for k in refs}
    worse = {k: "a y x d e f" for k in refs}
    specs = [
        _arm(tmp_path, "R", ref_arm, refs),
        _arm(tmp_path, "B", better, refs),
        _arm(tmp_path, "W", worse, refs),
    ]
    result = compare(specs, normalizer="none", reference="R", resamples=0, jobs=1)
    r = result.to_dict()
    pairs = {p["challenger"]: p for p in r["pairs"] if p["metric"] == "wer"}
    b, w = pairs["B"], pairs["W"]
    # McNemar: B right on 6 clips where R is wrong, never the reverse: p = 2 / 2^6.
    assert b["tests"]["mcnemar"]["challenger_only_correct"] == 6
    assert b["mcnemar_p"] == pytest.approx(2 / 64)
    assert w["mcnemar_p"] == 1.0  # both wrong on every clip
    # MAPSSWE, by hand: B's segments differ by +1 (R's error) on 6 sentences, 0 on 2.
    letters_r, letters_b = "CCSCCC", "CCCCCC"
    expected = mapsswe_test([(letters_r, letters_b)] * 6 + [(letters_r, letters_r)] * 2)
    assert b["tests"]["mapsswe"]["n_segments"] == expected.n_segments == 8
    assert b["mapsswe_p"] == pytest.approx(expected.p_value)
    # W: R's error and W's two errors fall in one segment per sentence (+1 - 2 = -1
    # every time): zero variance, so null with its reason, never a made-up p.
    assert w["mapsswe_p"] is None
    assert "zero variance" in w["tests"]["mapsswe"]["null_reason"]
    # Holm across the two challengers, each test on its own.
    assert b["mcnemar_p_holm"] == pytest.approx(holm_adjust([b["mcnemar_p"], 1.0])[0])
    assert b["mapsswe_p_holm"] == b["mapsswe_p"]  # the only MAPSSWE p in the family
    from earmark.comparison.compare_report import render_compare_markdown

    text = render_compare_markdown(result)
    assert "MAPSSWE p" in text and "McNemar p" in text


def test_compare_with_repeats_leaves_mapsswe_null(tmp_path: Path) -> None:
    from earmark.file_comparison import compare

    rows_r = [{"id": "u1", "repeat": k, "reference": "a b", "hypothesis": "a x"} for k in range(2)]
    rows_c = [{"id": "u1", "repeat": k, "reference": "a b", "hypothesis": "a b"} for k in range(2)]
    specs = []
    for name, rows in (("R", rows_r), ("C", rows_c)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
        specs.append(str(path))
    r = compare(specs, normalizer="none", reference="R", resamples=0, jobs=1).to_dict()
    (pair,) = [p for p in r["pairs"] if p["metric"] == "wer" and p["language"] is None]
    assert pair["mapsswe_p"] is None and "repeats" in pair["tests"]["mapsswe"]["null_reason"]
    # One clip, right on both repeats for C and wrong on both for R: one discordant clip.
    assert pair["tests"]["mcnemar"]["challenger_only_correct"] == 1
    assert pair["mcnemar_p"] == 1.0


def test_docs_examples() -> None:
    """The `>>>` examples of docs/sclite.md hold."""
    import doctest

    doc = Path(__file__).parents[2] / "docs" / "sclite.md"
    result = doctest.testfile(str(doc), module_relative=False)
    assert result.attempted >= 2 and result.failed == 0
