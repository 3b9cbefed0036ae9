"""A Hugging Face dataset saved on disk (`save_to_disk`) becomes a manifest, offline."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from earmark.corpus.manifest import read_manifest
from earmark.corpus.sources.hf_datasets import import_hf_datasets
from earmark.corpus.validation import validate_manifest

datasets = pytest.importorskip("datasets", reason="needs the datasets extra")


def _wav_bytes(seconds: float, freq: float) -> bytes:
    buf = io.BytesIO()
    t = np.arange(int(16000 * seconds)) / 16000
    sf.write(
        buf,
        (0.2 * np.sin(2 * np.pi * freq * t)).astype(np.float32),
        16000,
        format="WAV",
        subtype="PCM_16",
    )
    return buf.getvalue()


def test_saved_dataset_imports_with_audio_written_out(tmp_path: Path) -> None:
    audio = [_wav_bytes(0.5, 220.0), _wav_bytes(0.7, 330.0)]
    table = {
        "id": ["u1", "u2"],
        "audio": [{"bytes": audio[0], "path": "u1.wav"}, {"bytes": audio[1], "path": "u2.wav"}],
        "text": ["Dia dhuit", "Tá sé go breá"],
        "speaker": ["s1", "s2"],
    }
    ds = datasets.Dataset.from_dict(table).cast_column("audio", datasets.Audio(decode=False))
    datasets.DatasetDict({"test": ds}).save_to_disk(str(tmp_path / "saved"))

    out = tmp_path / "out" / "manifest.jsonl"
    report = import_hf_datasets(
        tmp_path / "saved",
        out,
        split="test",
        language="ga",
        licence="CC-BY-4.0",
        consent_basis="test fixture",
        id_column="id",
        speaker_column="speaker",
    )
    assert report.rows_written == 2 and not report.skipped
    rows = list(read_manifest(out))
    assert [r.text for r in rows] == ["Dia dhuit", "Tá sé go breá"]
    assert [r.speaker for r in rows] == ["s1", "s2"]
    assert all(r.language == "ga" for r in rows)
    # The audio bytes are written out unchanged and hashed.
    for row, data in zip(rows, audio, strict=True):
        assert row.sha256 == hashlib.sha256(data).hexdigest()
    meta = json.loads(Path(f"{out}.meta.json").read_text("utf-8"))
    assert meta["licence"] == "CC-BY-4.0"
    check = validate_manifest(out, audio_root=report.audio_root, check_audio=True)
    assert check.ok, check.to_dict()


def test_missing_split_and_column_are_clear(tmp_path: Path) -> None:
    ds = datasets.Dataset.from_dict(
        {"text": ["a"], "audio": [{"bytes": _wav_bytes(0.2, 200.0), "path": "a.wav"}]}
    )
    datasets.DatasetDict({"train": ds}).save_to_disk(str(tmp_path / "saved"))
    with pytest.raises(Exception, match="no split 'test'"):
        import_hf_datasets(tmp_path / "saved", tmp_path / "m.jsonl", language="en")
    with pytest.raises(Exception, match="sentence"):
        import_hf_datasets(
            tmp_path / "saved",
            tmp_path / "m.jsonl",
            language="en",
            split="train",
            text_column="sentence",
        )
