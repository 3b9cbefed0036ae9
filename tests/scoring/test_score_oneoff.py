"""One-off scoring (issue 26): `earmark score hyp.txt --refs ref.txt --format lines` from
an empty folder, as a user coming from `jiwer -r ref.txt -h hyp.txt` runs it.

Through the real CLI in a subprocess (cwd: an empty temporary folder holding only the two
files) and through the API: no folder unless `--out`; `--json` puts results.json's bytes
alone on stdout; the normaliser chosen without `--normalizer` is printed and recorded with
its reason; a one-language file shows its figures once; `earmark.score_rows` scores rows
held in memory into the same typed results, refusing what a file reader refuses with the
row's index.

Hand-computed figures of the two-line files: "the cat sat" / "the cat sad" is 1
substitution of 3 words and 1 of 11 characters; "hello world" / "hello word" 1
substitution of 2 words and 1 deletion of 11 characters. WER = 2/5, CER = 2/22. With two
clips, a bootstrap resample is clip 1 twice (WER 2/6), clip 2 twice (2/4) or one of each
(2/5), each of the first two with probability 1/4: the 95% percentile interval is
[1/3, 1/2].
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jiwer
import pytest

import earmark
from earmark.errors import EarmarkError
from earmark.file_scoring import default_reason

REF = "the cat sat\nhello world\n"
HYP = "the cat sad\nhello word\n"
LINES = ["hyp.txt", "--refs", "ref.txt", "--format", "lines"]
WER, CER = 2 / 5, 2 / 22
CI = (1 / 3, 1 / 2)
UND_REASON = (
    "default: the rows name no language, so auto's language-neutral one: NFKC, lower-case, "
    "no punctuation; --normalizer none compares raw text, as jiwer does"
)


def _folder(tmp_path: Path) -> Path:
    work = tmp_path / "fresh"
    work.mkdir()
    (work / "ref.txt").write_text(REF, "utf-8")
    (work / "hyp.txt").write_text(HYP, "utf-8")
    return work


def _earmark(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "earmark", "score", *args],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def _files(work: Path) -> list[str]:
    return sorted(str(p.relative_to(work)) for p in work.rglob("*"))


def _primary(results: dict[str, object], arm: str = "hyp") -> dict[str, dict[str, object]]:
    block = results["arms"][arm]["overall"]  # type: ignore[index]
    metrics: dict[str, dict[str, object]] = block["views"][block["primary_view"]]
    return metrics


# --- the CLI, from an empty folder -------------------------------------------------------


def test_two_files_alone_print_wer_and_cer_with_cis_and_write_nothing(tmp_path: Path) -> None:
    work = _folder(tmp_path)
    done = _earmark(work, *LINES)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    out = done.stdout
    # Both views (raw, normalized) of the one block, each row once: 40.00% [33.33, 50.00].
    assert out.count("40.00%") == 2 and out.count("[33.33, 50.00]") == 2
    assert out.count("9.09%") == 2 and "2/0/0" in out
    assert " und " not in out and "overall" in out
    assert f"normaliser: crude-v1 ({UND_REASON})" in " ".join(out.split())
    assert "wrote" not in out
    assert _files(work) == ["hyp.txt", "ref.txt"]


@pytest.mark.parametrize(
    ("flag", "what"),
    [
        (["--csv"], "--csv writes predictions.csv"),
        (["--sclite-reports"], "--sclite-reports writes"),
        (["--show-alignments", "2"], "--show-alignments reads"),
    ],
)
def test_a_flag_that_needs_the_folder_without_out_is_one_line(
    tmp_path: Path, flag: list[str], what: str
) -> None:
    work = _folder(tmp_path)
    done = _earmark(work, *LINES, *flag)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("earmark: error: ") and what in line and "--out DIR" in line
    assert _files(work) == ["hyp.txt", "ref.txt"]


def test_json_is_results_json_alone_on_stdout(tmp_path: Path) -> None:
    work = _folder(tmp_path)
    done = _earmark(work, *LINES, "--json")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)  # stdout holds nothing but the JSON
    wer, cer = _primary(results)["wer"], _primary(results)["cer"]
    assert wer["value"] == WER and tuple(wer["ci95"]) == pytest.approx(CI)  # type: ignore[arg-type]
    assert cer["value"] == CER
    sdih = ("substitutions", "deletions", "insertions", "hits", "ref_units")
    assert [wer[k] for k in sdih] == [2, 0, 0, 3, 5]
    assert [cer[k] for k in sdih] == [1, 1, 0, 20, 22]
    assert results["arms"]["hyp"]["normalizer_choice"] == {
        "policy": "auto",
        "reasons": {"und": UND_REASON},
    }
    assert done.stderr == f"normaliser: crude-v1 ({UND_REASON})\n"
    assert _files(work) == ["hyp.txt", "ref.txt"]


def test_json_with_out_is_the_bytes_of_results_json(tmp_path: Path) -> None:
    work = _folder(tmp_path)
    done = _earmark(work, *LINES, "--json", "--out", "scored", "--bootstrap", "100")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (work / "scored" / "results.json").read_text("utf-8")
    assert (
        done.stderr.splitlines()[-1] == "wrote scored/results.json, predictions.jsonl, results.md"
    )
    markdown = (work / "scored" / "results.md").read_text("utf-8")
    assert f"- Normaliser: crude-v1 ({UND_REASON})" in markdown
    # One block: the rows are `overall`, never also `language und`.
    assert "| overall | crude-v1 / normalized (primary) | 2 | 40.00% [33.33, 50.00]" in markdown
    assert "language und" not in markdown


def test_normalizer_none_compares_raw_text_as_jiwer_does(tmp_path: Path) -> None:
    work = _folder(tmp_path)
    (work / "ref.txt").write_text("Hello, World.\nthe cat\n", "utf-8")
    (work / "hyp.txt").write_text("hello world\nthe cat\n", "utf-8")
    raw = json.loads(_earmark(work, *LINES, "--json", "--normalizer", "none").stdout)
    assert _primary(raw)["wer"]["value"] == jiwer.wer(
        ["Hello, World.", "the cat"], ["hello world", "the cat"]
    )
    assert _primary(raw)["wer"]["value"] == 0.5
    # A named normaliser is recorded as before: no choice to explain.
    assert "normalizer_choice" not in raw["arms"]["hyp"]
    chosen = json.loads(_earmark(work, *LINES, "--json").stdout)
    assert _primary(chosen)["wer"]["value"] == 0.0  # crude-v1 folds case and punctuation


def test_named_normaliser_prints_no_choice_line(tmp_path: Path) -> None:
    work = _folder(tmp_path)
    done = _earmark(work, *LINES, "--normalizer", "en-v1", "--bootstrap", "0")
    assert done.returncode == 0, done.stderr
    assert "normaliser:" not in done.stdout and "40.00%" in done.stdout


def test_each_language_gets_its_normaliser_and_reason(tmp_path: Path) -> None:
    work = _folder(tmp_path)
    rows = [
        {"id": "e1", "language": "en", "reference": "It is 5 pm.", "hypothesis": "it is five pm"},
        {"id": "z1", "language": "zh", "reference": "我爱北京", "hypothesis": "我爱南京"},
        {"id": "f1", "language": "fr", "reference": "Bonjour, monde", "hypothesis": "bonjour"},
    ]
    (work / "rows.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8"
    )
    done = _earmark(work, "rows.jsonl", "--bootstrap", "0", "--json")
    assert done.returncode == 0, done.stderr
    arm = json.loads(done.stdout)["arms"]["rows"]
    names = {lang: block["normalizer"]["name"] for lang, block in arm["by_language"].items()}
    assert names == {"en": "en-v1", "zh": "zh-eval-v1", "fr": "crude-v1"}
    assert arm["normalizer_choice"]["reasons"] == {
        "en": "default: auto's for en",
        "zh": "default: auto's for Chinese, characters first",
        "fr": "default: auto has none for fr, so its language-neutral one",
    }
    # One line per language, in the blocks' order.
    assert list(arm["by_language"]) == ["fr", "en", "zh"]
    assert done.stderr.splitlines() == [
        "normaliser: crude-v1 for fr (default: auto has none for fr, so its language-neutral one)",
        "normaliser: en-v1 for en (default: auto's for en)",
        "normaliser: zh-eval-v1 for zh (default: auto's for Chinese, characters first)",
    ]
    # Figures by hand: en 0 of 4 words (en-v1 reads "5 pm" as "five pm"), zh 1 of 4
    # characters, fr 1 deletion of 2 words.
    views = {
        lang: block["views"][block["primary_view"]] for lang, block in arm["by_language"].items()
    }
    assert views["en"]["wer"]["value"] == 0.0
    assert views["zh"]["cer"]["value"] == 0.25
    assert views["fr"]["wer"]["value"] == 0.5
    # Three languages: the summary keeps overall (null: three normalisers) and each block.
    text = _earmark(work, "rows.jsonl", "--bootstrap", "0").stdout
    assert "overall: null" in text and "│ en " in text and "│ zh " in text


def test_one_named_language_is_shown_once_with_its_name(tmp_path: Path) -> None:
    work = _folder(tmp_path)
    done = _earmark(work, *LINES, "--language", "en", "--bootstrap", "0")
    assert done.returncode == 0, done.stderr
    assert "overall (en)" in done.stdout and "│ en " not in done.stdout
    assert "normaliser: en-v1 (default: auto's for en)" in done.stdout


def test_default_reason_names_the_character_languages() -> None:
    assert default_reason("ja", "crude-char-v1") == "default: auto's for Japanese, characters first"
    assert default_reason("ga-IE", "ga-v1") == "default: auto's for ga-IE"
    assert default_reason("und", "crude-v1") == UND_REASON


# --- the API: rows in memory ---------------------------------------------------------------


def test_score_rows_matches_the_cli_on_the_same_rows(tmp_path: Path) -> None:
    refs, hyps = REF.splitlines(), HYP.splitlines()
    results = earmark.score_rows(references=refs, hypotheses=hyps, ids=["line-1", "line-2"])
    work = _folder(tmp_path)
    cli = json.loads(_earmark(work, *LINES, "--json").stdout)
    # Everything but the input's description and the arm's name: the same results.
    assert results.arm().to_dict() == cli["arms"]["hyp"]
    assert results.to_dict()["inputs"] == {
        "files": [],
        "format": "memory",
        "formats_read": ["memory"],
    }
    assert results.arm().view("und").wer.value == WER
    assert results.arm().view("und").wer.ci == pytest.approx(CI)


def test_score_rows_takes_mappings_as_a_jsonl_file_names_them(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "reference": "the cat sat", "hypothesis": "the cat sad", "language": "en"},
        {"id": "b", "reference": "hello world", "hypothesis": None, "language": "en"},
    ]
    results = earmark.score_rows(rows, normalizer="none", bootstrap=0)
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    from_file = earmark.score_file(path, normalizer="none", bootstrap=0)
    assert results.arm("rows").to_dict() == from_file.arm("rows").to_dict()
    arm = results.arm("rows")
    # The missing hypothesis is two deletions, listed: (1 S + 2 D) / 5.
    assert arm.view("en").wer.value == 3 / 5
    assert [(r.id, r.status) for r in arm.coverage.not_ok] == [("b", "missing_hypothesis")]
    assert arm.normalizer_choice is None


def test_score_rows_with_out_writes_the_folder_score_writes(tmp_path: Path) -> None:
    out = tmp_path / "scored"
    results = earmark.score_rows(
        references=["a b", "c <script>alert(1)</script>"],
        hypotheses=["a x", "c"],
        ids=["../../etc/passwd", "<img src=x onerror=alert(1)>"],
        languages=["en", "en"],
        out=out,
        bootstrap=0,
    )
    assert (out / "results.json").read_text("utf-8") == results.to_json()
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "artefacts.sha256",
        "predictions.jsonl",
        "results.json",
        "results.md",
    ]
    markdown = (out / "results.md").read_text("utf-8")
    # Ids only ever in code spans, texts in fenced blocks: no renderer runs them.
    assert markdown.count("<img") == markdown.count("`<img src=x onerror=alert(1)>`") > 0
    assert "<script>" not in markdown.split("```")[0]
    assert not (tmp_path / "etc").exists()
    verify = earmark.verify(out)
    assert verify.ok, [c for c in verify.checks if c.status == "mismatch"]


@pytest.mark.parametrize(
    ("kwargs", "field", "message"),
    [
        ({"ids": ["a", "b", "a"]}, "ids[2]", "duplicate utterance id 'a' (first at ids[0])"),
        ({"ids": ["a", " ", "c"]}, "ids[1]", "empty id"),
        ({"ids": ["a", 2, "c"]}, "ids[1]", "expected a string, got int"),
        ({"hypotheses": ["x", b"y", "z"]}, "hypotheses[1]", "expected a string, got bytes"),
        ({"hypotheses": ["x", "y\ud800", "z"]}, "hypotheses[1]", "not Unicode"),
        ({"references": ["x", "y", "z\x00"]}, "references[2]", "NUL character"),
        ({"languages": ["en", "zh\x00", "en"]}, "languages[1]", "NUL character"),
        ({"languages": ["en", {"deep": [[["x"]]]}, "en"]}, "languages[1]", "got dict"),
        ({"hypotheses": ["x", "y"]}, "hypotheses", "3 reference(s) but 2 hypotheses"),
        ({"ids": ["a"]}, "ids", "3 reference(s) but 1 ids"),
        ({"references": "abc"}, "hypotheses", "1 reference(s) but 3 hypotheses"),
        ({"references": None}, "references", "no rows to score"),
        ({"references": 42}, "references", "must be a list, not int"),
        ({"references": [None, "b", "c"]}, "references[0]", "not None"),
    ],
)
def test_bad_rows_are_one_line_naming_the_row(
    kwargs: dict[str, object], field: str, message: str
) -> None:
    given: dict[str, object] = {"references": ["a", "b", "c"], "hypotheses": ["a", "b", "c"]}
    given.update(kwargs)
    with pytest.raises(EarmarkError) as caught:
        earmark.score_rows(bootstrap=0, **given)  # type: ignore[arg-type]
    assert caught.value.field == field
    assert message in caught.value.message
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("rows", "field", "message"),
    [
        ([{"id": "a", "reference": "x", "hypothesis": "x"}, "row"], "rows[1]", "mapping"),
        ([{"id": "a", "hypothesis": "x"}], "rows[0].reference", "missing field"),
        ([{"id": "a", "reference": "x"}], "rows[0].hypothesis", "missing field"),
        (
            [{"id": "a", "reference": "x", "hypothesis": "x"}] * 2,
            "rows[1].id",
            "first at rows[0].id",
        ),
        ([{"id": "a", "reference": "x", "hypothesis": 1.5}], "rows[0].hypothesis", "got float"),
        ("not rows", "rows[0]", "mapping"),
    ],
)
def test_bad_row_mappings_name_the_row(rows: object, field: str, message: str) -> None:
    with pytest.raises(EarmarkError) as caught:
        earmark.score_rows(rows, bootstrap=0)  # type: ignore[arg-type]
    assert caught.value.field == field and message in caught.value.message


def test_a_row_larger_than_a_record_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EARMARK_MAX_RECORD_BYTES", "64")
    with pytest.raises(EarmarkError, match="over the 64 a record may hold") as caught:
        earmark.score_rows(references=["a", "b " * 40], hypotheses=["a", "b"], bootstrap=0)
    assert caught.value.field == "hypotheses[1]"


def test_rows_and_lists_together_are_refused() -> None:
    with pytest.raises(EarmarkError, match="not both"):
        earmark.score_rows([{"reference": "a", "hypothesis": "a"}], references=["a"])


def test_score_takes_ids_and_languages_checked_the_same_way() -> None:
    s = earmark.score(
        ["a b", "c d"], ["a x", "c d"], ids=["u1", "u2"], languages=["en", "fr"], bootstrap=0
    )
    assert s.wer == 1 / 4 and s.n_utterances == 2
    with pytest.raises(EarmarkError) as caught:
        earmark.score(["a", "b"], ["a", "b"], ids=["u", "u"])
    assert caught.value.field == "ids[1]"
    # Under `auto`, en and zh get two normalisers: no single figure, and a pointer to
    # score_rows, which gives each language's.
    with pytest.raises(EarmarkError, match="no single corpus figure") as caught:
        earmark.score(
            ["a b", "我爱北京"], ["a b", "我爱南京"], languages=["en", "zh"], normalizer="auto"
        )
    assert caught.value.hint is not None and "score_rows" in caught.value.hint
    results = earmark.score_rows(
        references=["a b", "我爱北京"],
        hypotheses=["a b", "我爱南京"],
        languages=["en", "zh"],
        bootstrap=0,
    )
    assert results.arm().view("zh").cer.value == 0.25
    with pytest.raises(EarmarkError, match="not both"):
        earmark.score(["a"], ["a"], language="en", languages=["en"])
