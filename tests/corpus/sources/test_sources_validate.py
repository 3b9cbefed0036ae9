"""Importer and fetcher output passes the manifest validator (when that module exists)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import soundfile as sf

from earmark.corpus.sources.common_voice import import_common_voice
from earmark.corpus.sources.fleurs import import_fleurs
from earmark.corpus.sources.kaldi import import_kaldi
from earmark.corpus.validation import validate_manifest


def check(out: Path, audio_root: Path, rows: int) -> None:
    report = validate_manifest(out, audio_root=audio_root, check_audio=True)
    assert report.problems == [] and report.licence_problem is None
    assert report.rows == rows


def test_fleurs_and_common_voice_validate(tmp_path: Path) -> None:
    folder = tmp_path / "cmn_hans_cn"
    (folder / "audio" / "test").mkdir(parents=True)
    (folder / "test.tsv").write_text("1\ta.wav\t你好。\t你好\tx\t8000\tFEMALE\n", encoding="utf-8")
    sf.write(folder / "audio" / "test" / "a.wav", np.zeros(8000), 16000, subtype="PCM_16")
    report = import_fleurs(folder, tmp_path / "f.jsonl")
    check(tmp_path / "f.jsonl", report.audio_root, 1)

    cv = tmp_path / "ga-IE"
    (cv / "clips").mkdir(parents=True)
    (cv / "test.tsv").write_text("client_id\tpath\tsentence\nabc\tx.mp3\tDia duit.\n")
    sf.write(cv / "clips" / "x.mp3", 0.1 * np.sin(np.arange(16000) / 5.0), 16000, format="MP3")
    report = import_common_voice(cv, tmp_path / "cv.jsonl")
    check(tmp_path / "cv.jsonl", report.audio_root, 1)


def test_kaldi_segments_validate(tmp_path: Path) -> None:
    sf.write(tmp_path / "r.flac", np.zeros(32000), 16000, format="FLAC")
    data = tmp_path / "data" / "test"
    data.mkdir(parents=True)
    (data / "wav.scp").write_text(f"r {tmp_path / 'r.flac'}\n")
    (data / "text").write_text("u1 hello\n")
    (data / "segments").write_text("u1 r 0.5 1.5\n")
    report = import_kaldi(
        data,
        tmp_path / "k.jsonl",
        language="en",
        licence="CC0-1.0",
        consent_basis="synthetic test audio",
    )
    check(tmp_path / "k.jsonl", report.audio_root, 1)
    meta = json.loads((tmp_path / "k.jsonl.meta.json").read_text())
    assert meta["extra"]["audio_root"] == "."
