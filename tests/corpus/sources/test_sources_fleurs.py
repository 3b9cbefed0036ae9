"""FLEURS importer: the publisher's TSV folder and the hub's parquet shards."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from earmark.corpus.sources.fleurs import import_fleurs
from earmark.corpus.sources.languages import language_for_fleurs_config
from earmark.errors import EarmarkError


def wav_bytes(seconds: float = 0.1, rate: int = 16000, freq: float = 440.0) -> bytes:
    t = np.arange(int(seconds * rate)) / rate
    buffer = io.BytesIO()
    sf.write(buffer, 0.3 * np.sin(2 * np.pi * freq * t), rate, format="WAV", subtype="PCM_16")
    return buffer.getvalue()


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


TSV = (
    "1779\t101.wav\t特朗普与土耳其总统通话。\t特朗普与土耳其总统通话\tx\t1600\tMALE\n"
    "1779\t102.wav\t特朗普与土耳其总统通话。\t特朗普与土耳其总统通话\tx\t3200\tFEMALE\n"
    "1800\t103.wav\t今天下雨。\t今天下雨\tx\t1600\tFEMALE\n"
    "1801\t104.wav\t缺少音频。\t缺少音频\tx\t1600\tMALE\n"
)


@pytest.fixture()
def fleurs_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "data" / "cmn_hans_cn"
    (folder / "audio" / "test").mkdir(parents=True)
    (folder / "test.tsv").write_text(TSV, encoding="utf-8")
    for name in ("101.wav", "102.wav", "103.wav"):
        (folder / "audio" / "test" / name).write_bytes(wav_bytes())
    return folder


def test_tsv_layout_rows_are_exact(fleurs_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    report = import_fleurs(fleurs_dir, out, revision="70bb2e84b976b7e960aa89f1c648e09c59f894dd")
    assert report.rows_written == 3
    assert report.audio_root == fleurs_dir
    assert [(s.reason, s.line, s.id) for s in report.skipped] == [
        ("missing_audio", 4, "cmn_hans_cn_1801_104")
    ]
    rows = read_rows(out)
    digest = hashlib.sha256(wav_bytes()).hexdigest()
    assert rows[0] == {
        "id": "cmn_hans_cn_1779_101",
        "audio": "audio/test/101.wav",
        "text": "特朗普与土耳其总统通话。",
        "language": "zh",
        "text_id": "1779",
        "slices": ["gender:male"],
        "duration": 0.1,
        "sha256": digest,
        "source": {
            "dataset": "google/fleurs",
            "config": "cmn_hans_cn",
            "split": "test",
            "revision": "70bb2e84b976b7e960aa89f1c648e09c59f894dd",
            "licence": "CC-BY-4.0",
        },
        "custom": {
            "fleurs_config": "cmn_hans_cn",
            "normalized_transcription": "特朗普与土耳其总统通话",
            "gender": "male",
            "num_samples": 1600,
        },
    }
    # one sentence, two recordings: distinct ids, shared text_id
    assert [(r["id"], r["text_id"], r["duration"]) for r in rows] == [
        ("cmn_hans_cn_1779_101", "1779", 0.1),
        ("cmn_hans_cn_1779_102", "1779", 0.2),
        ("cmn_hans_cn_1800_103", "1800", 0.1),
    ]
    meta = json.loads(Path(str(out) + ".meta.json").read_text(encoding="utf-8"))
    assert meta["licence"] == "CC-BY-4.0"
    assert meta["consent_basis"]
    assert meta["redistribute_audio"] is True
    assert meta["extra"]["audio_root"] == "data/cmn_hans_cn"
    assert meta["extra"]["skipped_counts"] == {"missing_audio": 1}
    assert meta["extra"]["skipped"][0]["line"] == 4


def test_parent_folder_with_config(fleurs_dir: Path, tmp_path: Path) -> None:
    report = import_fleurs(tmp_path, tmp_path / "m.jsonl", config="cmn_hans_cn")
    assert report.rows_written == 3


def test_archived_audio_gives_hint(tmp_path: Path) -> None:
    folder = tmp_path / "ga_ie"
    (folder / "audio").mkdir(parents=True)
    (folder / "test.tsv").write_text("1\ta.wav\tDia duit\tdia duit\tx\t16000\tFEMALE\n")
    (folder / "audio" / "test.tar.gz").write_bytes(b"")
    with pytest.raises(EarmarkError, match="still archived") as info:
        import_fleurs(folder, tmp_path / "m.jsonl")
    assert "tar -xzf" in str(info.value)


def test_short_line_names_file_line_field(fleurs_dir: Path, tmp_path: Path) -> None:
    (fleurs_dir / "test.tsv").write_text(TSV + "1802\t105.wav\tonly three\n", encoding="utf-8")
    with pytest.raises(EarmarkError) as info:
        import_fleurs(fleurs_dir, tmp_path / "m.jsonl")
    err = info.value
    assert (err.file, err.line, err.field) == (str(fleurs_dir / "test.tsv"), 5, "transcription")


def test_bad_number_and_bad_utf8(fleurs_dir: Path, tmp_path: Path) -> None:
    (fleurs_dir / "test.tsv").write_text("1\t101.wav\ta\tb\tc\tlots\tMALE\n")
    with pytest.raises(EarmarkError) as info:
        import_fleurs(fleurs_dir, tmp_path / "m.jsonl")
    assert (info.value.line, info.value.field) == (1, "num_samples")
    (fleurs_dir / "test.tsv").write_bytes(TSV.encode() + b"9\t101.wav\t\xff\tb\tc\t1\tMALE\n")
    with pytest.raises(EarmarkError, match="UTF-8") as info:
        import_fleurs(fleurs_dir, tmp_path / "m.jsonl")
    assert info.value.line == 5


def write_parquet(path: Path, rows: list[dict]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


def hub_row(text_id: int, name: str, raw: str, gender: int, audio: bytes | None) -> dict:
    return {
        "id": text_id,
        "num_samples": 1600,
        "path": f"/cache/extracted/test/{name}",
        "audio": {"bytes": audio, "path": name},
        "transcription": raw.lower().rstrip("."),
        "raw_transcription": raw,
        "gender": gender,
        "lang_id": 31,
        "language": "Irish",
        "lang_group_id": 0,
    }


def test_parquet_layout_writes_audio(tmp_path: Path) -> None:
    shard = tmp_path / "hub" / "ga_ie" / "test" / "0000.parquet"
    audio = wav_bytes(freq=300.0)
    write_parquet(
        shard,
        [
            hub_row(7, "11.wav", "Tá sé go maith.", 1, audio),
            hub_row(7, "12.wav", "Tá sé go maith.", 0, audio),
            hub_row(8, "13.wav", "", 2, audio),
            hub_row(9, "14.wav", "Slán.", 0, None),
        ],
    )
    out = tmp_path / "out" / "m.jsonl"
    report = import_fleurs(tmp_path / "hub", out)
    assert report.rows_written == 2
    assert report.audio_root == tmp_path / "out" / "audio"
    assert [(s.reason, s.line) for s in report.skipped] == [("empty_text", 3), ("missing_audio", 4)]
    rows = read_rows(out)
    assert [(r["id"], r["language"], r["slices"], r["audio"]) for r in rows] == [
        ("ga_ie_7_11", "ga", ["gender:female"], "ga_ie/test/11.wav"),
        ("ga_ie_7_12", "ga", ["gender:male"], "ga_ie/test/12.wav"),
    ]
    assert rows[0]["source"]["config"] == "ga_ie"
    assert rows[0]["custom"]["normalized_transcription"] == "tá sé go maith"
    written = (tmp_path / "out" / "audio" / "ga_ie" / "test" / "11.wav").read_bytes()
    assert written == audio and rows[0]["sha256"] == hashlib.sha256(audio).hexdigest()


def test_parquet_without_config_in_path_needs_config(tmp_path: Path) -> None:
    write_parquet(tmp_path / "x.parquet", [hub_row(1, "a.wav", "Hello.", 0, wav_bytes())])
    with pytest.raises(EarmarkError, match="config"):
        import_fleurs(tmp_path / "x.parquet", tmp_path / "m.jsonl")
    report = import_fleurs(tmp_path / "x.parquet", tmp_path / "m.jsonl", config="en_us")
    assert read_rows(tmp_path / "m.jsonl")[0]["id"] == "en_us_1_a"
    assert report.rows_written == 1


def test_parquet_missing_column(tmp_path: Path) -> None:
    write_parquet(tmp_path / "x.parquet", [{"id": 1, "audio": {"bytes": b"", "path": "a"}}])
    with pytest.raises(EarmarkError) as info:
        import_fleurs(tmp_path / "x.parquet", tmp_path / "m.jsonl", config="en_us")
    assert info.value.field == "raw_transcription"


@pytest.mark.parametrize(
    ("config", "language"),
    [
        ("cmn_hans_cn", "zh"),
        ("ga_ie", "ga"),
        ("en_us", "en"),
        ("yue_hant_hk", "yue"),
        ("fil_ph", "fil"),
        ("de_de", "de"),
    ],
)
def test_language_for_config(config: str, language: str) -> None:
    assert language_for_fleurs_config(config) == language
