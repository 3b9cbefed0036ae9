"""`earmark score` streams its input chunk by chunk; the chunk size never shows in an output.

The fixed corpus (`fast_paths_corpus.py`) has every shape a chunk boundary can cut
through: several languages and normalisers (so a chunk holds rows of several groups),
slices, repeats sharing a clip (clusters that span chunks), missing hypotheses, empty
references and hypotheses; on top of it, pairs repeated under other ids (the same texts
counted again) and an earmark run's predictions (arms, repeats, statuses). Scored with a
chunk of 1, 7 and 64 rows and with the whole corpus in one chunk, predictions.jsonl and
results.md must be byte-identical and results.json equal except its `created` stamp.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fast_paths_corpus import corpus_records, corpus_rows

from earmark import file_scoring as api
from earmark.errors import EarmarkError
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import CorpusScorer, score_rows
from earmark.stats.settings import BootstrapSettings

EXAMPLE_RUN = Path(__file__).parents[1] / "report" / "data" / "example-run" / "predictions.jsonl"
WHOLE = 1_000_000
CONFIGS: dict[str, dict[str, Any]] = {
    "auto, 200 resamples": {"normalizer": "auto", "resamples": 200},
    "none, macro, 50 resamples": {"normalizer": "none", "aggregate": "macro", "resamples": 50},
    "crude-v1, minimum 25 rows": {"normalizer": "crude-v1", "resamples": 30, "min_per_slice": 25},
    "auto, sclite reports, punctuation": {
        "normalizer": "auto",
        "resamples": 20,
        "sclite_reports": True,
        "punctuation": True,
    },
    "blasbench-v1 protocol (python-random bootstrap)": {"protocol": "blasbench-v1"},
}
#: Configs scored on one language's rows only: a protocol refuses rows of another.
ONLY_LANGUAGE = {"blasbench-v1 protocol (python-random bootstrap)": "ga"}


def _score(
    monkeypatch: pytest.MonkeyPatch,
    chunk: int,
    source: Path,
    out_dir: Path | None = None,
    arm: str | None = None,
    **figures: Any,
) -> Any:
    """`score_predictions` with `chunk`-row chunks."""
    monkeypatch.setattr(api, "CHUNK_ROWS", chunk)
    inputs = ScoreInputs(source, arm=arm)
    return score_predictions(inputs, ScoreFigures(**figures), out_dir=out_dir).to_dict()


def _corpus(path: Path, language: str | None = None) -> Path:
    """The fixed corpus plus 30 rows repeating earlier rows' texts under new ids (with
    `language`, only the rows of that language)."""
    records = corpus_records()
    copies = [
        {**record, "id": f"copy-{k}", "clip": f"copy-clip-{k % 4}"}
        if k % 3 == 0
        else {k2: v for k2, v in {**record, "id": f"copy-{k}"}.items() if k2 != "clip"}
        for k, record in enumerate(records[5:65:2])
    ]
    kept = [r for r in records + copies if language is None or r.get("language") == language]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept), "utf-8")
    return path


def _outputs(out: Path) -> dict[str, Any]:
    results = json.loads((out / "results.json").read_text("utf-8"))
    results.pop("created")
    return {
        "results.json": results,
        "predictions.jsonl": (out / "predictions.jsonl").read_bytes(),
        "results.md": (out / "results.md").read_text("utf-8").replace(str(out), "OUT"),
        "sclite": sorted(p.name for p in out.glob("*.pra")),
    }


@pytest.mark.parametrize("config", list(CONFIGS))
def test_chunk_size_never_shows_in_the_outputs(
    tmp_path: Path, config: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    only = ONLY_LANGUAGE.get(config)
    source = _corpus(tmp_path / "corpus.jsonl", only)
    rows = source.read_text("utf-8").count("\n")
    # All rows: chunks of 64 cut it 7 times, 7 cut it 70 times, 1 everywhere; the Irish
    # rows alone: 64 cuts them once, 7 ten times.
    assert rows == (495 if only is None else 70)
    outputs = {}
    for chunk in (WHOLE, 64, 7, 1):
        out = tmp_path / f"chunk-{chunk}"
        _score(monkeypatch, chunk, source, out_dir=out, **CONFIGS[config])
        outputs[chunk] = _outputs(out)
    whole = outputs.pop(WHOLE)
    assert whole["results.json"]["predictions"]["rows"] == rows
    for chunk, got in outputs.items():
        for name, value in whole.items():
            assert got[name] == value, f"{name} differs with chunks of {chunk} rows ({config})"


def test_a_run_folder_with_arms_and_repeats_chunked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    arms = sorted({json.loads(line)["arm"] for line in EXAMPLE_RUN.read_text("utf-8").splitlines()})
    for arm in arms:
        got = {}
        for chunk in (WHOLE, 3):
            out = tmp_path / f"{arm}-{chunk}"
            _score(
                monkeypatch,
                chunk,
                EXAMPLE_RUN,
                normalizer="auto",
                resamples=100,
                arm=arm,
                out_dir=out,
            )
            got[chunk] = _outputs(out)
        assert got[3] == got[WHOLE]


def test_speakers_and_speaker_clusters_chunked() -> None:
    """Speakers (from stm/trn `extra`) per chunk: speaker blocks, the speaker bootstrap
    and the speaker minimum give the figures `score_rows` gives in one piece."""
    rows = [
        replace(r, extra={"speaker": f"s{i % 5}"} if i % 3 else {})
        for i, r in enumerate(corpus_rows(200))
    ]
    for cluster in ("clip", "speaker"):
        options = ScoringOptions(
            NormalizerPolicy.parse("auto"),
            bootstrap=BootstrapSettings(resamples=100),
            cluster=cluster,
            min_speakers=3,
        )
        whole = score_rows(rows, options)
        scorer = CorpusScorer(options)
        streamed = []
        for start in range(0, len(rows), 9):
            streamed.extend(scorer.add(rows[start : start + 9]))
        assert streamed == whole.records
        assert scorer.finish().to_dict() == whole.to_dict()
        english = whole.to_dict()["by_language"]["en"]
        assert english["n_speakers"] == 5 and len(english["by_speaker"]) == 5


def test_a_repeated_id_in_a_later_chunk_is_the_same_error_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = corpus_records(60)
    records.append({**records[40], "hypothesis": "other words"})
    source = tmp_path / "dup.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    messages = []
    for chunk in (WHOLE, 5):
        out = tmp_path / f"out-{chunk}"
        if chunk != WHOLE:  # a folder holding an earlier score's predictions
            out.mkdir()
            (out / "predictions.jsonl").write_text("earlier\n", "utf-8")
        with pytest.raises(EarmarkError) as caught:
            _score(monkeypatch, chunk, source, normalizer="auto", resamples=0, out_dir=out)
        messages.append(str(caught.value))
        # Nothing written: neither predictions.jsonl nor the spool it is written to (a
        # folder the score created is gone again, as it held only the lock).
        if chunk == WHOLE:
            assert not out.exists()
        else:
            assert sorted(p.name for p in out.iterdir()) == [".earmark.lock", "predictions.jsonl"]
            assert (out / "predictions.jsonl").read_text("utf-8") == "earlier\n"
    assert messages[0] == messages[1]
    assert f"duplicate utterance id {records[40]['id']!r}" in messages[0]
    assert f"dup.jsonl:{len(records)}: field 'id'" in messages[0]
    assert "(first on line 41)" in messages[0]


def test_the_scorer_finds_a_repeated_id_across_chunks() -> None:
    """Rows handed to the scorer directly (not through a reader) are checked too: an
    id seen in an earlier chunk, and the same id within one clip."""
    rows = corpus_rows(30)
    scorer = CorpusScorer(
        ScoringOptions(NormalizerPolicy.parse("none"), bootstrap=BootstrapSettings(resamples=0))
    )
    scorer.add(rows[:10])
    with pytest.raises(EarmarkError, match=f"duplicate utterance id {rows[3].id!r}"):
        scorer.add([rows[12], rows[3]])
    clustered = [r for r in rows if r.cluster is not None]
    scorer = CorpusScorer(
        ScoringOptions(NormalizerPolicy.parse("none"), bootstrap=BootstrapSettings(resamples=0))
    )
    scorer.add(clustered[:2])
    with pytest.raises(EarmarkError, match="duplicate utterance id"):
        scorer.add([clustered[1]])


def test_records_of_a_streamed_corpus_are_not_kept() -> None:
    scorer = CorpusScorer(
        ScoringOptions(NormalizerPolicy.parse("none"), bootstrap=BootstrapSettings(resamples=0))
    )
    records = list(scorer.add(corpus_rows(20)))
    result = scorer.finish()
    assert result.rows == [] and len(records) == len(corpus_rows(20))
    with pytest.raises(RuntimeError, match="records were not kept"):
        list(result.iter_records())


@pytest.mark.parametrize("chunk", [WHOLE, 2])
def test_the_first_error_in_the_file_wins_as_when_it_was_read_first(
    tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The streamed read keeps no ids (the scorer finds repeats); on any failure the
    file is read again with every check, so the error is `read_pairs`' own: here a
    repeated id on line 4 before a broken line 6, in one chunk or across several."""
    from earmark.formats.pairs import read_pairs

    lines = [json.dumps({"id": f"u{k}", "reference": "a b", "hypothesis": "a"}) for k in range(5)]
    lines[3] = json.dumps({"id": "u1", "reference": "c", "hypothesis": "c"})
    lines.append('{"id": "u9", "reference": ')
    source = tmp_path / "bad.jsonl"
    source.write_text("\n".join(lines) + "\n", "utf-8")
    with pytest.raises(EarmarkError) as expected:
        read_pairs(source)
    with pytest.raises(EarmarkError) as caught:
        _score(monkeypatch, chunk, source, normalizer="none", resamples=0)
    assert str(caught.value) == str(expected.value)
    assert "bad.jsonl:4: field 'id': duplicate utterance id 'u1' (first on line 2)" in str(
        caught.value
    )
