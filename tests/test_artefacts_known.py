"""`write_artefacts(known=...)`: a digest its writer already computed is used, not re-read
(given, or remembered by `earmark.outputs` for a file it wrote that is unchanged since),
and the listing `earmark score` writes still matches the files (hashlib as the oracle)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from earmark.artefacts import LISTING, read_listing, write_artefacts
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.outputs import atomic_write_json, atomic_write_text, written_digest


def test_known_digest_is_taken_as_given(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"abc")
    (tmp_path / "b.txt").write_bytes(b"")
    given = "0" * 64
    write_artefacts(tmp_path, known={"a.txt": given, "gone.txt": "1" * 64})
    listing = read_listing(tmp_path / LISTING)
    # a.txt: the given digest (proof it was not re-read); b.txt hashed; gone.txt ignored.
    assert listing == {
        "a.txt": given,
        "b.txt": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    }


def test_score_listing_matches_the_files(tmp_path: Path) -> None:
    src = tmp_path / "p.jsonl"
    src.write_text('{"id": "u1", "reference": "a b c", "hypothesis": "a x c"}\n', encoding="utf-8")
    out = tmp_path / "out"
    score_predictions(
        ScoreInputs(src), ScoreFigures(normalizer="none", resamples=0), out_dir=out
    ).to_dict()
    listing = read_listing(out / LISTING)
    assert sorted(listing) == ["predictions.jsonl", "results.json", "results.md"]
    for name, digest in listing.items():
        assert digest == hashlib.sha256((out / name).read_bytes()).hexdigest()


def test_a_file_written_through_outputs_is_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """results.json as written is listed by the digest its writer computed."""
    import earmark.artefacts as artefacts

    digest = atomic_write_json(tmp_path / "results.json", {"value": 0.5})
    atomic_write_text(tmp_path / "results.md", "# results\n")
    (tmp_path / "other.txt").write_bytes(b"abc")
    read: list[str] = []
    real = artefacts.sha256_file

    def counted(path: str | os.PathLike[str]) -> str:
        read.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(artefacts, "sha256_file", counted)
    write_artefacts(tmp_path)
    assert read == ["other.txt"]
    listing = read_listing(tmp_path / LISTING)
    assert listing["results.json"] == digest
    for name, found in listing.items():
        assert found == hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()


@pytest.mark.parametrize("change", ["rewrite", "replace", "append"])
def test_a_file_changed_after_it_was_written_is_hashed_again(tmp_path: Path, change: str) -> None:
    """Written in place (same size and inode), replaced or grown: the listing holds the
    bytes that lie there, never the digest remembered from the write."""
    target = tmp_path / "results.json"
    atomic_write_json(target, {"value": 0.5})
    text, before = target.read_bytes(), target.stat()
    if change == "rewrite":
        with open(target, "r+b") as handle:
            handle.write(text.replace(b"0.5", b"0.6"))
        # A timestamp a clock tick could leave equal moves by a nanosecond at least.
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns + 1))
        assert target.stat().st_size == before.st_size
    elif change == "replace":
        spare = tmp_path / "spare"
        spare.write_bytes(text.replace(b"0.5", b"0.7"))
        os.replace(spare, target)
    else:
        with open(target, "ab") as handle:
            handle.write(b" ")
    assert written_digest(target) is None
    write_artefacts(tmp_path)
    assert read_listing(tmp_path / LISTING)["results.json"] == _sha(target)


def test_a_remembered_file_that_is_gone_is_not_listed(tmp_path: Path) -> None:
    atomic_write_json(tmp_path / "results.json", {"value": 0.5})
    (tmp_path / "results.json").unlink()
    assert written_digest(tmp_path / "results.json") is None
    write_artefacts(tmp_path)
    assert read_listing(tmp_path / LISTING) == {}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
