"""Sidecar reading, the licence/consent gate, the canonical hash and validation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile

from earmark.corpus.manifest import (
    is_public,
    licence_gate,
    manifest_sha256,
    read_manifest,
    read_meta,
)
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.validation import validate_manifest
from earmark.corpus.writer import write_manifest, write_meta
from earmark.errors import EarmarkError

META = CorpusMeta(
    dataset="fleurs-cmn",
    licence="CC-BY-4.0",
    consent_basis="speakers consented to public release",
    redistribute_audio=True,
    redistribute_transcripts=True,
)


def rows() -> list[Utterance]:
    return [
        Utterance(
            id="a",
            audio="a.wav",
            text="你好。",
            language="zh",
            speaker="s1",
            slices=("zh",),
            duration=0.5,
        ),
        Utterance(
            id="b", audio="b.wav", text="", language="zh", slices=("no-speech",), duration=1.5
        ),
    ]


def test_gate_passes_a_declared_corpus(tmp_path: Path) -> None:
    licence_gate(META, manifest=tmp_path / "m.jsonl")
    assert is_public(META)


@pytest.mark.parametrize("licence", [None, "", "  ", "unknown", "N/A"])
def test_gate_refuses_missing_licence(tmp_path: Path, licence: str | None) -> None:
    meta = CorpusMeta(dataset="x", licence=licence, consent_basis="yes")
    with pytest.raises(EarmarkError, match="declares no licence") as info:
        licence_gate(meta, manifest=tmp_path / "m.jsonl")
    assert info.value.field == "licence"
    assert info.value.file == str(tmp_path / "m.jsonl.meta.json")
    assert not is_public(meta)


@pytest.mark.parametrize("consent", [None, "", "unknown"])
def test_gate_refuses_missing_consent(tmp_path: Path, consent: str | None) -> None:
    meta = CorpusMeta(
        dataset="x",
        licence="CC0-1.0",
        consent_basis=consent,
        redistribute_audio=True,
        redistribute_transcripts=True,
    )
    with pytest.raises(EarmarkError, match="no consent basis") as info:
        licence_gate(meta, manifest="m.jsonl")
    assert info.value.field == "consent_basis"
    assert not is_public(meta)


def test_public_needs_both_redistribution_flags() -> None:
    meta = CorpusMeta(
        dataset="x",
        licence="CC-BY-4.0",
        consent_basis="yes",
        redistribute_audio=True,
        redistribute_transcripts=False,
    )
    assert not is_public(meta)


def test_read_meta_round_trip_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    write_manifest(path, rows(), META)
    assert read_meta(path) == META
    # The manifest itself missing is named as such (issue 26); the sidecar only when the
    # manifest exists.
    with pytest.raises(EarmarkError, match="other.jsonl: manifest not found"):
        read_meta(tmp_path / "other.jsonl")
    (tmp_path / "other.jsonl").write_text("")
    with pytest.raises(EarmarkError, match="no metadata sidecar"):
        read_meta(tmp_path / "other.jsonl")
    (tmp_path / "x.jsonl.meta.json").write_text(
        json.dumps({"dataset": "x", "licence": "MIT", "consent_basis": "y", "lisence": 1})
    )
    with pytest.raises(EarmarkError) as info:
        read_meta(tmp_path / "x.jsonl")
    assert info.value.field == "lisence"
    (tmp_path / "y.jsonl.meta.json").write_text(
        json.dumps(
            {"dataset": "y", "licence": "MIT", "consent_basis": "y", "redistribute_audio": "yes"}
        )
    )
    with pytest.raises(EarmarkError) as info:
        read_meta(tmp_path / "y.jsonl")
    assert info.value.field == "redistribute_audio"


def test_hash_is_stable_under_reformatting(tmp_path: Path) -> None:
    canonical = tmp_path / "c.jsonl"
    write_manifest(canonical, rows(), META)
    messy = tmp_path / "messy.jsonl"
    with open(messy, "w", encoding="utf-8") as out:
        for line in canonical.read_text(encoding="utf-8").splitlines():
            data = json.loads(line)
            reordered = dict(reversed(list(data.items())))
            spaced = json.dumps(reordered, separators=(" , ", " : "), ensure_ascii=True)
            out.write(spaced + "\n")
    assert messy.read_bytes() != canonical.read_bytes()
    assert manifest_sha256(messy) == manifest_sha256(canonical)
    # Number spelling does not matter either: 0.5 == 0.50.
    spelled = tmp_path / "spelled.jsonl"
    spelled.write_text(
        canonical.read_text(encoding="utf-8").replace('"duration":0.5', '"duration":0.50'),
        encoding="utf-8",
    )
    assert manifest_sha256(spelled) == manifest_sha256(canonical)
    # Content and order do.
    swapped = tmp_path / "swapped.jsonl"
    lines = canonical.read_text(encoding="utf-8").splitlines()
    swapped.write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")
    assert manifest_sha256(swapped) != manifest_sha256(canonical)


def test_hash_equals_sha256_of_canonical_file(tmp_path: Path) -> None:
    import hashlib

    path = tmp_path / "c.jsonl"
    write_manifest(path, rows(), META)
    assert manifest_sha256(path) == hashlib.sha256(path.read_bytes()).hexdigest()


def _write_audio(root: Path) -> None:
    soundfile.write(root / "a.wav", np.zeros(8000, dtype=np.float32), 16_000)
    soundfile.write(root / "b.wav", np.zeros(24_000, dtype=np.float32), 16_000)


def test_validate_report(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    write_manifest(path, rows(), META)
    _write_audio(tmp_path)
    report = validate_manifest(path, audio_root=tmp_path, check_audio=True)
    assert report.ok, report.to_dict()
    assert report.rows == 2
    assert report.languages == {"zh": 2}
    assert report.slices == {"no-speech": 1, "zh": 1}
    assert (report.speakers, report.rows_without_speaker) == (1, 1)
    assert report.total_duration == pytest.approx(2.0)
    assert report.sha256 == manifest_sha256(path)
    assert report.public and report.audio_checked == "decoded"


def test_validate_lists_audio_problems_with_lines(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    write_manifest(path, rows(), META)
    soundfile.write(
        tmp_path / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000
    )  # 1.0 s, not 0.5
    report = validate_manifest(path, audio_root=tmp_path, check_audio=True)
    assert [(p.id, p.line, p.reason) for p in report.problems] == [
        ("a", 1, "duration_mismatch"),
        ("b", 2, "missing_file"),
    ]
    assert not report.ok
    exists_only = validate_manifest(path, audio_root=tmp_path)
    assert [(p.id, p.reason) for p in exists_only.problems] == [("b", "missing_file")]


def test_validate_symlink_escape_is_a_problem(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    path = root / "m.jsonl"
    write_manifest(path, rows(), META)
    _write_audio(tmp_path)
    (root / "a.wav").symlink_to(tmp_path / "a.wav")
    (root / "b.wav").symlink_to(tmp_path / "b.wav")
    report = validate_manifest(path, audio_root=root)
    assert [(p.line, p.reason) for p in report.problems] == [
        (1, "path_outside_root"),
        (2, "path_outside_root"),
    ]


def test_validate_reports_licence_problem(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    write_manifest(path, rows(), CorpusMeta(dataset="d", licence=None, consent_basis="x"))
    report = validate_manifest(path)
    assert report.licence_problem and "no licence" in report.licence_problem
    assert not report.ok and not report.public
    write_meta(tmp_path / "m.jsonl.meta.json", META)
    assert validate_manifest(path).ok


def test_validate_refuses_structural_errors(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text('{"id":"a","audio":"a.wav","text":"","language":"en"}\n{"id":"a"}\n')
    with pytest.raises(EarmarkError) as info:
        validate_manifest(path)
    assert info.value.line == 2


def test_read_manifest_of_written_rows(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    write_manifest(path, rows(), META)
    assert list(read_manifest(path)) == rows()
