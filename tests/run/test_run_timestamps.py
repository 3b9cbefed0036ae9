"""A run whose manifest has reference timings scores the system's timestamps end to end."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.corpus.manifest import read_manifest, read_meta
from earmark.corpus.writer import write_manifest
from earmark.engines.base import Hypothesis


def _timed_manifest(tmp_path: Path, corpus_factory) -> Path:  # type: ignore[no-untyped-def]
    plain = corpus_factory(tmp_path / "corpus", 4)  # references: "alpha beta gamma"
    custom = {
        "c000": {"segments": [[0.0, 0.1, "alpha"], [0.1, 0.2, "beta gamma"]]},
        "c001": {"segments": [[0.0, 0.2, "alpha beta gamma"]]},
        "c002": {"words": [[0.0, 0.05, "alpha"], [0.05, 0.1, "beta"], [0.1, 0.2, "gamma"]]},
        "c003": {"segments": [[0.0, 0.2, "alpha beta gamma"]]},
    }
    rows = [replace(u, custom=custom[u.id]) for u in read_manifest(plain)]
    manifest = tmp_path / "corpus" / "timed.jsonl"
    write_manifest(manifest, rows, read_meta(plain))
    return manifest


def test_run_scores_segment_boundaries_against_reference_timings(
    tmp_path: Path, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = _timed_manifest(tmp_path, corpus_factory)
    hyps = tmp_path / "hyps.jsonl"
    hyps.write_text(
        "".join(
            json.dumps(row) + "\n"
            for row in [
                {
                    "id": "c000",
                    "hypothesis": "alpha beta gamma",
                    "segments": [[0.02, 0.1, "alpha"], [0.15, 0.2, "beta gamma"]],
                },
                {
                    "id": "c001",
                    "hypothesis": "alpha beta",
                    "segments": [[0.1, 0.35, "alpha beta"]],
                },
                {"id": "c002", "hypothesis": "alpha beta gamma"},  # no timings from the system
                # c003: no row at all, so no hypothesis and no timings
            ]
        )
    )
    out = tmp_path / "run"
    args = ["run", "--manifest", str(manifest), "--arm", f"precomputed:{hyps}?name=pre"]
    args += ["--isolation", "inline", "--bootstrap", "0", "--out", str(out), "--quiet"]
    assert main(args) == 0, capsys.readouterr().err

    rows = {
        r["id"]: r for r in map(json.loads, (out / "predictions.jsonl").read_text().splitlines())
    }
    assert rows["c000"]["segments"] == [[0.02, 0.1, "alpha"], [0.15, 0.2, "beta gamma"]]
    section = json.loads((out / "results.json").read_text())["arms"]["pre"]["timestamps"]
    assert section["segment_rule"] == "overlap"
    assert section["excluded"] == {
        "words": [{"id": "c002", "reason": "no_hypothesis_timings"}],
        "segments": [{"id": "c003", "reason": "no_hypothesis_timings"}],
    }
    seg = section["by_language"]["en"]["segments"]
    # Pairs: c000 (0.02, 0.0) and (0.05, 0.0); c001 (0.1, 0.15) as (start, end) offsets.
    assert (seg["recordings"], seg["matched"]) == (2, 3)
    assert (seg["unmatched_reference"], seg["unmatched_hypothesis"]) == (0, 0)
    assert seg["start"]["mean"] == pytest.approx(0.17 / 3)
    assert seg["start"]["median"] == pytest.approx(0.05)
    assert seg["start"]["mean_signed"] == pytest.approx(0.17 / 3)
    assert (seg["start"]["within_100ms"], seg["start"]["within_200ms"]) == (1.0, 1.0)
    assert seg["end"]["mean"] == pytest.approx(0.05)
    assert seg["end"]["median"] == 0.0
    assert seg["end"]["within_100ms"] == pytest.approx(2 / 3)
    assert seg["end"]["within_200ms"] == 1.0
    assert "words" not in section["by_language"]["en"]  # no row carries word timings

    markdown = (out / "results.md").read_text()
    assert "### Timestamp accuracy" in markdown
    assert "| en | segments | 3 | 0 / 0 | 57 ms | 50 ms | 100% | 100% | 50 ms | 0 ms | 67% |" in (
        markdown
    )
    assert main(["report", str(out)]) == 0, capsys.readouterr().err
    page = (out / "report.html").read_text()
    assert '<section id="timestamps">' in page and "57 ms" in page
    assert main(["verify", str(out), "--quiet"]) == 0, capsys.readouterr().out


def test_run_without_reference_timings_has_no_timestamps_section(
    tmp_path: Path, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 1)
    hyps = tmp_path / "hyps.jsonl"
    hyps.write_text(json.dumps({"id": "c000", "hypothesis": "alpha", "segments": [[0, 1, "a"]]}))
    out = tmp_path / "run"
    args = ["run", "--manifest", str(manifest), "--arm", f"precomputed:{hyps}?name=pre"]
    args += ["--isolation", "inline", "--bootstrap", "0", "--out", str(out), "--quiet"]
    assert main(args) == 0, capsys.readouterr().err
    assert "timestamps" not in json.loads((out / "results.json").read_text())["arms"]["pre"]


def test_precomputed_segments_are_validated_with_file_and_line(
    tmp_path: Path, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 1)
    hyps = tmp_path / "hyps.jsonl"
    hyps.write_text(json.dumps({"id": "c000", "hypothesis": "a", "segments": [[2, 1, "a"]]}) + "\n")
    args = ["run", "--manifest", str(manifest), "--arm", f"precomputed:{hyps}?name=pre"]
    args += ["--isolation", "inline", "--out", str(tmp_path / "run"), "--quiet"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{hyps}:1" in err and "segments[0]" in err and "ends before it starts" in err


@pytest.mark.skipif(
    "words" not in Hypothesis.__dataclass_fields__,
    reason="rows carry word timings once Hypothesis has `words` (engines/base.py, "
    "run/arm_worker.py, engines/faster_whisper.py)",
)
def test_faster_whisper_word_timings_are_scored_against_custom_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("faster_whisper", reason="needs the faster-whisper extra")
    from earmark.corpus.demo import demo_manifest_path
    from earmark.metrics.timestamps import OffsetSummary, word_offsets

    (utt,) = [u for u in read_manifest(demo_manifest_path()) if u.id == "en-01"]
    # Nominal reference timings, 0.3 s a word: the figures are checked against the metric
    # applied to the row's own word timings, so only the wiring is under test here.
    words = [[0.3 * i, 0.3 * (i + 1), w] for i, w in enumerate(utt.text.split())]
    manifest = tmp_path / "words.jsonl"
    write_manifest(
        manifest, [replace(utt, custom={"words": words})], read_meta(demo_manifest_path())
    )
    out = tmp_path / "run"
    arm = "faster-whisper:bundled:tiny.en?compute_type=int8&beam_size=1&temperature=0"
    args = ["run", "--manifest", str(manifest), "--audio-root", str(demo_manifest_path().parent)]
    args += ["--arm", f"{arm}&word_timestamps=true&name=fw", "--bootstrap", "0"]
    args += ["--out", str(out), "--quiet"]
    assert main(args) == 0, capsys.readouterr().err
    [row] = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert row["words"] and all(s <= e for s, e, _ in row["words"])
    expected = word_offsets(words, row["words"], "en-v1")
    assert expected.matched >= 5  # tiny.en gets most of the pangram right
    block = json.loads((out / "results.json").read_text())["arms"]["fw"]["timestamps"]
    got = block["by_language"]["en"]["words"]
    assert got["matched"] == expected.matched
    assert got["start"] == OffsetSummary.of(expected.start).as_dict()
    assert got["end"] == OffsetSummary.of(expected.end).as_dict()
