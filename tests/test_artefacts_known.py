"""`write_artefacts(known=...)`: a digest its writer already computed is used, not re-read,
and the listing `earmark score` writes still matches the files (hashlib as the oracle)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from earmark.artefacts import LISTING, read_listing, write_artefacts
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions


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
