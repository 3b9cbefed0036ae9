"""Kaldi data dirs, NeMo manifests and lhotse JSONL manifests (read without lhotse)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from earmark.corpus.sources.hf_datasets import import_hf_datasets
from earmark.corpus.sources.kaldi import import_kaldi
from earmark.corpus.sources.lhotse_jsonl import import_lhotse
from earmark.corpus.sources.nemo import import_nemo
from earmark.errors import EarmarkError, MissingExtraError


def write_flac(path: Path, seconds: float = 1.0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, np.zeros(int(16000 * seconds), dtype=np.float32), 16000, format="FLAC")


def rows_of(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture()
def recipe(tmp_path: Path) -> Path:
    """<recipe>/data/test with relative wav.scp paths (Kaldi's convention) and one pipe."""
    write_flac(tmp_path / "wav" / "r1.flac")
    write_flac(tmp_path / "wav" / "r2.flac")
    data = tmp_path / "data" / "test"
    data.mkdir(parents=True)
    (data / "wav.scp").write_text(
        "r1 wav/r1.flac\nr2 wav/r2.flac\nr3 sox wav/r3.sph -t wav - |\nr4 wav/gone.flac\n"
    )
    (data / "text").write_text("u1 dia duit\nu2 slán\nu3 piped\nu4 gone\nu5 orphan\n")
    (data / "utt2spk").write_text("u1 spkA\nu2 spkB\nu3 spkA\nu4 spkA\nu5 spkA\n")
    (data / "segments").write_text(
        "u1 r1 0.00 0.50\nu2 r1 0.50 -1\nu3 r3 0 1\nu4 r4 0 1\nu6 r2 0 1\n"
    )
    return data


def test_kaldi_with_segments(recipe: Path, tmp_path: Path) -> None:
    out = tmp_path / "k.jsonl"
    report = import_kaldi(
        recipe,
        out,
        language="ga",
        licence="CC-BY-4.0",
        consent_basis="recorded with consent",
        hash_audio=False,
    )
    assert report.audio_root == tmp_path / "wav"
    assert rows_of(out) == [
        {
            "id": "u1",
            "audio": "r1.flac",
            "text": "dia duit",
            "language": "ga",
            "speaker": "spkA",
            "start": 0.0,
            "end": 0.5,
            "source": {"dataset": "test", "split": "test", "licence": "CC-BY-4.0"},
        },
        {
            "id": "u2",
            "audio": "r1.flac",
            "text": "slán",
            "language": "ga",
            "speaker": "spkB",
            "start": 0.5,
            "source": {"dataset": "test", "split": "test", "licence": "CC-BY-4.0"},
        },
    ]
    assert [(s.reason, s.id, Path(s.file).name, s.line) for s in report.skipped] == [
        ("unsupported_wav_scp_command", "u3", "wav.scp", 3),
        ("missing_audio", "u4", "text", 4),
        ("missing_audio_entry", "u5", "text", 5),
        ("missing_text", "u6", "segments", 5),
    ]
    assert report.warnings == ()


def test_kaldi_without_segments_and_errors(tmp_path: Path) -> None:
    write_flac(tmp_path / "audio" / "a.flac")
    data = tmp_path / "d"
    data.mkdir()
    (data / "wav.scp").write_text(f"a {tmp_path / 'audio' / 'a.flac'}\nb /x/y.ark:12\n")
    (data / "text").write_text("a hello\nb world\n")
    report = import_kaldi(data, tmp_path / "k.jsonl", language="en")
    row = rows_of(tmp_path / "k.jsonl")[0]
    assert (row["id"], row["audio"], "speaker" in row, len(row["sha256"])) == (
        "a",
        "a.flac",
        False,
        64,
    )
    assert [(s.reason, s.id) for s in report.skipped] == [("unsupported_wav_scp_ark", "b")]
    assert any("licence" in w for w in report.warnings)
    with pytest.raises(EarmarkError) as info:
        import_kaldi(data, tmp_path / "k.jsonl")
    assert info.value.field == "language"
    (data / "utt2spk").write_text("a\n")
    with pytest.raises(EarmarkError) as info:
        import_kaldi(data, tmp_path / "k.jsonl", language="en")
    assert (Path(info.value.file).name, info.value.line, info.value.field) == (
        "utt2spk",
        1,
        "value",
    )


def test_nemo_manifest(tmp_path: Path) -> None:
    write_flac(tmp_path / "audio" / "x.flac", seconds=2.0)
    write_flac(tmp_path / "audio" / "sub" / "y.flac")
    lines = [
        {"audio_filepath": "audio/x.flac", "text": "one", "duration": 2.0, "lang": "en"},
        {
            "audio_filepath": str(tmp_path / "audio/sub/y.flac"),
            "text": "two",
            "duration": 0.5,
            "offset": 0.25,
        },
        {"audio_filepath": "audio/sub/y.flac", "text": "", "duration": 1.0},
        {"audio_filepath": "audio/missing.flac", "text": "three"},
    ]
    manifest = tmp_path / "nemo.json"
    manifest.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    out = tmp_path / "n.jsonl"
    report = import_nemo(manifest, out, language="en", hash_audio=False)
    assert rows_of(out) == [
        {
            "id": "x",
            "audio": "x.flac",
            "text": "one",
            "language": "en",
            "duration": 2.0,
            "source": {"dataset": "nemo"},
        },
        {
            "id": "y_250",
            "audio": "sub/y.flac",
            "text": "two",
            "language": "en",
            "duration": 0.5,
            "start": 0.25,
            "end": 0.75,
            "source": {"dataset": "nemo"},
        },
        {  # a no-speech clip is kept: the no-speech diagnostics need it
            "id": "y",
            "audio": "sub/y.flac",
            "text": "",
            "language": "en",
            "duration": 1.0,
            "source": {"dataset": "nemo"},
        },
    ]
    assert [(s.reason, s.line) for s in report.skipped] == [("missing_audio", 4)]
    manifest.write_text(json.dumps({"audio_filepath": "audio/x.flac"}) + "\n{bad\n")
    with pytest.raises(EarmarkError) as info:
        import_nemo(manifest, out, language="en")
    assert (info.value.line, info.value.field) == (1, "text")
    manifest.write_text(json.dumps(lines[0]) + "\n{bad\n")
    with pytest.raises(EarmarkError, match="not valid JSON") as info:
        import_nemo(manifest, out, language="en")
    assert info.value.line == 2


def lhotse_recording(rec_id: str, source: dict, duration: float) -> dict:
    return {
        "id": rec_id,
        "sources": [source],
        "sampling_rate": 16000,
        "num_samples": int(duration * 16000),
        "duration": duration,
    }


def test_lhotse_recordings_and_supervisions(tmp_path: Path) -> None:
    write_flac(tmp_path / "wavs" / "a.flac", seconds=2.0)
    recs = [
        lhotse_recording("a", {"type": "file", "channels": [0], "source": "wavs/a.flac"}, 2.0),
        lhotse_recording("b", {"type": "url", "channels": [0], "source": "https://x/b.flac"}, 1.0),
    ]
    sups = [
        {
            "id": "a-1",
            "recording_id": "a",
            "start": 0.0,
            "duration": 2.0,
            "channel": 0,
            "text": "Dia duit",
            "language": "Irish",
            "speaker": "s1",
            "gender": "female",
        },
        {
            "id": "a-2",
            "recording_id": "a",
            "start": 0.5,
            "duration": 1.0,
            "channel": 0,
            "text": "Slán",
            "language": "ga",
            "speaker": "s1",
            "custom": {"origin": "x"},
        },
        {
            "id": "b-1",
            "recording_id": "b",
            "start": 0.0,
            "duration": 1.0,
            "channel": 0,
            "text": "url audio",
            "language": "ga",
        },
        {
            "id": "c-1",
            "recording_id": "c",
            "start": 0.0,
            "duration": 1.0,
            "channel": 0,
            "text": "no recording",
            "language": "ga",
        },
    ]
    folder = tmp_path / "manifests"
    folder.mkdir()
    with gzip.open(folder / "corpus_recordings_test.jsonl.gz", "wt") as handle:
        handle.write("\n".join(json.dumps(r) for r in recs) + "\n")
    (folder / "corpus_supervisions_test.jsonl").write_text(
        "\n".join(json.dumps(s) for s in sups) + "\n"
    )
    out = tmp_path / "l.jsonl"
    report = import_lhotse(folder, out, relative_to=tmp_path, hash_audio=False)
    assert rows_of(out) == [
        {
            "id": "a-1",
            "audio": "a.flac",
            "text": "Dia duit",
            "language": "ga",
            "speaker": "s1",
            "slices": ["gender:female"],
            "duration": 2.0,
            "source": {"dataset": "corpus_supervisions_test"},
            "custom": {"gender": "female"},
        },
        {
            "id": "a-2",
            "audio": "a.flac",
            "text": "Slán",
            "language": "ga",
            "speaker": "s1",
            "duration": 1.0,
            "start": 0.5,
            "end": 1.5,
            "source": {"dataset": "corpus_supervisions_test"},
            "custom": {"origin": "x"},
        },
    ]
    assert [(s.reason, s.id, s.line) for s in report.skipped] == [
        ("unsupported_lhotse_source", "b-1", 3),
        ("missing_recording", "c-1", 4),
    ]


def test_lhotse_cuts(tmp_path: Path) -> None:
    write_flac(tmp_path / "a.flac", seconds=3.0)
    rec = lhotse_recording(
        "a", {"type": "file", "channels": [0], "source": str(tmp_path / "a.flac")}, 3.0
    )
    cut = {
        "id": "cut1",
        "start": 1.0,
        "duration": 1.5,
        "channel": 0,
        "type": "MonoCut",
        "recording": rec,
        "supervisions": [
            {
                "id": "s1",
                "recording_id": "a",
                "start": 0.25,
                "duration": 1.0,
                "channel": 0,
                "text": "hello",
                "language": "English",
            }
        ],
    }
    cuts = tmp_path / "cuts.jsonl"
    cuts.write_text(json.dumps(cut) + "\n")
    import_lhotse(cuts, tmp_path / "l.jsonl", hash_audio=False)
    row = rows_of(tmp_path / "l.jsonl")[0]
    assert (row["id"], row["language"], row["start"], row["end"], row["audio"]) == (
        "s1",
        "en",
        1.25,
        2.25,
        "a.flac",
    )


def test_hf_datasets_needs_its_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "datasets", None)  # as if the extra were not installed
    with pytest.raises(MissingExtraError) as info:
        import_hf_datasets(tmp_path, tmp_path / "h.jsonl", language="en")
    assert info.value.extra == "datasets"
    assert "earmark[datasets]" in str(info.value)


def test_nemo_no_speech_clips_reach_the_no_speech_diagnostics(tmp_path: Path) -> None:
    """Empty and blank `text` rows are kept with text "" and counted as no-speech rows."""
    from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions

    for name in ("speech", "silence", "noise"):
        write_flac(tmp_path / f"{name}.flac")
    lines = [
        {"audio_filepath": "speech.flac", "text": "hello there", "duration": 1.0},
        {"audio_filepath": "silence.flac", "text": "", "duration": 1.0},
        {"audio_filepath": "noise.flac", "text": "  ", "duration": 1.0},
    ]
    manifest = tmp_path / "nemo.json"
    manifest.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    out = tmp_path / "n.jsonl"
    report = import_nemo(manifest, out, language="en", hash_audio=False)
    assert list(report.skipped) == []
    rows = rows_of(out)
    assert [(r["id"], r["text"]) for r in rows] == [
        ("speech", "hello there"),
        ("silence", ""),
        ("noise", ""),
    ]
    predictions = tmp_path / "p.jsonl"
    hypotheses = {"speech": "hello there", "silence": "thank you", "noise": ""}
    predictions.write_text(
        "".join(
            json.dumps({"id": r["id"], "reference": r["text"], "hypothesis": hypotheses[r["id"]]})
            + "\n"
            for r in rows
        )
    )
    results = score_predictions(
        ScoreInputs(predictions, language="en"),
        ScoreFigures(normalizer="en-v1", resamples=10),
        out_dir=tmp_path / "s",
    ).to_dict()
    block = next(iter(results["arms"].values()))["by_language"]["en"]["hallucination"]
    assert (block["no_speech_rows"], block["no_speech_with_output"]) == (2, 1)
    assert block["no_speech_output_rate"] == 0.5
