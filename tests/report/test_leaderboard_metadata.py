"""Leaderboard metadata: architecture and exact parameter counts from model records,
contamination marks from `earmark manifest contamination`, self-reported rows apart."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from report_builders import ArmData, make_run

from earmark.cli import main
from earmark.corpus.manifest import manifest_sha256
from earmark.render.leaderboard_entries import model_shape
from earmark.render.leaderboard_ranking import build_leaderboard
from earmark.render.run_directory import load_run

REF = "the cat sat on the mat"


def en_rows(wrong: int, n: int = 4) -> list[tuple[str, str, str, str]]:
    """n rows of six words, the first `wrong` substituted: WER = wrong / 6."""
    words = REF.split()
    return [(f"u{i}", "en", REF, " ".join(["zzz"] * wrong + words[wrong:])) for i in range(n)]


def set_model_extra(run: Path, arm: str, **extra: object) -> None:
    """Record what an engine would have written in model.json `extra`."""
    path = run / "results.json"
    results = json.loads(path.read_text("utf-8"))
    results["arms"][arm]["model"]["extra"].update(extra)
    path.write_text(json.dumps(results), "utf-8")


# --- architecture and parameters --------------------------------------------------------


def test_architecture_and_exact_parameters_become_columns(tmp_path):
    run = make_run(tmp_path / "r", {"w2v": ArmData(en_rows(1)), "ct2": ArmData(en_rows(2))})
    set_model_extra(
        run, "w2v", architecture="wav2vec2", model_class="Wav2Vec2ForCTC", parameters=94_396_320
    )
    set_model_extra(
        run, "ct2", architecture="whisper", parameters=None, parameters_note="not exact here"
    )
    board = build_leaderboard([load_run(run)])
    by = {e.system: e for e in board.entries}
    assert by["w2v"].architecture == "wav2vec2 (Wav2Vec2ForCTC)"
    assert (by["w2v"].parameters, by["w2v"].parameters_note) == (94_396_320, None)
    assert (by["ct2"].architecture, by["ct2"].parameters) == ("whisper", None)
    assert by["ct2"].parameters_note == "not exact here"

    assert main(["leaderboard", str(run), "--out", str(tmp_path / "lb"), "--quiet"]) == 0
    md = (tmp_path / "lb" / "leaderboard.md").read_text("utf-8")
    assert "| architecture | parameters |" in md
    assert "| wav2vec2 (Wav2Vec2ForCTC) | 94.4M |" in md and "| whisper | — |" in md
    rows = {
        r["system"]: r
        for r in csv.DictReader(io.StringIO((tmp_path / "lb" / "leaderboard.csv").read_text()))
    }
    assert rows["w2v"]["parameters"] == "94396320"  # the exact count, not the rounded text
    assert (rows["ct2"]["parameters"], rows["ct2"]["parameters_note"]) == ("", "not exact here")


@pytest.mark.parametrize("bad", [None, 0, -5, True, 1.5e6, "39M"])
def test_a_parameter_count_that_is_not_an_exact_count_is_not_shown(bad):
    shape = model_shape({"extra": {"parameters": bad}})
    assert shape["parameters"] is None and shape["parameters_note"]


def test_records_without_metadata_say_so():
    assert model_shape({}) == {
        "architecture": None,
        "parameters": None,
        "parameters_note": "not recorded by the engine",
    }


def test_transformers_engine_records_the_exact_parameter_count(tmp_path):
    pytest.importorskip("torch", reason="torch is not installed (pip install torch==2.13.0)")
    transformers = pytest.importorskip("transformers", reason="needs the transformers extra")
    from earmark.engines import build_engine, parse_arm_spec
    from earmark.testing.tiny_torch_models import build_tiny_ctc

    folder = build_tiny_ctc(tmp_path / "ctc")
    info = build_engine(parse_arm_spec(f"transformers-ctc:{folder}")).load()
    # Oracles: transformers' own count, and the tensors in the saved weights file.
    oracle = transformers.AutoModelForCTC.from_pretrained(str(folder)).num_parameters()
    import math

    from safetensors import safe_open

    with safe_open(str(folder / "model.safetensors"), "pt") as f:
        stored = sum(math.prod(f.get_slice(k).get_shape()) for k in f.keys())  # noqa: SIM118
    assert info.extra["parameters"] == oracle == stored
    assert info.extra["architecture"] == "wav2vec2"
    assert info.extra["model_class"] == "Wav2Vec2ForCTC"


def test_faster_whisper_records_architecture_and_why_no_count():
    pytest.importorskip("faster_whisper", reason="needs the faster-whisper extra")
    from earmark.engines import build_engine, parse_arm_spec

    info = build_engine(parse_arm_spec("faster-whisper:bundled:tiny.en?compute_type=int8")).load()
    assert info.extra["architecture"] == "whisper"
    assert info.extra["model_class"] == "CTranslate2 WhisperSpec"
    assert info.extra["parameters"] is None
    assert "model.bin" in info.extra["parameters_note"]


# --- contamination marks ----------------------------------------------------------------


def contamination_report(tmp_path: Path, declared_text: str, *extra: str) -> tuple[Path, str]:
    """A real report from `earmark manifest contamination` on a four-row corpus."""
    manifest = tmp_path / "corpus.jsonl"
    manifest.write_text(
        "".join(
            json.dumps({"id": f"u{i}", "audio": f"u{i}.wav", "text": t, "language": "en"}) + "\n"
            for i, t in enumerate([REF, "a b c d e", "f g h i j", "k l m n o"])
        ),
        "utf-8",
    )
    declared = tmp_path / "train.txt"
    declared.write_text(declared_text, "utf-8")
    out = tmp_path / "contam"
    args = ["manifest", "contamination", str(manifest), "--against", str(declared)]
    assert main([*args, "--n", "3", "--out", str(out), *extra]) == 0
    return out / "contamination.json", manifest_sha256(manifest)


def test_rows_on_a_flagged_corpus_are_marked_and_keep_their_rank(tmp_path):
    report, sha = contamination_report(tmp_path, "the cat sat on the mat\n")  # u0 flagged
    on = make_run(
        tmp_path / "on", {"good": ArmData(en_rows(1)), "bad": ArmData(en_rows(3))}, manifest_sha=sha
    )
    other = make_run(tmp_path / "other", {"good": ArmData(en_rows(1))}, manifest_sha="b" * 64)
    out = tmp_path / "lb"
    argv = ["leaderboard", str(on), str(other), "--out", str(out), "--quiet"]
    assert main([*argv, "--contamination", str(report)]) == 0
    data = json.loads((out / "leaderboard.json").read_text("utf-8"))
    marks = {(Path(e["run"]).name, e["system"]): e["contamination"] for e in data["entries"]}
    assert marks[("on", "good")] == marks[("on", "bad")]
    assert marks[("on", "good")].startswith("1/4 utterances flagged (25.0%)")
    assert marks[("other", "good")] is None  # another corpus
    ranks = {(Path(e["run"]).name, e["system"]): e["rank"] for e in data["entries"]}
    assert ranks[("on", "good")] == 1 and ranks[("on", "bad")] == 2
    md = (out / "leaderboard.md").read_text("utf-8")
    assert "good ⚠ contamination suspect" in md and "## Contamination" in md
    assert "⚠ contamination suspect" in (out / "leaderboard.html").read_text("utf-8")

    # 1 flagged of 4 is not above a 25% allowance; it is above 20%.
    assert main([*argv, "--contamination", str(report), "--contamination-share", "0.25"]) == 0
    data = json.loads((out / "leaderboard.json").read_text("utf-8"))
    assert all(e["contamination"] is None for e in data["entries"])
    assert main([*argv, "--contamination", str(report), "--contamination-share", "0.2"]) == 0
    data = json.loads((out / "leaderboard.json").read_text("utf-8"))
    assert sum(e["contamination"] is not None for e in data["entries"]) == 2


def test_a_report_naming_a_system_marks_only_that_system(tmp_path):
    report, sha = contamination_report(tmp_path, "the cat sat on\n", "--system", "bad")
    run = make_run(
        tmp_path / "r", {"good": ArmData(en_rows(1)), "bad": ArmData(en_rows(3))}, manifest_sha=sha
    )
    board = build_leaderboard(
        [load_run(run)], contamination=[json.loads(report.read_text("utf-8"))]
    )
    assert {e.system: e.contamination is not None for e in board.entries} == {
        "good": False,
        "bad": True,
    }


def test_a_canary_in_the_declared_text_marks_rows_with_nothing_flagged(tmp_path):
    canaries = tmp_path / "canaries.txt"
    canaries.write_text("BENCH-CANARY-42\n", "utf-8")
    report, sha = contamination_report(
        tmp_path, "unrelated words\nBENCH-CANARY-42\n", "--canaries", str(canaries)
    )
    run = make_run(tmp_path / "r", {"good": ArmData(en_rows(1))}, manifest_sha=sha)
    board = build_leaderboard(
        [load_run(run)],
        contamination=[json.loads(report.read_text("utf-8"))],
        contamination_share=1.0,
    )
    assert board.entries[0].contamination == f"canary BENCH-CANARY-42 in {tmp_path / 'train.txt'}"


def test_a_file_that_is_not_a_contamination_report_is_refused(tmp_path, capsys):
    run = make_run(tmp_path / "r", {"good": ArmData(en_rows(1))})
    other = tmp_path / "x.json"
    other.write_text('{"schema": "earmark.leaderboard/1"}', "utf-8")
    argv = ["leaderboard", str(run), "--out", str(tmp_path / "lb"), "--contamination", str(other)]
    assert main(argv) == 2
    assert "not a contamination report" in capsys.readouterr().err


# --- self-reported rows -----------------------------------------------------------------


def self_reported_file(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "published.json"
    path.write_text(json.dumps({"schema": "earmark.self-reported/1", "rows": rows}), "utf-8")
    return path


PUBLISHED = {
    "system": "vendor-x",
    "manifest_sha256": "a" * 64,  # report_builders' MANIFEST_SHA: the runs' corpus
    "language": "en",
    "metric": "wer",
    "value": 0.01,  # better than every measured row
    "source": "https://example.invalid/paper",
}


def test_self_reported_rows_are_shown_apart_and_never_ranked(tmp_path):
    run = make_run(tmp_path / "r", {"good": ArmData(en_rows(1)), "bad": ArmData(en_rows(3))})
    published = self_reported_file(tmp_path, [PUBLISHED])
    out = tmp_path / "lb"
    argv = ["leaderboard", str(run), "--out", str(out), "--quiet"]
    assert main([*argv, "--self-reported", str(published)]) == 0
    data = json.loads((out / "leaderboard.json").read_text("utf-8"))
    assert [e["system"] for e in data["entries"]] == ["good", "bad"]
    assert [e["rank"] for e in data["entries"]] == [1, 2]
    assert data["self_reported"]["rows"] == [{**PUBLISHED, "corpus": None, "note": None}]
    md = (out / "leaderboard.md").read_text("utf-8")
    ranked, _, apart = md.partition("## Self-reported (not verified)")
    assert "vendor-x" not in ranked
    assert "| vendor-x | test-corpus [manifest aaaaaaaaaaaa] · en | WER | 1.00% |" in apart
    html = (out / "leaderboard.html").read_text("utf-8")
    assert html.index("Self-reported (not verified)") < html.index("vendor-x")
    assert "vendor-x" not in (out / "leaderboard.csv").read_text("utf-8")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"manifest_sha256": "abc"}, "rows[0].manifest_sha256"),
        ({"metric": "bleu"}, "rows[0].metric"),
        ({"value": "1.2%"}, "rows[0].value"),
        ({"value": -0.1}, "rows[0].value"),
        ({"source": "my paper"}, "rows[0].source"),
        ({"system": ""}, "rows[0].system"),
        ({"rank": 1}, "rows[0].rank"),
    ],
)
def test_self_reported_rows_are_checked(tmp_path, capsys, change, field):
    run = make_run(tmp_path / "r", {"good": ArmData(en_rows(1))})
    published = self_reported_file(tmp_path, [{**PUBLISHED, **change}])
    argv = ["leaderboard", str(run), "--out", str(tmp_path / "lb")]
    assert main([*argv, "--self-reported", str(published)]) == 2
    assert field in capsys.readouterr().err
