"""Reading cannot hang or blow up (issue 16, item 11).

A FIFO without a writer, a character device such as `/dev/urandom` and a directory are
refused by `stat` before anything is opened; a record over the bound (1 MiB by default,
`EARMARK_MAX_RECORD_BYTES` raises it) is refused at its line without reading the rest.
Anything that could block runs in a subprocess with a timeout, so a regression fails the
test instead of hanging the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from earmark.errors import EarmarkError
from earmark.records import (
    MAX_RECORD_BYTES,
    MAX_RECORD_BYTES_ENV,
    read_records,
    require_regular_file,
)

TIMEOUT_S = 60
NONE = ("--normalizer", "none", "--out", "scored")


def earmark(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the CLI as its own process; a hang becomes `TimeoutExpired`, never a stuck test."""
    return subprocess.run(
        [sys.executable, "-m", "earmark", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env={**os.environ, **(env or {})},
        check=False,
    )


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr


@pytest.fixture()
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "hyps.jsonl"
    os.mkfifo(path)
    return path


def test_score_refuses_a_fifo_without_a_writer(fifo: Path, tmp_path: Path) -> None:
    err = one_error_line(earmark("score", str(fifo), *NONE, cwd=tmp_path))
    assert f"{fifo}: is a FIFO (named pipe), not a regular file" in err
    refs = tmp_path / "refs.txt"
    refs.write_text("a b\n", encoding="utf-8")
    err = one_error_line(
        earmark("score", str(refs), "--refs", str(fifo), "--format", "lines", *NONE, cwd=tmp_path)
    )
    assert "is a FIFO" in err


def test_manifest_and_importer_refuse_a_fifo(fifo: Path, tmp_path: Path) -> None:
    assert "is a FIFO" in one_error_line(earmark("manifest", "validate", str(fifo), cwd=tmp_path))
    out = tmp_path / "n.jsonl"
    err = one_error_line(
        earmark("import", "nemo", str(fifo), "--out", str(out), "--language", "en", cwd=tmp_path)
    )
    assert "is a FIFO" in err and not out.exists()


def test_a_fifo_sidecar_is_refused(tmp_path: Path) -> None:
    manifest = tmp_path / "m.jsonl"
    manifest.write_text('{"id":"a","audio":"a.wav","text":"x","language":"en"}\n', "utf-8")
    os.mkfifo(tmp_path / "m.jsonl.meta.json")
    code = (
        "from earmark.corpus.manifest import read_meta\n"
        "from earmark.errors import EarmarkError\n"
        f"try:\n    read_meta({str(manifest)!r})\n"
        "except EarmarkError as exc:\n    print(exc)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT_S
    )
    assert "m.jsonl.meta.json: is a FIFO (named pipe)" in result.stdout


@pytest.mark.skipif(not Path("/dev/urandom").exists(), reason="no /dev/urandom")
def test_score_refuses_a_character_device(tmp_path: Path) -> None:
    refs = tmp_path / "refs.txt"
    refs.write_text("a b\n", encoding="utf-8")
    err = one_error_line(
        earmark(
            "score", "/dev/urandom", "--refs", str(refs), "--format", "lines", *NONE, cwd=tmp_path
        )
    )
    assert "/dev/urandom: is a character device, not a regular file" in err


def test_score_refuses_a_directory(tmp_path: Path) -> None:
    folder = tmp_path / "preds.jsonl"
    folder.mkdir()
    err = one_error_line(earmark("score", str(folder), *NONE, cwd=tmp_path))
    assert f"{folder}: is a directory" in err


def test_a_50_mb_single_line_record_is_refused_quickly_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write('{"id": "a", "reference": "a", "hypothesis": "a"}\n')
        handle.write('{"id": "b", "reference": "' + "x" * 50_000_000 + '", "hypothesis": "x"}\n')
    started = time.monotonic()
    err = one_error_line(earmark("score", str(path), *NONE, cwd=tmp_path))
    assert time.monotonic() - started < 30
    assert f"{path}:2: record longer than {MAX_RECORD_BYTES} bytes" in err
    assert MAX_RECORD_BYTES_ENV in err


def test_record_bound_is_exact_and_the_environment_raises_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "lines.txt"
    at_limit = b"a" * 100
    path.write_bytes(at_limit + b"\r\n" + at_limit + b"\n" + b"b" * 101 + b"\n")
    reader = read_records(path, max_bytes=100)
    assert next(reader) == (1, "a" * 100)  # CRLF does not count towards the record
    assert next(reader) == (2, "a" * 100)
    with pytest.raises(EarmarkError) as caught:
        next(reader)
    assert (caught.value.file, caught.value.line) == (str(path), 3)
    # A last line without a newline is bounded the same way.
    path.write_bytes(b"c" * 101)
    with pytest.raises(EarmarkError, match="longer than 100 bytes"):
        list(read_records(path, max_bytes=100))
    monkeypatch.setenv(MAX_RECORD_BYTES_ENV, "101")
    assert list(read_records(path)) == [(1, "c" * 101)]
    monkeypatch.setenv(MAX_RECORD_BYTES_ENV, "lots")
    with pytest.raises(EarmarkError, match="not a positive number of bytes"):
        list(read_records(path))


def test_require_regular_file_lets_a_missing_file_through(tmp_path: Path) -> None:
    require_regular_file(tmp_path / "absent.txt")  # the caller's open reports it
    with pytest.raises(EarmarkError, match="file not found"):
        list(read_records(tmp_path / "absent.txt"))
    regular = tmp_path / "x.txt"
    regular.write_text("x\n", encoding="utf-8")
    require_regular_file(regular)
    link = tmp_path / "link.txt"
    link.symlink_to(regular)
    assert list(read_records(link)) == [(1, "x")]  # a symlink to a file is that file


def test_deep_nesting_and_huge_numbers_are_earmark_errors_at_their_line(tmp_path: Path) -> None:
    from earmark.corpus.manifest import read_manifest, read_meta
    from earmark.formats.pairs import read_pairs

    deep = "[" * 100_000 + "]" * 100_000
    good = '{"id":"a","audio":"a.wav","text":"x","language":"en"}'
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(f'{good}\n{{"id":"b","custom":{deep}}}\n', encoding="utf-8")
    with pytest.raises(EarmarkError) as caught:
        list(read_manifest(manifest))
    assert (caught.value.line, caught.value.message) == (2, "invalid JSON: RecursionError")
    (tmp_path / "m.jsonl.meta.json").write_text(f'{{"dataset": {deep}}}', encoding="utf-8")
    with pytest.raises(EarmarkError, match="sidecar is not valid JSON: RecursionError"):
        read_meta(manifest)
    preds = tmp_path / "p.jsonl"
    preds.write_text(
        '{"id": "a", "reference": "x", "hypothesis": "x", "n": ' + "9" * 5000 + "}\n",
        encoding="utf-8",
    )
    with pytest.raises(EarmarkError) as caught:
        read_pairs(preds)
    assert (caught.value.file, caught.value.line) == (str(preds), 1)


def test_a_sidecar_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    from earmark.corpus.manifest import read_meta

    manifest = tmp_path / "m.jsonl"
    manifest.write_text('{"id":"a","audio":"a.wav","text":"x","language":"en"}\n', "utf-8")
    (tmp_path / "m.jsonl.meta.json").mkdir()
    with pytest.raises(EarmarkError, match="is a directory, expected a file"):
        read_meta(manifest)


def test_records_doctests_hold() -> None:
    """`finite_json` (the NaN sanitiser run writers use) and `split_records` examples."""
    import doctest

    import earmark.records

    assert doctest.testmod(earmark.records).failed == 0


def test_finite_json_replaces_every_non_finite_float_and_says_where() -> None:
    from earmark.records import finite_json

    row = {"a": 1.5, "b": float("nan"), "c": {"d": [float("-inf"), 2]}, "e": "NaN"}
    clean, replaced = finite_json(row)
    assert clean == {"a": 1.5, "b": None, "c": {"d": [None, 2]}, "e": "NaN"}
    assert replaced == ["b", "c.d[0]"]
    assert row["b"] != row["b"]  # the input is not modified


def test_a_name_with_a_nul_is_an_earmark_error() -> None:
    with pytest.raises(EarmarkError, match="NUL"):
        list(read_records("bad\x00name.txt"))


def test_trn_ids_and_markup_checked_on_the_short_path_too(tmp_path: Path) -> None:
    """`read_trn` checks printable ASCII ids and markup-free lines in C first; every id
    with a space, control or other odd character, and every word of markup, still takes
    the careful path to its one-line error (and an ordinary line reads as before)."""
    from earmark.formats.trn import read_trn

    def read(text: str, *, reference: bool = False) -> tuple[str, ...] | str:
        path = tmp_path / "x.trn"
        path.write_text(text, "utf-8")
        try:
            return read_trn(path, reference=reference)[0].words
        except EarmarkError as exc:
            return exc.message

    assert read("a b  c (spk-1)\n") == ("a", "b", "c")
    for ident in ("sp\x00k", "sp\tk", "sp\x1bk", "sp\x7fk", "sp\u2028k", "sp\u00a0k", "sp\x85k"):
        assert read(f"a b ({ident})\n").startswith("invalid utterance id"), ident
    assert read("a b (spk-é)\n") == ("a", "b")  # printable non-ASCII stays allowed
    assert read("a b (spk-\u200b)\n") == ("a", "b")  # a format character, not Cc
    for words in ("{ a / b }", "x {a", "b} y", "a / b"):
        assert "markup" in str(read(f"{words} (spk-1)\n")), words
    assert read("{ a / b } c (spk-1)\n", reference=True) == ("a", "c")
    assert read("(uh) c (spk-1)\n", reference=True) == ("uh", "c")
