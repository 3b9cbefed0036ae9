"""Contamination check: hand-computed n-gram overlaps, streaming laws, canaries, the CLI."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.metrics.contamination import (
    DeclaredTextScan,
    Overlap,
    canary_hits,
    gram_key,
    matched_positions,
    ngram_keys,
)
from earmark.render.contamination import check_contamination


def write_manifest(path, rows):
    path.write_text(
        "".join(
            json.dumps({"id": i, "audio": f"{i}.wav", "text": t, "language": lang}) + "\n"
            for i, lang, t in rows
        ),
        "utf-8",
    )
    return path


@pytest.fixture
def manifest(tmp_path):
    return write_manifest(
        tmp_path / "m.jsonl",
        [
            ("cat", "en", "The cat sat on the mat."),  # 6 words: 4 trigram positions
            ("dogs", "en", "Dogs run."),  # 2 words: too short for trigrams
            ("zh", "zh", "今天天气很好。"),  # 6 characters: 4 trigram positions
        ],
    )


# --- the pure module --------------------------------------------------------------------


def test_ngram_positions_and_keys_by_hand():
    keys = ngram_keys("a b c d".split(), 2)
    assert keys == [gram_key(("a", "b")), gram_key(("b", "c")), gram_key(("c", "d"))]
    assert ngram_keys(["a"], 2) == []
    assert ngram_keys(["a", "a", "a"], 2) == [gram_key(("a", "a"))] * 2
    with pytest.raises(ValueError):
        ngram_keys(["a"], 0)


def test_scan_finds_only_wanted_ngrams_and_spans_continued_pieces():
    ref = ngram_keys("the cat sat on the mat".split(), 3)
    scan = DeclaredTextScan(set(ref), n=3)
    scan.feed("the cat".split())
    scan.feed("sat on".split(), continues=True)  # "the cat sat", "cat sat on" span the break
    assert matched_positions(ref, scan.found) == 2
    separate = DeclaredTextScan(set(ref), n=3)
    separate.feed("the cat".split())
    separate.feed("sat on".split())  # a new document: nothing spans
    assert separate.found == set()
    assert scan.ngrams_scanned == 2 and scan.documents == 2


def test_overlap_counts_add_and_share_is_micro():
    # 4 of 4 and 0 of 6: micro share 0.4, not the mean of shares (0.5).
    assert (Overlap(4, 4) + Overlap(6, 0)).share == pytest.approx(0.4)
    assert Overlap(0, 0).share is None


def test_canaries_are_exact_substrings():
    assert canary_hits(["GUID-a1", "guid-b2"], "text GUID-a1 and GUID-B2") == ["GUID-a1"]
    assert canary_hits([""], "anything") == []


words = st.lists(st.sampled_from("abcde"), min_size=0, max_size=12)


@given(words, st.lists(words, max_size=4), st.integers(1, 4))
def test_scan_laws(ref, docs, n):
    keys = ngram_keys(ref, n)
    scan = DeclaredTextScan(set(keys), n=n)
    for doc in docs:
        scan.feed(doc)
    # What is found is wanted; the reference against itself is found in full.
    assert scan.found <= set(keys)
    own = DeclaredTextScan(set(keys), n=n)
    own.feed(ref)
    assert Overlap.of(keys, own.found) == Overlap(len(keys), len(keys))
    # Feeding the same documents as one continuous text finds at least as much.
    joined = DeclaredTextScan(set(keys), n=n)
    for doc in docs:
        joined.feed(doc, continues=True)
    assert scan.found <= joined.found


# --- the corpus check -------------------------------------------------------------------


def test_hand_computed_report(tmp_path, manifest):
    declared = tmp_path / "declared.txt"
    # en-v1 folds case and punctuation: "THE CAT, SAT on" gives "the cat sat",
    # "cat sat on" — 2 of the 4 trigram positions of "the cat sat on the mat".
    # zh-eval-v1 characters: 天气很, 气很好 — 2 of 今天天, 天天气, 天气很, 气很好.
    declared.write_text("THE CAT, SAT on a hat\n天气很好啊\n", "utf-8")
    report = check_contamination(manifest, declared, n=3, threshold=0.5)
    by_id = {r["id"]: r for r in report["utterances"]}
    assert (by_id["cat"]["ngrams"], by_id["cat"]["matched"]) == (4, 2)
    assert by_id["cat"]["share"] == 0.5 and by_id["cat"]["flagged"]
    assert by_id["dogs"]["ngrams"] == 0 and by_id["dogs"]["share"] is None
    assert not by_id["dogs"]["flagged"] and by_id["dogs"]["reason"].startswith("too_short")
    assert (by_id["zh"]["ngrams"], by_id["zh"]["matched"], by_id["zh"]["flagged"]) == (4, 2, True)
    s = report["summary"]
    assert (s["ngrams"], s["matched"], s["share"]) == (8, 4, 0.5)
    assert (s["utterances"], s["too_short"], s["flagged"]) == (3, 1, 2)
    assert s["flagged_share"] == pytest.approx(2 / 3)
    assert report["by_language"]["en"]["flagged"] == 1
    assert report["by_language"]["zh"]["share"] == 0.5
    schemes = {(x["normalizer"], x["unit"]) for x in report["method"]["schemes"]}
    assert schemes == {("en-v1", "word"), ("zh-eval-v1", "char")}
    # A stricter threshold flags nothing; the counts do not change.
    strict = check_contamination(manifest, declared, n=3, threshold=0.75)
    assert strict["summary"]["flagged"] == 0 and strict["summary"]["matched"] == 4


def test_text_format_spans_lines_and_lines_format_does_not(tmp_path, manifest):
    declared = tmp_path / "wrapped.txt"
    declared.write_text("the cat\nsat on\n", "utf-8")
    as_text = check_contamination(manifest, declared, n=3, fmt="text")
    as_lines = check_contamination(manifest, declared, n=3, fmt="lines")
    assert as_text["summary"]["matched"] == 2
    assert as_lines["summary"]["matched"] == 0


def test_jsonl_text_field_and_its_errors(tmp_path, manifest):
    declared = tmp_path / "train.jsonl"
    declared.write_text(
        json.dumps({"body": "on the mat"}) + "\n\n" + json.dumps({"body": "x"}) + "\n", "utf-8"
    )
    report = check_contamination(manifest, declared, n=3, text_field="body")
    assert report["declared"]["format"] == "jsonl" and report["summary"]["matched"] == 1
    with pytest.raises(EarmarkError) as err:
        check_contamination(manifest, declared, n=3)  # no "text" field
    assert err.value.line == 1 and err.value.field == "text"


def test_report_writes_no_reference_text(tmp_path, manifest, capsys):
    declared = tmp_path / "d.txt"
    declared.write_text("the cat sat on the mat\n", "utf-8")
    out = tmp_path / "out"
    assert main(["manifest", "contamination", str(manifest), "--against", str(declared),
                 "--n", "3", "--out", str(out)]) == 0  # fmt: skip
    assert "4 of 8 reference 3-grams found (50.00%); 1 of 3 utterances flagged" in (
        capsys.readouterr().out
    )
    for name in ("contamination.json", "contamination.md"):
        text = (out / name).read_text("utf-8")
        assert "the mat" not in text and "今天" not in text
    data = json.loads((out / "contamination.json").read_text("utf-8"))
    assert data["schema"] == "earmark.contamination/1"
    from earmark.corpus.manifest import manifest_sha256

    assert data["corpus"]["manifest_sha256"] == manifest_sha256(manifest)


def test_cli_canaries_in_declared_text_and_in_outputs(tmp_path, manifest, capsys):
    declared = tmp_path / "d.txt"
    declared.write_text("nothing\nleaked CANARY-7f3a here\nCANARY-7f3a\n", "utf-8")
    canaries = tmp_path / "canaries.txt"
    canaries.write_text("# benchmark markers\nCANARY-7f3a\nCANARY-unused\n", "utf-8")
    run = tmp_path / "run"
    run.mkdir()
    (run / "predictions.jsonl").write_text(
        json.dumps({"id": "cat", "arm": "a", "hypothesis": "ok"}) + "\n"
        + json.dumps({"id": "zh", "arm": "a", "hypothesis": "x CANARY-7f3a"}) + "\n",
        "utf-8",
    )  # fmt: skip
    out = tmp_path / "out"
    code = main(["manifest", "contamination", str(manifest), "--against", str(declared),
                 "--canaries", str(canaries), "--predictions", str(run), "--out", str(out)])  # fmt: skip
    assert code == 0
    hits = json.loads((out / "contamination.json").read_text("utf-8"))["canaries"]
    assert hits["count"] == 2
    assert [h["canary"] for h in hits["hits"]] == ["CANARY-7f3a"]
    assert hits["hits"][0]["declared_lines"] == [2, 3]
    assert [(o["id"], o["line"]) for o in hits["hits"][0]["outputs"]] == [("zh", 2)]


def test_cli_user_errors_exit_2(tmp_path, manifest, capsys):
    out = str(tmp_path / "out")
    assert main(["manifest", "contamination", str(manifest), "--against",
                 str(tmp_path / "missing.txt"), "--out", out]) == 2  # fmt: skip
    assert "cannot read the declared text" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", "utf-8")
    assert main(["manifest", "contamination", str(manifest), "--against", str(bad),
                 "--out", out]) == 2  # fmt: skip
    assert "bad.jsonl:1: invalid JSON" in capsys.readouterr().err
