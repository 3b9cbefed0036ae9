"""Issue 16's minor items in the corpus layer: a language tag with a trailing newline is
refused, and an audio failure's detail is the same text in every run (no addresses)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from earmark.corpus.audio import AudioFailure, load_audio
from earmark.corpus.manifest import language_problem, read_manifest, read_meta
from earmark.corpus.model import Utterance
from earmark.errors import EarmarkError


@pytest.mark.parametrize("tag", ["en\n", "en\r\n", "zh-CN\n", " en", "en "])
def test_language_with_trailing_newline_or_space_is_refused(tmp_path: Path, tag: str) -> None:
    manifest = tmp_path / "m.jsonl"
    row = {"id": "a", "audio": "a.wav", "text": "x", "language": tag}
    manifest.write_text(json.dumps(row) + "\n", "utf-8")
    with pytest.raises(EarmarkError) as caught:
        list(read_manifest(manifest))
    assert caught.value.field == "language" and caught.value.line == 1
    assert language_problem(tag) is not None


@pytest.mark.parametrize("tag", ["en", "zh-CN", "yue", "ga_IE"])
def test_plain_language_tags_still_pass(tmp_path: Path, tag: str) -> None:
    manifest = tmp_path / "m.jsonl"
    row = {"id": "a", "audio": "a.wav", "text": "x", "language": tag}
    manifest.write_text(json.dumps(row) + "\n", "utf-8")
    assert [u.language for u in read_manifest(manifest)] == [tag]


def test_undecodable_audio_detail_is_identical_run_to_run(tmp_path: Path) -> None:
    # A WAV header with no data chunk: libsndfile's message names the in-memory file
    # object, whose repr carries an address that differs from one load to the next.
    (tmp_path / "bad.wav").write_bytes(b"RIFF\x24\x00\x00\x00WAVEjunkjunkjunkjunk" * 4)
    utt = Utterance("a", "bad.wav", "x", "en")
    first, second = load_audio(tmp_path, utt), load_audio(tmp_path, utt)
    assert isinstance(first, AudioFailure) and first.reason == "unreadable"
    assert first == second
    assert not re.search(r"0x[0-9a-fA-F]{4,}|object at", first.detail), first.detail
    assert first.detail.startswith("bad.wav: Error opening the file: ")


def test_sidecar_without_licence_reads_as_undeclared(tmp_path: Path) -> None:
    manifest = tmp_path / "m.jsonl"
    (tmp_path / "m.jsonl.meta.json").write_text('{"dataset": "d"}', "utf-8")
    meta = read_meta(manifest)
    assert (meta.dataset, meta.licence, meta.consent_basis) == ("d", None, None)
