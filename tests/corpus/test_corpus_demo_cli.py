"""The bundled demo corpus, and the `earmark manifest` CLI mirroring the library."""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from earmark.cli import main
from earmark.corpus.audio import AudioPrefetcher, LoadedAudio
from earmark.corpus.demo import demo_audio_root, demo_manifest_path
from earmark.corpus.manifest import is_public, manifest_sha256, read_manifest, read_meta
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.validation import validate_manifest
from earmark.corpus.writer import write_manifest

DEMO = demo_manifest_path()


def test_demo_corpus_validates_and_decodes() -> None:
    report = validate_manifest(DEMO, audio_root=demo_audio_root(), check_audio=True)
    assert report.ok, report.to_dict()
    assert report.rows == 31
    assert report.languages == {"en": 15, "ga": 8, "zh": 8}
    assert report.slices == {"en": 12, "ga": 8, "no-speech": 3, "numbers": 6, "zh": 8}
    assert report.public
    sizes = sum(p.stat().st_size for p in (demo_audio_root() / "audio").iterdir())
    assert sizes < 5_000_000


def test_demo_clips_are_16k_mono_2_to_6_seconds() -> None:
    rows = list(read_manifest(DEMO))
    with AudioPrefetcher(demo_audio_root(), rows, workers=2) as clips:
        for utt, audio in clips:
            assert isinstance(audio, LoadedAudio), (utt.id, audio)
            assert (audio.original_sample_rate, audio.original_channels) == (16_000, 1)
            assert audio.original_format == "FLAC/PCM_16"
            assert audio.sha256 == utt.sha256
            peak = float(np.max(np.abs(audio.samples)))
            if "no-speech" in utt.slices:
                assert utt.text == "" and peak < 0.02
            else:
                assert 2.0 <= audio.duration <= 6.0 and peak > 0.05
                assert utt.speaker and utt.speaker.startswith("espeak-ng:")


def test_demo_texts_are_what_the_docs_promise() -> None:
    rows = {u.id: u for u in read_manifest(DEMO)}
    zh = [u for u in rows.values() if u.language == "zh"]
    assert {u.speaker for u in zh} == {"espeak-ng:cmn-latn-pinyin"}
    assert all(u.text.endswith(("。", "？", "！")) for u in zh)
    assert any(ch.isdigit() for u in zh if "numbers" in u.slices for ch in u.text)
    ga = [u.text for u in rows.values() if u.language == "ga"]
    assert "Tá an t-athair ag obair i nGaillimh inniu." in ga
    assert all(unicodedata.is_normalized("NFC", t) for t in ga)
    assert "$25" in rows["en-09"].text
    meta = read_meta(DEMO)
    assert is_public(meta) and "espeak-ng" in (meta.notes or "")
    assert meta.extra["espeak_ng_version"]


def test_cli_hash_matches_library(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["manifest", "hash", str(DEMO)]) == 0
    assert capsys.readouterr().out.strip() == manifest_sha256(DEMO)


def test_cli_validate(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["manifest", "validate", str(DEMO), "--audio-root", str(demo_audio_root()), "--json"]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["rows"] == 31 and out["ok"] and out["audio_checked"] == "exists"
    assert out["sha256"] == manifest_sha256(DEMO)


def test_cli_validate_fails_on_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.jsonl"
    write_manifest(
        path,
        [Utterance(id="a", audio="a.wav", text="x", language="en")],
        CorpusMeta(dataset="d", licence=None, consent_basis=None),
    )
    assert main(["manifest", "validate", str(path), "--audio-root", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "REFUSED" in out and "missing_file" in out
    path.write_text('{"id": "a"}\n')
    assert main(["manifest", "validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:1: field 'audio'" in err


def test_cli_select_writes_manifest_and_sidecar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sel" / "zh.jsonl"
    code = main(
        [
            "manifest",
            "select",
            str(DEMO),
            "--out",
            str(out),
            "--language",
            "zh",
            "--first",
            "3",
            "--distinct-text",
        ]
    )
    assert code == 0
    kept = list(read_manifest(out))
    assert [u.id for u in kept] == ["zh-01", "zh-02", "zh-03"]
    meta = read_meta(out)
    assert meta.licence == "MIT"
    assert meta.selection_rule and "language in {zh}" in meta.selection_rule
    sel = meta.extra["selection"]
    assert sel["source_manifest_sha256"] == manifest_sha256(DEMO)
    assert sel["excluded_counts"] == {"after_limit": 5, "language_filtered": 23}
    assert sel["per_slice"] == {"zh": 3}
    assert "kept 3 of 31" in capsys.readouterr().out


def test_cli_select_hash_subset_same_as_library(tmp_path: Path) -> None:
    from earmark.corpus.selection import hash_subset

    out = tmp_path / "sub.jsonl"
    assert (
        main(
            [
                "manifest",
                "select",
                str(DEMO),
                "--out",
                str(out),
                "--fraction",
                "0.5",
                "--seed",
                "2026",
            ]
        )
        == 0
    )
    expected, _ = hash_subset(read_manifest(DEMO), 0.5, "2026")
    assert list(read_manifest(out)) == expected
    assert main(["manifest", "select", str(DEMO), "--out", str(out), "--fraction", "0.5"]) == 2


def test_cli_leakage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ga = tmp_path / "ga.jsonl"
    en = tmp_path / "en.jsonl"
    main(["manifest", "select", str(DEMO), "--out", str(ga), "--language", "ga"])
    main(["manifest", "select", str(DEMO), "--out", str(en), "--slice", "en"])
    capsys.readouterr()
    assert main(["manifest", "leakage", str(ga), str(en)]) == 0
    assert "no shared speakers" in capsys.readouterr().out
    assert main(["manifest", "leakage", str(DEMO), str(ga)]) == 1
    assert "espeak-ng:ga" in capsys.readouterr().out


def test_copied_demo_is_relocatable(tmp_path: Path) -> None:
    """Audio paths are relative, so the corpus validates wherever it is copied."""
    copy = tmp_path / "demo"
    shutil.copytree(demo_audio_root(), copy)
    report = validate_manifest(copy / "manifest.jsonl", audio_root=copy)
    assert report.ok and report.sha256 == manifest_sha256(DEMO)
