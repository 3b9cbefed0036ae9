"""One bound and one encoding for a row of predictions.jsonl, shared by its writers and
readers (issue 24, items 1 and 2, and the general rule).

Before: a stdio or HTTP answer holding the escape `"\\ud800"` crashed the arm in the store
(`UnicodeEncodeError`: every row `arm_failed`, each rerun dying on the same clip), and a
400k-word answer was stored as a 2.4 MB line that `run`'s resume, `report` and `verify`
then refused for ever (exit 2). Now such a clip fails under its own reason code, the other
clips are scored, and a rerun, `report`, `verify`, `compare` and `leaderboard` all read the
folder. Loopback servers and local programs only.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.cli import main
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.writer import write_manifest
from earmark.records import MAX_RECORD_BYTES_ENV, decode_records, json_objects, max_record_bytes
from earmark.rundir.bounds import (
    INVALID_TEXT,
    STORE_SHARE,
    TOO_LONG,
    encode_row,
    fit_store_row,
    store_row_bytes,
)
from earmark.testing.loopback import LoopbackServer, Request, Response

#: A stdio program that answers each clip with the raw JSON string literal `answers.json`
#: holds for its id (so a test controls the exact escapes), else "alpha beta".
PROGRAM = """import json, sys
answers = json.load(open(sys.argv[1], encoding="utf-8"))
print(json.dumps({"type": "hello", "protocol": 1, "name": "scripted", "deterministic": True}),
      flush=True)
for line in sys.stdin:
    request = json.loads(line)
    if request.get("type") == "shutdown":
        break
    text = answers.get(request["id"], '"alpha beta"')
    sys.stdout.write('{"id": %s, "text": %s}\\n' % (json.dumps(request["id"]), text))
    sys.stdout.flush()
"""

#: Every odd character the store writes as it is: line and paragraph separators, a lone
#: CR, NUL and other controls (escaped by JSON), a byte-order mark, bidi controls, a
#: combining mark, zero-width joiners, an emoji beyond the BMP, `</script>`.
ODD = "a\u2028b\u2029c\rd\x00e\x1cf\ufeffg\u202eh\u0301i\u200dj\U0001f600k</script>l&m "


def corpus(root: Path, n: int = 3) -> Path:
    """n clips of distinct lengths (an HTTP handler tells them apart by the audio's size)."""
    (root / "audio").mkdir(parents=True)
    rows = []
    for i in range(n):
        t = np.arange(3200 + 1600 * i) / 16000
        sf.write(root / "audio" / f"c{i}.wav", 0.3 * np.sin(2 * np.pi * 440 * t), 16000)
        rows.append(
            Utterance(id=f"c{i}", audio=f"audio/c{i}.wav", text="alpha beta", language="en")
        )
    manifest = root / "manifest.jsonl"
    meta = CorpusMeta(
        dataset="tones",
        licence="CC0-1.0",
        consent_basis="synthetic",
        redistribute_audio=True,
        redistribute_transcripts=True,
    )
    write_manifest(manifest, rows, meta)
    return manifest


def run(manifest: Path, out: Path, arm: str, normalizer: str = "none") -> int:
    return main(run_args(manifest, out, arm, normalizer))


def run_args(manifest: Path, out: Path, arm: str, normalizer: str = "none") -> list[str]:
    return [
        "run",
        "--manifest",
        str(manifest),
        "--arm",
        arm,
        "--normalizer",
        normalizer,
        "--bootstrap",
        "20",
        "--out",
        str(out),
        "--quiet",
    ]


def stdio_arm(tmp_path: Path, answers: dict[str, str]) -> str:
    program = tmp_path / "program.py"
    program.write_text(PROGRAM, "utf-8")
    table = tmp_path / "answers.json"
    table.write_text(json.dumps(answers), "utf-8")
    return f"stdio:{sys.executable} {program} {table}?name=p"


def rows(out: Path) -> dict[str, dict[str, object]]:
    lines = (out / "predictions.jsonl").read_bytes().split(b"\n")
    return {row["id"]: row for row in (json.loads(line) for line in lines if line)}


def readers_accept(out: Path, tmp_path: Path, normalizer: str = "none") -> None:
    """Every reader of a run folder takes it: report, verify, compare, leaderboard."""
    assert main(["report", str(out), "--out", str(tmp_path / "report.html")]) == 0
    assert main(["verify", str(out)]) == 0
    compare = ["compare", f"a={out}", f"b={out}", "--normalizer", normalizer, "--bootstrap", "20"]
    assert main([*compare, "--out", str(tmp_path / "compare")]) == 0
    assert main(["leaderboard", str(out), "--out", str(tmp_path / "board.md")]) == 0


# -- the writer's rule, by hand --------------------------------------------------------


def test_a_fitting_row_is_written_as_the_store_always_wrote_it() -> None:
    row = {"arm": "a", "id": "u", "status": "ok", "hypothesis": ODD, "reference": "x"}
    line = json.dumps(row, ensure_ascii=False, sort_keys=True, allow_nan=False)
    assert fit_store_row(row) == line.encode("utf-8") + b"\n"
    assert b"\n" not in fit_store_row(row)[:-1]  # \r, U+2028 and NUL never end the line


def test_a_lone_surrogate_fails_the_clip_and_names_the_fields() -> None:
    row = {
        "arm": "a",
        "id": "u",
        "status": "ok",
        "reference": "x y",
        "hypothesis": "x \ud800 y",
        "segments": [[0.0, 1.0, "x \ud800 y"]],
        "engine": {"reported_language": "\udfff"},
    }
    written = json.loads(fit_store_row(row))
    assert written == {
        "arm": "a",
        "id": "u",
        "status": INVALID_TEXT,
        "reference": "x y",
        "hypothesis": None,
        "detail": "the engine's answer holds text that is not Unicode (a lone surrogate) in "
        "hypothesis, segments[0][2], engine.reported_language; the clip was ok",
    }


def test_a_surrogate_outside_the_engines_output_is_replaced_not_lost() -> None:
    row = {"arm": "a", "id": "u\ud800", "status": "ok", "reference": "x", "hypothesis": "x"}
    written = json.loads(fit_store_row(row))
    assert written["id"] == "u\ufffd" and written["status"] == INVALID_TEXT


def test_an_over_long_row_fails_the_clip_keeping_length_and_hash() -> None:
    hypothesis = "é" * (store_row_bytes() // 2)  # 2 UTF-8 bytes each: just over the share
    row = {"arm": "a", "id": "u", "status": "ok", "reference": "x", "hypothesis": hypothesis}
    size = len(encode_row(row).encode("utf-8"))
    assert size > store_row_bytes()
    written = json.loads(fit_store_row(row))
    assert written["status"] == TOO_LONG and written["hypothesis"] is None
    assert written["oversize"] == {
        "row_bytes": size,
        "bound_bytes": max_record_bytes() // STORE_SHARE,
        "status": "ok",
        "hypothesis_chars": len(hypothesis),
        "hypothesis_utf8_bytes": 2 * len(hypothesis),
        "hypothesis_sha256": hashlib.sha256(hypothesis.encode("utf-8")).hexdigest(),
        "hypothesis_head": "é" * 200,
    }


def test_the_store_share_follows_the_one_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    assert store_row_bytes() == (1 << 20) // 8
    monkeypatch.setenv(MAX_RECORD_BYTES_ENV, "80000")
    assert store_row_bytes() == 10000


# -- 1. a lone surrogate ---------------------------------------------------------------


def test_stdio_surrogate_is_a_reason_code_and_the_rerun_goes_on(tmp_path: Path) -> None:
    manifest = corpus(tmp_path / "corpus")
    out = tmp_path / "run"
    arm = stdio_arm(tmp_path, {"c1": '"alpha \\ud800 beta"'})
    assert run(manifest, out, arm) == 0
    first = rows(out)
    assert {k: v["status"] for k, v in first.items()} == {
        "c0": "ok",
        "c1": INVALID_TEXT,
        "c2": "ok",
    }
    assert first["c0"]["hypothesis"] == first["c2"]["hypothesis"] == "alpha beta"
    assert first["c1"]["hypothesis"] is None
    assert "in hypothesis" in str(first["c1"]["detail"])
    results = json.loads((out / "results.json").read_text("utf-8"))
    # The failed clip is all deletions: 2 of the 6 reference words.
    wer = results["arms"]["p"]["overall"]["views"]["raw"]["wer"]
    assert (wer["deletions"], wer["ref_units"], wer["value"]) == (2, 6, 2 / 6)
    assert results["arms"]["p"]["coverage"]["not_ok"] == [{"id": "c1", "status": INVALID_TEXT}]
    assert run(manifest, out, arm) == 0  # the rerun resumes, the clip stays failed
    assert main([*run_args(manifest, out, arm), "--retry-failed"]) == 0  # tried again: same
    assert {k: v["status"] for k, v in rows(out).items()} == {
        k: v["status"] for k, v in first.items()
    }
    readers_accept(out, tmp_path)


def test_http_surrogate_and_15_mb_answer_are_reason_codes(tmp_path: Path) -> None:
    manifest = corpus(tmp_path / "corpus")
    out = tmp_path / "run"
    sizes: dict[int, int] = {}
    big = "alpha " * 2_500_000  # 15 MB, under the backend's 16 MiB max_response_bytes

    def handler(request: Request) -> Response:
        size = len(request.form()["file"])
        index = sizes.setdefault(size, len(sizes))
        if index == 1:
            return Response(200, b'{"text": "alpha \\ud800 beta"}')
        if index == 2:
            return Response(200, json.dumps({"text": big}).encode())
        return Response(200, b'{"text": "alpha beta"}')

    with LoopbackServer(handler) as server:
        arm = f"http:{server.url}/v1?retries=0&name=p&response_format=json"
        assert run(manifest, out, arm) == 0
        first = rows(out)
        assert run(manifest, out, arm) == 0
    statuses = {k: v["status"] for k, v in first.items()}
    assert statuses == {"c0": "ok", "c1": INVALID_TEXT, "c2": TOO_LONG}
    oversize = first["c2"]["oversize"]
    assert isinstance(oversize, dict)
    text = big.strip()  # the backend strips the answer
    assert oversize["hypothesis_chars"] == len(text) == 14_999_999
    assert oversize["hypothesis_sha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert {k: v["status"] for k, v in rows(out).items()} == statuses
    readers_accept(out, tmp_path)


def test_score_refuses_a_surrogate_with_its_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hyps = tmp_path / "hyps.jsonl"
    hyps.write_text(
        '{"id": "a", "reference": "x y", "hypothesis": "x y"}\n'
        '{"id": "b", "reference": "x y", "hypothesis": "x \\ud800 y"}\n',
        "utf-8",
    )
    rc = main(["score", str(hyps), "--normalizer", "none", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.strip().splitlines() == [
        f"earmark: error: {hyps}:2: field 'hypothesis': text that is not Unicode (a lone "
        "surrogate escape such as \\ud800) (hint: re-export the file from text that is valid "
        "Unicode)"
    ]
    assert "internal error" not in err


# -- 2. a large hypothesis -------------------------------------------------------------


def test_a_400k_word_stdio_answer_leaves_the_folder_usable(tmp_path: Path) -> None:
    manifest = corpus(tmp_path / "corpus")
    out = tmp_path / "run"
    words = " ".join(["alpha"] * 400_000)
    arm = stdio_arm(tmp_path, {"c1": json.dumps(words)})
    assert run(manifest, out, arm) == 0
    first = rows(out)
    assert [first[k]["status"] for k in ("c0", "c1", "c2")] == ["ok", TOO_LONG, "ok"]
    oversize = first["c1"]["oversize"]
    assert isinstance(oversize, dict)
    assert oversize["hypothesis_chars"] == oversize["hypothesis_utf8_bytes"] == 2_399_999
    assert oversize["hypothesis_sha256"] == hashlib.sha256(words.encode()).hexdigest()
    assert oversize["hypothesis_head"] == words[:200]
    assert run(manifest, out, arm) == 0
    assert [rows(out)[k]["status"] for k in ("c0", "c1", "c2")] == ["ok", TOO_LONG, "ok"]
    readers_accept(out, tmp_path)


# -- 3. the worst record the writer allows, read back by every reader -----------------


def test_the_longest_oddest_row_the_store_writes_is_read_by_every_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bound of 64 KiB (so the test is quick): c1's answer is the longest run of odd
    characters whose stored row fits the store's share, c2's one piece longer."""
    monkeypatch.setenv(MAX_RECORD_BYTES_ENV, str(64 * 1024))
    manifest = corpus(tmp_path / "corpus")
    probe_out = tmp_path / "probe"
    piece = json.dumps(ODD)[1:-1]  # the escaped form the program sends
    (tmp_path / "p0").mkdir()
    arm = stdio_arm(tmp_path / "p0", {"c1": json.dumps(ODD)})
    assert run(manifest, probe_out, arm, "zh-eval-v1") == 0
    # The stored row of one piece, and what each further piece adds to it.
    stored = {k: v for k, v in rows(probe_out)["c1"].items() if k not in ("normalizer", "views")}
    one = len(encode_row(stored).encode("utf-8"))
    per_piece = len(encode_row({"h": ODD * 2}).encode()) - len(encode_row({"h": ODD}).encode())
    # Timings differ in length between runs by a few digits: leave 64 bytes for them.
    pieces = 1 + (store_row_bytes() - one - 64) // per_piece
    out = tmp_path / "run"
    (tmp_path / "p1").mkdir()
    arm = stdio_arm(
        tmp_path / "p1",
        {"c1": '"' + piece * pieces + '"', "c2": '"' + piece * (pieces + 2) + '"'},
    )
    assert run(manifest, out, arm, "zh-eval-v1") == 0
    first = rows(out)
    assert first["c1"]["status"] == "ok" and first["c1"]["hypothesis"] == (ODD * pieces).strip()
    assert first["c2"]["status"] == TOO_LONG
    stored = {k: v for k, v in first["c1"].items() if k not in ("normalizer", "views")}
    assert store_row_bytes() - 200 < len(encode_row(stored).encode("utf-8")) <= store_row_bytes()
    assert run(manifest, out, arm, "zh-eval-v1") == 0  # resume reads it back
    assert rows(out)["c1"]["hypothesis"] == first["c1"]["hypothesis"]
    longest = max(len(line) for line in (out / "predictions.jsonl").read_bytes().split(b"\n"))
    assert longest <= max_record_bytes()
    readers_accept(out, tmp_path, "zh-eval-v1")


def test_a_stdio_line_over_the_wire_bound_is_skipped_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program that loops without end is cut at the wire's bound (16 MiB; 1000 bytes
    here): that clip is `stdio_answer_too_large`, the next one is answered as usual."""
    import earmark.engines.stdio_process as wire
    from earmark.engines import build_engine, parse_arm_spec
    from earmark.engines.base import Clip

    monkeypatch.setattr(wire, "MAX_LINE_BYTES", 1000)
    engine = build_engine(parse_arm_spec(stdio_arm(tmp_path, {"c1": json.dumps("x" * 5000)})))
    engine.load()
    clips = [Clip(f"c{i}", np.zeros(1600, dtype=np.float32), 16000) for i in range(3)]
    hyps = engine.transcribe(clips, "en")
    engine.close()
    assert [h.error for h in hyps] == [None, "stdio_answer_too_large", None]
    assert [h.text for h in hyps] == ["alpha beta", "", "alpha beta"]
    detail = hyps[1].extra["detail"]
    line = '{"id": "c1", "text": "' + "x" * 5000 + '"}\n'  # what the program writes
    assert detail == f"a line of more than 1000 bytes ({len(line)} skipped)"


def test_a_stdio_answer_json_cannot_parse_is_a_protocol_error(tmp_path: Path) -> None:
    """Nesting past the parser's recursion: before, RecursionError escaped and failed the arm."""
    from earmark.engines import build_engine, parse_arm_spec
    from earmark.engines.base import Clip

    deep = "[" * 100_000 + "]" * 100_000
    engine = build_engine(parse_arm_spec(stdio_arm(tmp_path, {"c1": deep})))
    engine.load()
    clips = [Clip(f"c{i}", np.zeros(1600, dtype=np.float32), 16000) for i in range(3)]
    hyps = engine.transcribe(clips, "en")
    engine.close()
    assert [h.error for h in hyps] == [None, "stdio_protocol_error", None]
    assert hyps[1].extra["detail"] == "a line json cannot parse (RecursionError)"
    assert hyps[2].text == "alpha beta"


def test_a_hello_that_is_not_unicode_is_a_one_line_error(tmp_path: Path) -> None:
    from earmark.engines import build_engine, parse_arm_spec
    from earmark.errors import EarmarkError

    program = tmp_path / "hello.py"
    program.write_text(
        'import sys\nsys.stdout.write(\'{"type": "hello", "protocol": 1, "name": "x\\\\ud800"}\\n\')'
        "\nsys.stdout.flush()\nsys.stdin.read()\n",
        "utf-8",
    )
    engine = build_engine(parse_arm_spec(f"stdio:{sys.executable} {program}"))
    with pytest.raises(EarmarkError) as caught:
        engine.load()
    assert "the hello's name is not Unicode text (a lone surrogate)" in caught.value.message


def test_score_refuses_an_encoded_surrogate_in_a_csv_as_bad_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CSV has no escapes: a surrogate can only come as its 3 bytes (CESU-8), which
    strict UTF-8 refuses at the line."""
    hyps = tmp_path / "hyps.csv"
    hyps.write_bytes(b"id,reference,hypothesis\na,x y,x y\nb,x y,x \xed\xa0\x80 y\n")
    rc = main(["score", str(hyps), "--normalizer", "none", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.strip().splitlines() == [
        f"earmark: error: {hyps}:3: not valid UTF-8 (byte 0xed) (hint: re-encode the file as UTF-8)"
    ]


def test_score_never_writes_a_scored_row_its_readers_refuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 550 KB line is read (under the 1 MiB bound), but its scored row (the raw view
    repeats both texts) would be 1.1 MB: one line naming the utterance, nothing written,
    where before the folder was written and then refused by report and verify. (A short
    reference keeps the pair far under the alignment bound, which refuses first otherwise.)"""
    hyps = tmp_path / "hyps.jsonl"
    record = {"id": "long", "reference": "x " * 5, "hypothesis": "x " * 275_000}
    hyps.write_text(json.dumps(record) + "\n", "utf-8")
    out = tmp_path / "o"
    rc = main(["score", str(hyps), "--normalizer", "none", "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1
    assert err[0].startswith("earmark: error: utterance 'long': its scored row would be ")
    assert "over the 1048576 every reader of predictions.jsonl accepts" in err[0]
    assert not (out / "predictions.jsonl").exists() and not (out / "results.json").exists()


# -- the writer's promise, for any row ---------------------------------------------------

#: Any text Python can hold, lone surrogates included, long enough to cross the share.
TEXTS = st.one_of(
    st.text(st.characters(codec=None, min_codepoint=0), max_size=50),
    st.builds(lambda c, n: c * n, st.sampled_from(["é", "\x00", "\u2028", "\ud800", "x "]),
              st.integers(0, 40_000)),
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(hypothesis=TEXTS, segment=TEXTS, detail=TEXTS, reference=st.text(max_size=200))
def test_every_row_the_store_writes_is_one_line_a_reader_takes(
    hypothesis: str, segment: str, detail: str, reference: str
) -> None:
    """Whatever an engine returns, the store writes one UTF-8 line within its share, that
    parses back: as given, or as the clip's `invalid_text` / `hypothesis_too_long`."""
    row = {
        "arm": "a",
        "id": "u",
        "status": "ok",
        "reference": reference,
        "hypothesis": hypothesis,
        "segments": [[0.0, 1.0, segment]],
        "engine": {"message": detail},
    }
    line = fit_store_row(row)
    assert line.endswith(b"\n") and b"\n" not in line[:-1]
    assert len(line) - 1 <= store_row_bytes()
    [(_, back)] = list(json_objects(decode_records([line], "store"), "store"))
    if back["status"] == "ok":
        assert back == row
    else:
        assert back["status"] in (INVALID_TEXT, TOO_LONG) and back["hypothesis"] is None
        assert back["reference"] == reference and "segments" not in back
