"""Common Voice importer on a release folder built here (real MP3 clips via soundfile)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from earmark.corpus.sources.common_voice import import_common_voice
from earmark.errors import EarmarkError

HEADER = (
    "client_id\tpath\tsentence_id\tsentence\tsentence_domain\tup_votes\tdown_votes\tage"
    "\tgender\taccents\tvariant\tlocale\tsegment\n"
)


def write_mp3(path: Path) -> None:
    t = np.arange(8000) / 16000
    sf.write(path, 0.2 * np.sin(2 * np.pi * 330 * t), 16000, format="MP3")


@pytest.fixture()
def cv_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "cv-corpus-25.0-2026-03-14" / "ga-IE"
    (folder / "clips").mkdir(parents=True)
    lines = [
        "abc\tcommon_voice_ga-IE_1.mp3\ts1\tTá an lá go breá.\t\t2\t0\ttwenties"
        "\tfemale_feminine\tMunster|Irish English\t\tga-IE\t\n",
        "def\tcommon_voice_ga-IE_2.mp3\ts2\tSlán leat.\t\t3\t1\t\tmale_masculine\t\t\tga-IE\t\n",
        # a short line: its missing trailing columns are left empty
        "abc\tcommon_voice_ga-IE_3.mp3\ts3\tNíl sé ann.\t\t2\t0\n",
        "ghi\tcommon_voice_ga-IE_4.mp3\ts4\t\t\t2\t0\t\t\t\t\tga-IE\t\n",
        "jkl\tcommon_voice_ga-IE_5.mp3\ts5\tGan fuaim.\t\t2\t0\t\t\t\t\tga-IE\t\n",
        "abc\tcommon_voice_ga-IE_1.mp3\ts1\tTá an lá go breá.\t\t2\t0\t\t\t\t\tga-IE\t\n",
    ]
    (folder / "test.tsv").write_text(HEADER + "".join(lines), encoding="utf-8")
    for k in (1, 2, 3, 4):
        write_mp3(folder / "clips" / f"common_voice_ga-IE_{k}.mp3")
    return folder


def test_rows_slices_and_skips(cv_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "cv.jsonl"
    report = import_common_voice(cv_dir, out)
    assert report.rows_written == 3
    assert [(s.reason, s.line, s.id) for s in report.skipped] == [
        ("empty_text", 5, "common_voice_ga-IE_4"),
        ("missing_audio", 6, "common_voice_ga-IE_5"),
        ("duplicate_id", 7, "common_voice_ga-IE_1"),
    ]
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    first = rows[0]
    assert first["sha256"] and len(first["sha256"]) == 64
    del first["sha256"]
    assert first == {
        "id": "common_voice_ga-IE_1",
        "audio": "clips/common_voice_ga-IE_1.mp3",
        "text": "Tá an lá go breá.",
        "language": "ga",
        "speaker": "abc",
        "text_id": "s1",
        "slices": [
            "gender:female_feminine",
            "age:twenties",
            "accent:Munster",
            "accent:Irish English",
        ],
        "source": {
            "dataset": "common_voice",
            "config": "ga-IE",
            "split": "test",
            "revision": "cv-corpus-25.0-2026-03-14",
            "licence": "CC0-1.0",
        },
        "custom": {
            "locale": "ga-IE",
            "up_votes": 2,
            "down_votes": 0,
            "age": "twenties",
            "gender": "female_feminine",
            "accents": "Munster|Irish English",
        },
    }
    assert rows[1]["slices"] == ["gender:male_masculine"] and rows[1]["speaker"] == "def"
    assert "slices" not in rows[2]
    assert rows[2]["custom"] == {"locale": "ga-IE", "up_votes": 2, "down_votes": 0}
    meta = json.loads(Path(f"{out}.meta.json").read_text(encoding="utf-8"))
    assert meta["licence"] == "CC0-1.0" and meta["consent_basis"]
    assert meta["extra"]["skipped_counts"] == {
        "duplicate_id": 1,
        "empty_text": 1,
        "missing_audio": 1,
    }


def test_missing_required_column(cv_dir: Path, tmp_path: Path) -> None:
    (cv_dir / "dev.tsv").write_text("client_id\tpath\tup_votes\nabc\tx.mp3\t1\n")
    with pytest.raises(EarmarkError) as info:
        import_common_voice(cv_dir, tmp_path / "m.jsonl", split="dev")
    err = info.value
    assert (err.file, err.line, err.field) == (str(cv_dir / "dev.tsv"), 1, "sentence")
    assert "sentence" in str(err) and "dev.tsv:1" in str(err)


def test_too_many_fields_and_missing_split(cv_dir: Path, tmp_path: Path) -> None:
    (cv_dir / "dev.tsv").write_text("client_id\tpath\tsentence\na\tb.mp3\tc\td\n")
    with pytest.raises(EarmarkError) as info:
        import_common_voice(cv_dir, tmp_path / "m.jsonl", split="dev")
    assert info.value.line == 2
    with pytest.raises(EarmarkError, match="no validated.tsv"):
        import_common_voice(cv_dir, tmp_path / "m.jsonl", split="validated")
