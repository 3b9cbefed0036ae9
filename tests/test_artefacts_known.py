"""`write_artefacts(known=...)`: a digest its writer already computed is used, not re-read
(given, as `write_results` returns them for the files it wrote),
and the listing `earmark score` writes still matches the files (hashlib as the oracle)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from earmark.artefacts import LISTING, read_listing, write_artefacts
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.outputs import atomic_write_json
from earmark.rundir.results_file import write_results


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


@pytest.mark.parametrize("resamples", [0, 50])
def test_score_reads_back_none_of_its_own_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, resamples: int
) -> None:
    """Every file `earmark score` writes is listed by the digest its writer computed
    (`write_results` returns them): the listing step reads none of them again."""
    import earmark.artefacts as artefacts

    src = tmp_path / "p.jsonl"
    src.write_text('{"id": "u1", "reference": "a b", "hypothesis": "a c"}\n', encoding="utf-8")
    read: list[str] = []
    real = artefacts.sha256_file

    def counted(path: str | os.PathLike[str]) -> str:
        read.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(artefacts, "sha256_file", counted)
    out = tmp_path / "out"
    score_predictions(
        ScoreInputs(src), ScoreFigures(normalizer="none", resamples=resamples), out_dir=out
    )
    assert read == []
    for name, found in read_listing(out / LISTING).items():
        assert found == _sha(out / name)


def test_write_results_returns_the_digests_of_what_it_wrote(tmp_path: Path) -> None:
    """The digests handed on are those of the bytes that lie in the folder."""
    digests = write_results(tmp_path, {"schema": "x"}, [{"id": "u1"}], probes=[], markdown="# r\n")
    assert sorted(digests) == ["predictions.jsonl", "results.json", "results.md"]
    for name, digest in digests.items():
        assert digest == _sha(tmp_path / name)


def test_a_file_not_named_in_known_is_hashed_from_disk(tmp_path: Path) -> None:
    """A file a writer did not report (written by hand, or changed since) is read."""
    atomic_write_json(tmp_path / "results.json", {"value": 0.5})
    (tmp_path / "results.json").write_bytes(b"{}\n")
    write_artefacts(tmp_path)
    assert read_listing(tmp_path / LISTING)["results.json"] == _sha(tmp_path / "results.json")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
