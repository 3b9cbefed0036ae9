"""sclite pairs read as streams give exactly what the whole-file readers gave.

trn pairs read row by row (`formats.trn_join`) and lines read a block at a time
(`records.record_blocks`): the same rows in the same order, the same exclusions, the
same first error with its file and line, `pair_trn` (both files read whole, then joined)
the oracle. stm/ctm pairs (`formats.ctm`): a segment kept for a channel's next words
answers as a fresh search does, and words sort within their segment whatever the file
order. Hostile inputs (repeated, missing and out-of-order ids on either side, markup,
blank and bad lines, NUL, lone surrogates' bytes, CRLF, a BOM, over-long lines, a FIFO)
are generated or written here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from earmark.errors import EarmarkError
from earmark.formats.pairs import stream_pairs
from earmark.formats.rows import MISSING_HYPOTHESIS, OK, ScoringRow
from earmark.formats.trn import pair_trn
from earmark.records import MAX_RECORD_BYTES_ENV, read_records, record_blocks

EXAMPLES = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _outcome(read: object) -> object:
    """What a read gives: its value, or its error's message, file, line and field."""
    assert callable(read)
    try:
        return read()
    except EarmarkError as exc:
        return ("error", exc.message, exc.file, exc.line, exc.field)


# ------------------------------------------------------------------ record_blocks


def _block_lines(path: Path) -> list[tuple[int, str]]:
    out = []
    for first, lines in record_blocks(path):
        out.extend(enumerate(lines, first))
    return out


_BYTES = st.lists(
    st.sampled_from(
        [b"\n", b"\r\n", b"\r", b"a", b"word ", b"\xef\xbb\xbf", b"\xe2\x80\xa8", b"\x00"]
        + [b"\xff", b"\xed\xa0\x80", b"\xc3\xa9", b"x" * 7, b"\t", b"  "]
    ),
    max_size=40,
).map(b"".join)


@EXAMPLES
@given(data=_BYTES, bound=st.sampled_from([4, 8, 16, 1 << 20]))
def test_record_blocks_read_what_read_records_reads(
    data: bytes, bound: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same lines, numbers and errors, with blocks as short as the record bound (so lines
    straddle blocks, and over-long ones are met in every position)."""
    monkeypatch.setenv(MAX_RECORD_BYTES_ENV, str(bound))
    path = tmp_path / "x.txt"
    path.write_bytes(data)
    assert _outcome(lambda: _block_lines(path)) == _outcome(lambda: list(read_records(path)))


def test_record_blocks_by_hand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes("\ufeffa\r\nb\u2028c\rd\n\nlast".encode("utf-8"))
    assert _block_lines(path) == [(1, "a"), (2, "b\u2028c\rd"), (3, ""), (4, "last")]
    monkeypatch.setenv(MAX_RECORD_BYTES_ENV, "3")
    path.write_bytes(b"abc\r\nab\nabcd\n")
    with pytest.raises(EarmarkError, match="record longer than 3 bytes") as caught:
        _block_lines(path)
    assert caught.value.line == 3
    path.write_bytes(b"ok\n\xed\xa0\x80\n")  # a lone surrogate's UTF-8 bytes
    monkeypatch.delenv(MAX_RECORD_BYTES_ENV)
    with pytest.raises(EarmarkError, match=r"not valid UTF-8 \(byte 0xed\)") as caught:
        _block_lines(path)
    assert caught.value.line == 2


# ------------------------------------------------------------------ the join


def _stream(hyp: Path, ref: Path, allow_extra: bool) -> tuple[list[ScoringRow], object]:
    stream = stream_pairs(hyp, refs=ref, fmt="trn", allow_extra_hypotheses=allow_extra)
    rows = list(stream.rows)
    return rows, stream.excluded


def _scorer_stream(hyp: Path, ref: Path, allow_extra: bool) -> tuple[list[ScoringRow], object]:
    """As the scorer reads it: ids unchecked by the reader; a repeated row id, or any
    error of the rows, sends it to `recheck` (which must then raise)."""
    stream = stream_pairs(
        hyp, refs=ref, fmt="trn", allow_extra_hypotheses=allow_extra, check_ids=False
    )
    try:
        rows = list(stream.rows)
        if len({r.id for r in rows}) != len(rows):
            raise EarmarkError("repeated id (the scorer's own words)")
    except EarmarkError:
        stream.recheck()
        raise AssertionError("recheck found no error") from None
    assert list(stream.reread()) == rows
    return rows, stream.excluded


def _whole(hyp: Path, ref: Path, allow_extra: bool) -> tuple[list[ScoringRow], object]:
    read = pair_trn(hyp, ref, allow_extra=allow_extra)
    return read.rows, read.excluded


_LINES = st.lists(
    st.one_of(
        st.builds("w{} x ({})".format, st.integers(0, 3), st.sampled_from("abcdef")),
        st.sampled_from(["", "no id", "{ a / b } c (a)", "(uh) d (b)", "p  q\t(c)", "e (b c)"]),
        st.sampled_from(["f / g (d)", "h (spk\x00)", "é ü (e)", " lead (f) ", "{ x (a)"]),
    ),
    max_size=10,
)


@EXAMPLES
@given(refs=_LINES, hyps=_LINES, shuffled=st.booleans(), allow_extra=st.booleans())
def test_the_stream_is_the_whole_files_join(
    refs: list[str], hyps: list[str], shuffled: bool, allow_extra: bool, tmp_path: Path
) -> None:
    """Rows, order, exclusions and first error equal `pair_trn`'s, read as `read_pairs`
    does (ids checked) and as the scorer does (ids left to it, then `recheck`)."""
    if shuffled:  # the hypotheses in the references' order first: lockstep, then not
        hyps = refs[: len(refs) // 2] + hyps
    (tmp_path / "r.trn").write_text("\n".join(refs), "utf-8")
    (tmp_path / "h.trn").write_text("\n".join(hyps), "utf-8")
    args = (tmp_path / "h.trn", tmp_path / "r.trn", allow_extra)
    expected = _outcome(lambda: _whole(*args))
    assert _outcome(lambda: _stream(*args)) == expected
    assert _outcome(lambda: _scorer_stream(*args)) == expected


@pytest.mark.parametrize(
    ("refs", "hyps"),
    [
        ([], ["a (x)"]),  # no references: their file's error, even with extras allowed
        (["a (x)"], []),
        ([""], ["", ";; no"]),
        (["a (x)"], ["a (x)", "a (x)"]),  # a repeat after the lockstep's last line
        (["a (x)", "b (y)"], ["b (y)", "a (x)", "c (z)", "b (y)"]),
        (["a (x)", "a (x)"], ["a (x)"]),
        (["a (x)", "b (y)", "c (z)"], ["a (x)", "b (y)"]),  # hypotheses end first
        (["a (x)"], ["a (x)", "b (y)", "c (z)"]),  # references end first
    ],
)
@pytest.mark.parametrize("allow_extra", [True, False])
def test_edge_files_join_as_whole_files(
    refs: list[str], hyps: list[str], allow_extra: bool, tmp_path: Path
) -> None:
    args = (*_write(tmp_path, refs, hyps), allow_extra)
    expected = _outcome(lambda: _whole(*args))
    assert _outcome(lambda: _stream(*args)) == expected
    assert _outcome(lambda: _scorer_stream(*args)) == expected


def test_the_plain_block_check_knows_every_split_character() -> None:
    """`_NOT_PLAIN` names every character `str.split` splits at, but the space and the
    `\\n` that ends a block's lines: a block free of them (and of markup and double
    spaces) needs no per-line split."""
    from earmark.formats.trn import _NOT_PLAIN

    splitting = {chr(i) for i in range(0x110000) if chr(i).isspace()} - {" ", "\n"}
    assert set(_NOT_PLAIN) == splitting | set("{}/")


def _write(tmp_path: Path, refs: list[str], hyps: list[str]) -> tuple[Path, Path]:
    (tmp_path / "r.trn").write_text("".join(f"{t}\n" for t in refs), "utf-8")
    (tmp_path / "h.trn").write_text("".join(f"{t}\n" for t in hyps), "utf-8")
    return tmp_path / "h.trn", tmp_path / "r.trn"


def test_lockstep_then_by_id_by_hand(tmp_path: Path) -> None:
    """Same order for two lines, then a missing, a swapped pair and an extra hypothesis."""
    hyp, ref = _write(
        tmp_path,
        ["a b (s-1)", "c (s-2)", "d (s-3)", "e f (s-4)", "g (s-5)"],
        ["a b (s-1)", "c x (s-2)", "f (s-4)", "zz (t-9)", "g g (s-5)"],
    )
    rows, excluded = _stream(hyp, ref, allow_extra=True)
    assert [(r.id, r.reference, r.hypothesis, r.status, r.extra) for r in rows] == [
        ("s-1", "a b", "a b", OK, {"speaker": "s"}),
        ("s-2", "c", "c x", OK, {"speaker": "s"}),
        ("s-3", "d", None, MISSING_HYPOTHESIS, {"speaker": "s"}),
        ("s-4", "e f", "f", OK, {"speaker": "s"}),
        ("s-5", "g", "g g", OK, {"speaker": "s"}),
    ]
    assert excluded == [{"id": "t-9", "reason": "no_reference"}]
    with pytest.raises(EarmarkError, match="hypothesis for id 't-9' has no reference") as caught:
        _stream(hyp, ref, allow_extra=False)
    assert (caught.value.file, caught.value.line) == (str(hyp), 4)


def test_a_lockstep_hypothesis_repeated_later_is_a_duplicate(tmp_path: Path) -> None:
    """The first two hypotheses are read in lockstep and not kept; the third repeats the
    first, which only an excluded hypothesis could hide: it is the duplicate it is."""
    hyp, ref = _write(
        tmp_path, ["a (s-1)", "b (s-2)", "c (s-3)"], ["a (s-1)", "b (s-2)", "x (s-1)"]
    )
    for allow_extra in (True, False):
        with pytest.raises(
            EarmarkError, match=r"duplicate utterance id 's-1' \(first on line 1\)"
        ) as caught:
            _stream(hyp, ref, allow_extra)
        assert (caught.value.file, caught.value.line) == (str(hyp), 3)


def test_errors_of_the_references_come_first(tmp_path: Path) -> None:
    """A bad hypothesis line met first while streaming still yields to a bad reference
    line further down, as when the references were read whole first."""
    hyp, ref = _write(tmp_path, [f"w ({k})" for k in range(30)] + ["bad"], ["bad hyp"])
    with pytest.raises(EarmarkError, match="ends with its utterance id") as caught:
        _stream(hyp, ref, allow_extra=False)
    assert (caught.value.file, caught.value.line) == (str(ref), 31)
    hyp, ref = _write(tmp_path, ["a (1)", "b (2)", "a (1)"], ["a (1)", "b (2)", "a (1)"])
    with pytest.raises(EarmarkError, match="first on line 1") as caught:
        _scorer_stream(hyp, ref, allow_extra=True)
    assert (caught.value.file, caught.value.line) == (str(ref), 3)


def test_marked_up_references_keep_their_markup(tmp_path: Path) -> None:
    hyp, ref = _write(tmp_path, ["{ ok / okay } (uh) go (s-1)"], ["okay go (s-1)"])
    (row,) = _stream(hyp, ref, allow_extra=False)[0]
    assert (row.reference, row.hypothesis) == ("ok uh go", "okay go")
    assert row.extra == {"speaker": "s", "reference_markup": "{ ok / okay } (uh) go"}


def test_hostile_trn_files_are_one_line_errors(tmp_path: Path) -> None:
    """Through the CLI: a FIFO on either side, an over-long line, a NUL in an id and a
    lone surrogate's bytes each end in one error line naming the file and line."""

    def score(hyp: Path, ref: Path, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "earmark", "score", str(hyp), "--refs", str(ref)]
            + ["--format", "trn", "--normalizer", "none", "--bootstrap", "0", "--quiet"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, **(env or {})},
            check=False,
        )
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        return done.stderr

    good = tmp_path / "good.trn"
    good.write_text("a b (s-1)\n", "utf-8")
    fifo = tmp_path / "pipe.trn"
    os.mkfifo(fifo)
    assert "is a FIFO" in score(fifo, good) and "is a FIFO" in score(good, fifo)
    long = tmp_path / "long.trn"
    long.write_text("a b (s-1)\n" + "x " * 40 + "(s-2)\n", "utf-8")
    assert f"{long}:2: record longer than 64 bytes" in score(
        long, good, {MAX_RECORD_BYTES_ENV: "64"}
    )
    nul = tmp_path / "nul.trn"
    nul.write_text("a b (s-\x001)\n", "utf-8")
    assert f"{nul}:1: field 'id': invalid utterance id" in score(good, nul)
    surrogate = tmp_path / "sur.trn"
    surrogate.write_bytes(b"a b (s-1)\nc \xed\xa0\x80 (s-2)\n")
    assert f"{surrogate}:2: not valid UTF-8 (byte 0xed)" in score(surrogate, good)


# ------------------------------------------------------------------ stm / ctm


@EXAMPLES
@given(
    spans=st.lists(
        st.tuples(st.integers(0, 12), st.integers(0, 4)).map(
            lambda t: (t[0] / 2, (t[0] + t[1]) / 2)
        ),
        min_size=1,
        max_size=8,
    ),
    mids=st.lists(st.integers(-1, 16).map(lambda m: m / 2), max_size=30),
)
def test_a_channels_kept_answer_is_the_search_answer(
    spans: list[tuple[float, float]], mids: list[float]
) -> None:
    """A segment found inside is kept for the next words; every answer equals a fresh
    search's (overlaps, gaps, zero-length segments, the last segment's end)."""
    from earmark.formats.ctm import _Channel

    starts, ends = [s for s, _ in spans], [e for _, e in spans]
    kept = _Channel.build(starts, ends, list(range(len(spans))))
    for mid in mids:
        fresh = _Channel.build(starts, ends, list(range(len(spans))))
        assert kept.segment_for(mid) == fresh.segment_for(mid), mid


def test_ctm_words_out_of_order_by_hand(tmp_path: Path) -> None:
    """Words sort by start (then line) within their segment, whatever the file's order;
    a word in a gap goes to the nearer segment and is counted outside it."""
    from earmark.formats.ctm import pair_stm_ctm

    (tmp_path / "r.stm").write_text("f A s1 0 2 a b c\nf A s2 3 4 d\n", "utf-8")
    (tmp_path / "h.ctm").write_text(
        "f A 3.1 0.2 d\nf A 1.0 0.2 c\nf A 0.1 0.2 a\nf A 0.5 0 b\nf A 2.2 0.1 x\nf A 0.5 0 bb\n",
        "utf-8",
    )
    read = pair_stm_ctm(tmp_path / "h.ctm", tmp_path / "r.stm")
    assert [
        (r.id, r.reference, r.hypothesis, r.extra.get("ctm_words_outside")) for r in read.rows
    ] == [
        ("s1-f-A-0.00-2.00", "a b c", "a b bb c x", 1),
        ("s2-f-A-3.00-4.00", "d", "d", None),
    ]


def test_hostile_stm_and_ctm_files_are_one_line_errors(tmp_path: Path) -> None:
    def score(ctm: Path, stm: Path) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "earmark", "score", str(ctm), "--refs", str(stm)]
            + ["--normalizer", "none", "--bootstrap", "0", "--quiet"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, MAX_RECORD_BYTES_ENV: "64"},
            check=False,
        )
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        return done.stderr

    stm, ctm = tmp_path / "r.stm", tmp_path / "h.ctm"
    stm.write_text("f A s1 0 2 a b\n", "utf-8")
    ctm.write_text("f A 0.1 0.2 a\n", "utf-8")
    fifo_stm, fifo_ctm = tmp_path / "p.stm", tmp_path / "p.ctm"
    os.mkfifo(fifo_stm)
    os.mkfifo(fifo_ctm)
    assert "is a FIFO" in score(ctm, fifo_stm) and "is a FIFO" in score(fifo_ctm, stm)
    long = tmp_path / "long.ctm"
    long.write_text("f A 0.1 0.2 a\nf A 0.3 0.1 " + "x" * 80 + "\n", "utf-8")
    assert f"{long}:2: record longer than 64 bytes" in score(long, stm)
    bad = tmp_path / "bad.stm"
    bad.write_bytes(b"f A s1 0 2 a b\nf A s2 2 3 \xed\xa0\x80\n")
    assert f"{bad}:2: not valid UTF-8 (byte 0xed)" in score(ctm, bad)
