"""Reading that never guesses: records end at "\\n" only, Kaldi ids at any whitespace,
`--format lines` pairs by line, an ambiguous plain-text pair is refused, empty input fails.

Each case here was misread before `earmark.records` (issue 11, item 5); the hand-computed
figures are checked against jiwer where jiwer reads the same input.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import jiwer
import pytest
from hypothesis import given
from hypothesis import strategies as st

from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.formats.kaldi import looks_like_utterance_id
from earmark.formats.pairs import read_pairs
from earmark.records import decode_records, read_records, split_records

#: Characters `str.splitlines()` breaks at besides "\n" and "\r\n"; all are valid inside a
#: JSON string (the C1 and separators unescaped, the C0 ones as written by a JSON encoder
#: only escaped, so in JSONL they appear raw only as U+0085/U+2028/U+2029).
SPLITLINES_BREAKS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]
JSON_RAW_BREAKS = ["\u2028", "\u2029", "\x85"]


def _raw_wer(result: dict, arm: str) -> dict:
    return result["arms"][arm]["overall"]["views"]["raw"]["wer"]


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    rc = main(args)
    return rc, capsys.readouterr().err


# --------------------------------------------------------------------------- the splitter


@pytest.mark.parametrize("char", SPLITLINES_BREAKS + ["\r"])
def test_split_records_breaks_at_line_feed_only(char: str) -> None:
    text = f"one{char}record\ntwo\n"
    assert split_records(text) == [f"one{char}record", "two"]
    assert len(text.splitlines()) == 3  # the behaviour this replaces


def test_split_records_crlf_blank_and_unterminated_lines() -> None:
    assert split_records("a\r\nb\r\n") == ["a", "b"]
    assert split_records("a\n\nb") == ["a", "", "b"]
    assert split_records("a\nb\n\n") == ["a", "b", ""]
    assert split_records("\n") == [""]
    assert split_records("") == []
    assert split_records("a\r") == ["a\r"]  # a lone "\r" is not a line end


@given(st.lists(st.text().map(lambda s: s.replace("\n", "")), min_size=1))
def test_split_records_inverts_joining_lines(lines: list[str]) -> None:
    # A line may end in "\r" only if CRLF stripping is accounted for: "\r\n" -> "".
    expected = [line[:-1] if line.endswith("\r") else line for line in lines]
    assert split_records("\n".join(lines) + "\n") == expected
    # With CRLF ends, exactly the "\r" each end adds is dropped: the lines come back as given.
    assert split_records("\r\n".join(lines) + "\r\n") == lines


def test_read_records_streams_the_same_lines_as_split_records(tmp_path: Path) -> None:
    rng = random.Random(7)
    alphabet = ["a", "é", "中", " ", "\t", "\r", "\n", "\r\n", *SPLITLINES_BREAKS]
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 30)))
        path = tmp_path / "f.txt"
        path.write_bytes(text.encode("utf-8"))
        streamed = [line for _, line in read_records(path)]
        assert streamed == split_records(text), repr(text)
        assert [n for n, _ in read_records(path)] == list(range(1, len(streamed) + 1))


def test_read_records_drops_bom_and_names_a_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"\xef\xbb\xbfa\nb\xffc\n")
    lines = read_records(path)
    assert next(lines) == (1, "a")
    with pytest.raises(EarmarkError, match="not valid UTF-8") as err:
        next(lines)
    assert (err.value.file, err.value.line) == (str(path), 2)
    assert list(decode_records([b"x\xff\n"], "n", errors="replace")) == [(1, "x\ufffd")]
    with pytest.raises(EarmarkError, match="file not found"):
        list(read_records(tmp_path / "missing"))


# --------------------------------------------------------------------------- score inputs


@pytest.mark.parametrize("char", JSON_RAW_BREAKS)
def test_jsonl_with_line_separators_inside_strings(tmp_path: Path, char: str) -> None:
    rows = [
        {"id": "a", "reference": f"hello{char}world", "hypothesis": "hello world"},
        {"id": "b", "reference": "good morning", "hypothesis": f"good{char}evening"},
    ]
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    assert len(path.read_text("utf-8").splitlines()) == 4  # what used to be read
    read = read_pairs(path)
    assert [(r.id, r.reference, r.hypothesis) for r in read.rows] == [
        ("a", f"hello{char}world", "hello world"),
        ("b", "good morning", f"good{char}evening"),
    ]
    wer = _raw_wer(
        score_predictions(
            ScoreInputs(path), ScoreFigures(normalizer="none", resamples=0)
        ).to_dict(),
        "p",
    )
    # Whitespace of any kind separates words: a: 2 hits; b: 1 hit, 1 substitution.
    assert (wer["hits"], wer["substitutions"], wer["deletions"], wer["insertions"]) == (3, 1, 0, 0)


@pytest.mark.parametrize("char", SPLITLINES_BREAKS)
@pytest.mark.parametrize(("suffix", "sep"), [(".csv", ","), (".tsv", "\t")])
def test_csv_tsv_with_line_separators_inside_fields(
    tmp_path: Path, char: str, suffix: str, sep: str
) -> None:
    path = tmp_path / f"p{suffix}"
    lines = [
        sep.join(["id", "reference", "hypothesis"]),
        sep.join(["a", f"one{char}two", "one two"]),  # unquoted
        sep.join(["b", f'"three{char}four"', "three"]),  # quoted
    ]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    read = read_pairs(path)
    assert [(r.id, r.reference, r.hypothesis) for r in read.rows] == [
        ("a", f"one{char}two", "one two"),
        ("b", f"three{char}four", "three"),
    ]


def test_csv_quoted_newline_still_spans_lines(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text('id,reference,hypothesis\na,"one\ntwo",x\nb,y,y\n', "utf-8")
    read = read_pairs(path)
    assert [(r.id, r.reference) for r in read.rows] == [("a", "one\ntwo"), ("b", "y")]


def test_kaldi_id_ends_at_a_tab_or_any_whitespace(tmp_path: Path) -> None:
    (tmp_path / "text").write_text(
        "utt1\thello world\nutt2\u3000good  morning\nutt3 see\u2028you\n", "utf-8"
    )
    (tmp_path / "hyp").write_text("utt1\thello word\nutt2 good morning\nutt3\tsee you\n", "utf-8")
    read = read_pairs(tmp_path / "hyp", refs=tmp_path / "text")
    assert [(r.id, r.reference, r.hypothesis) for r in read.rows] == [
        ("utt1", "hello world", "hello word"),
        ("utt2", "good morning", "good morning"),
        ("utt3", "see you", "see you"),
    ]
    wer = _raw_wer(
        score_predictions(
            ScoreInputs(tmp_path / "hyp", refs=tmp_path / "text"),
            ScoreFigures(normalizer="none", resamples=0),
        ).to_dict(),
        "hyp",
    )
    assert (wer["hits"], wer["substitutions"], wer["value"]) == (5, 1, pytest.approx(1 / 6))


# --------------------------------------------------------------------------- --format lines


def _jiwer_pair(tmp_path: Path) -> tuple[Path, Path, list[str], list[str]]:
    refs = ["the cat sat down", "we went home early"]
    hyps = ["the cat sat up", "we want home early"]
    (tmp_path / "ref.txt").write_text("\n".join(refs) + "\n", "utf-8")
    (tmp_path / "hyp.txt").write_text("\n".join(hyps) + "\n", "utf-8")
    return tmp_path / "hyp.txt", tmp_path / "ref.txt", refs, hyps


def test_format_lines_is_jiwer_style(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hyp, ref, refs, hyps = _jiwer_pair(tmp_path)
    # 2 substitutions (down/up, went/want) over 8 reference words: 25%, as jiwer says.
    assert jiwer.wer(refs, hyps) == 0.25
    out = tmp_path / "out"
    rc = main(
        ["score", str(hyp), "--refs", str(ref), "--format", "lines", "--normalizer", "none"]
        + ["--bootstrap", "0", "--out", str(out), "--quiet"]
    )
    assert rc == 0, capsys.readouterr().err
    results = json.loads((out / "results.json").read_text("utf-8"))
    wer = _raw_wer(results, "hyp")
    assert (wer["substitutions"], wer["hits"], wer["value"]) == (2, 6, 0.25)
    rows = [
        json.loads(line)
        for line in (out / "predictions.jsonl").read_text("utf-8").split("\n")
        if line
    ]
    assert [(r["id"], r["hypothesis"]) for r in rows] == [("line-1", hyps[0]), ("line-2", hyps[1])]


def test_format_lines_blank_hypothesis_is_all_deletions_and_crlf_is_read(tmp_path: Path) -> None:
    (tmp_path / "ref.txt").write_bytes(b"one two\r\nthree four five\r\n")
    (tmp_path / "hyp.txt").write_bytes(b"one two\r\n\r\n")
    read = read_pairs(tmp_path / "hyp.txt", refs=tmp_path / "ref.txt", fmt="lines")
    assert [(r.id, r.reference, r.hypothesis) for r in read.rows] == [
        ("line-1", "one two", "one two"),
        ("line-2", "three four five", ""),
    ]
    assert read.formats == ["lines", "lines"]
    res = score_predictions(
        ScoreInputs(tmp_path / "hyp.txt", refs=tmp_path / "ref.txt", format="lines"),
        ScoreFigures(normalizer="none", resamples=0),
    ).to_dict()
    wer = _raw_wer(res, "hyp")
    assert (wer["hits"], wer["deletions"], wer["value"]) == (2, 3, 0.6)


def test_format_lines_different_counts_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ref.txt").write_text("a b\nc d\ne f\n", "utf-8")
    (tmp_path / "hyp.txt").write_text("a b\nc d\n", "utf-8")
    rc, err = _cli(
        ["score", str(tmp_path / "hyp.txt"), "--refs", str(tmp_path / "ref.txt")]
        + ["--format", "lines", "--normalizer", "none", "--out", str(tmp_path / "o")],
        capsys,
    )
    assert rc == 2
    assert err.count("\n") == 1
    assert "hyp.txt has 2 lines" in err and "ref.txt has 3" in err


# --------------------------------------------------------------------------- never guess


def test_plain_sentence_pair_without_format_asks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hyp, ref, _, _ = _jiwer_pair(tmp_path)
    rc, err = _cli(
        [
            "score",
            str(hyp),
            "--refs",
            str(ref),
            "--normalizer",
            "none",
            "--out",
            str(tmp_path / "o"),
        ],
        capsys,
    )
    assert rc == 2
    assert err.count("\n") == 1
    assert "--format kaldi or --format lines" in err
    assert "'the'" in err  # the first word that is not an id
    assert not (tmp_path / "o").exists()


def test_clear_kaldi_pair_is_still_read_without_format(tmp_path: Path) -> None:
    (tmp_path / "text").write_text("1272-128104-0000 a b c\n1272-128104-0001 d e\n", "utf-8")
    (tmp_path / "hyp").write_text("1272-128104-0001 d x\n1272-128104-0000 a b c\n", "utf-8")
    read = read_pairs(tmp_path / "hyp", refs=tmp_path / "text")
    assert [(r.id, r.hypothesis) for r in read.rows] == [
        ("1272-128104-0000", "a b c"),
        ("1272-128104-0001", "d x"),
    ]
    assert read.formats == ["kaldi", "kaldi"]  # what the automatic choice was


@pytest.mark.parametrize(
    ("ref", "hyp", "reason", "explicit"),
    [
        ("utt1 a b\n", "utt1 a b\n", "single line", "kaldi"),
        ("utt1 a\nutt1 b\n", "utt1 a\n", "repeats", None),
        ("1 2 3\n4 5 6\n", "1 2 3\n4 5 7\n", "does not look like an utterance id", "lines"),
        ("the cat\nthe dog\n", "the cat\na dog\n", "the first word .the.", "lines"),
        ("utt1 a\nutt2 b\n", "utt8 a\nutt9 b\n", "no first word", "lines"),
        ("utt1\nutt2\n", "utt1\nutt2\n", "no line", "lines"),
    ],
)
def test_doubtful_plain_pairs_are_refused(
    tmp_path: Path, ref: str, hyp: str, reason: str, explicit: str | None
) -> None:
    (tmp_path / "r").write_text(ref, "utf-8")
    (tmp_path / "h").write_text(hyp, "utf-8")
    with pytest.raises(EarmarkError, match=reason) as err:
        read_pairs(tmp_path / "h", refs=tmp_path / "r")
    assert err.value.hint == "pass --format kaldi or --format lines"
    if explicit is not None:  # naming the format reads the same files without a question
        assert read_pairs(tmp_path / "h", refs=tmp_path / "r", fmt=explicit).rows


def test_utterance_id_shape() -> None:
    for token in ("utt1", "1272-128104-0000", "011c0201", "spk_a_3", "a.1"):
        assert looks_like_utterance_id(token), token
    for token in ("the", "hello", "42", "", "don't"):
        assert not looks_like_utterance_id(token), token


def test_plain_file_beside_structured_refs_is_kaldi(tmp_path: Path) -> None:
    (tmp_path / "refs.jsonl").write_text('{"id": "a", "reference": "x y"}\n', "utf-8")
    (tmp_path / "hyp").write_text("a x z\n", "utf-8")
    read = read_pairs(tmp_path / "hyp", refs=tmp_path / "refs.jsonl")
    assert [(r.id, r.hypothesis) for r in read.rows] == [("a", "x z")]
    assert read.formats == ["kaldi", "jsonl"]


# --------------------------------------------------------------------------- empty input


@pytest.mark.parametrize(
    ("name", "content", "refs"),
    [
        ("p.jsonl", "", None),
        ("p.jsonl", "\n\n", None),
        ("p.csv", "id,reference,hypothesis\n", None),
        ("p.tsv", "", None),
        ("hyp", "", "utt1 a\nutt2 b\n"),
        ("hyp.jsonl", "", '{"id": "a", "reference": "x"}\n'),
    ],
)
def test_empty_input_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str, refs: str | None
) -> None:
    (tmp_path / name).write_text(content, "utf-8")
    args = ["score", str(tmp_path / name), "--normalizer", "none", "--out", str(tmp_path / "o")]
    if refs is not None:
        ref_name = "refs.jsonl" if refs.startswith("{") else "text"
        (tmp_path / ref_name).write_text(refs, "utf-8")
        args += ["--refs", str(tmp_path / ref_name)]
    rc, err = _cli(args, capsys)
    assert rc == 2
    assert err.count("\n") == 1
    assert f"{tmp_path / name}" in err or "empty" in err
    assert "no records" in err or "empty" in err


@pytest.mark.parametrize("fmt", ["lines", "kaldi"])
def test_empty_plain_file_is_an_error_in_every_plain_format(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "ref.txt").write_text("utt1 a\nutt2 b\n", "utf-8")
    (tmp_path / "hyp.txt").write_text("", "utf-8")
    with pytest.raises(EarmarkError, match="no records") as err:
        read_pairs(tmp_path / "hyp.txt", refs=tmp_path / "ref.txt", fmt=fmt)
    assert err.value.file == str(tmp_path / "hyp.txt")


# --------------------------------------------------------------------------- CRLF


def test_crlf_files_read_like_lf_files(tmp_path: Path) -> None:
    (tmp_path / "p.jsonl").write_bytes(b'{"id":"a","reference":"x y","hypothesis":"x"}\r\n')
    (tmp_path / "p.csv").write_bytes(b"id,reference,hypothesis\r\na,x y,x\r\n")
    (tmp_path / "p.tsv").write_bytes(b"id\treference\thypothesis\r\na\tx y\tx\r\n")
    (tmp_path / "text").write_bytes(b"utt1 x y\r\nutt2 z\r\n")
    (tmp_path / "hyp").write_bytes(b"utt1 x\r\nutt2 z\r\n")
    for name in ("p.jsonl", "p.csv", "p.tsv"):
        (row,) = read_pairs(tmp_path / name).rows
        assert (row.id, row.reference, row.hypothesis) == ("a", "x y", "x"), name
    rows = read_pairs(tmp_path / "hyp", refs=tmp_path / "text").rows
    assert [(r.id, r.reference, r.hypothesis) for r in rows] == [
        ("utt1", "x y", "x"),
        ("utt2", "z", "z"),
    ]


# --------------------------------------------------------------------------- round trip


def test_verify_reads_the_predictions_score_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"id": "a", "reference": "hello\u2028world", "hypothesis": "hello\u2029world"},
        {"id": "b", "reference": "one\x85two three", "hypothesis": "one two"},
    ]
    path = tmp_path / "p.jsonl"
    # The input escapes them (`\\u2028`), so only the file earmark writes holds them raw.
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    assert "\u2028" not in path.read_text("utf-8")
    out = tmp_path / "scored"
    args = ["score", str(path), "--normalizer", "crude-v1", "--bootstrap", "50"]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    written = (out / "predictions.jsonl").read_text("utf-8")
    assert "\u2028" in written  # earmark writes it unescaped, so it must read it back
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0, capsys.readouterr()
