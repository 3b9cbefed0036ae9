"""Importers write only rows `earmark manifest validate` accepts (issue 16, item 7).

Each hostile row below used to reach the manifest (exit 0) and make the manifest
unreadable afterwards. Now the row is skipped with a reason code, the good rows are
written, and the written manifest reads back through `read_manifest`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from earmark.cli import main
from earmark.corpus.manifest import read_manifest, row_problem
from earmark.corpus.model import Utterance
from earmark.corpus.sources.common_voice import import_common_voice
from earmark.corpus.sources.fleurs import import_fleurs
from earmark.corpus.sources.kaldi import import_kaldi
from earmark.corpus.sources.nemo import import_nemo
from earmark.corpus.sources.report import SKIP_REASONS
from earmark.corpus.validation import validate_manifest
from earmark.errors import EarmarkError

DECLARED = {"licence": "CC-BY-4.0", "consent_basis": "recorded with consent"}


def write_wav(path: Path, seconds: float = 1.0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, np.zeros(int(16000 * seconds), dtype=np.float32), 16000)


def reasons(report) -> list[tuple[str, str | None]]:
    return [(row.reason, row.id) for row in report.skipped]


def assert_readable(manifest: Path) -> list[Utterance]:
    rows = list(read_manifest(manifest))
    assert validate_manifest(manifest).licence_problem is None
    return rows


def kaldi_dir(tmp_path: Path, text: str, segments: str | None = None) -> Path:
    write_wav(tmp_path / "wav" / "r1.wav", 10.0)
    data = tmp_path / "data" / "test"
    data.mkdir(parents=True)
    (data / "wav.scp").write_text("r1 wav/r1.wav\n", encoding="utf-8")
    (data / "text").write_text(text, encoding="utf-8")
    if segments is not None:
        (data / "segments").write_text(segments, encoding="utf-8")
    return data


def test_kaldi_segments_with_nan_negative_backwards_and_infinite_times(tmp_path: Path) -> None:
    data = kaldi_dir(
        tmp_path,
        "good a\nnan b\nneg c\nback d\ninf e\nopen f\n",
        "good r1 0.0 1.0\nnan r1 nan 2.0\nneg r1 -0.5 1.0\nback r1 5.0 3.0\n"
        "inf r1 1.0 inf\nopen r1 2.0 -1\n",
    )
    out = tmp_path / "k.jsonl"
    report = import_kaldi(data, out, language="ga", hash_audio=False, **DECLARED)
    assert report.rows_written == 2
    assert reasons(report) == [
        ("invalid_times", "nan"),
        ("invalid_times", "neg"),
        ("invalid_times", "back"),
        ("invalid_times", "inf"),
    ]
    # Each reject names its input line and what was wrong.
    back = report.skipped[2]
    assert back.line == 4 and back.file == str(data / "text")
    assert back.detail == "end: end (3.0) must be after start (5.0)"
    rows = assert_readable(out)
    # `-1` as end is Kaldi's "to the end of the recording": kept, as no end.
    assert [(r.id, r.start, r.end) for r in rows] == [("good", 0.0, 1.0), ("open", 2.0, None)]
    sidecar = json.loads(Path(f"{out}.meta.json").read_text("utf-8"))
    assert sidecar["extra"]["skipped_counts"] == {"invalid_times": 4}


def test_kaldi_ids_over_512_and_text_over_100k_characters(tmp_path: Path) -> None:
    long_id = "u" * 513
    data = kaldi_dir(tmp_path, f"ok fine\n{long_id} x\nbig {'w ' * 50_001}\n")
    (data / "wav.scp").write_text(f"ok wav/r1.wav\n{long_id} wav/r1.wav\nbig wav/r1.wav\n")
    out = tmp_path / "k.jsonl"
    report = import_kaldi(data, out, language="ga", hash_audio=False, **DECLARED)
    assert report.rows_written == 1
    assert [(row.reason, row.line) for row in report.skipped] == [
        ("invalid_id", 2),
        ("invalid_text", 3),
    ]
    assert report.skipped[0].detail == "id: longer than 512 characters (513)"
    assert [r.id for r in assert_readable(out)] == ["ok"]


@pytest.mark.parametrize("language", ["en us", "en\n", "english!", "e"])
def test_a_bad_language_option_is_refused_before_anything_is_written(
    tmp_path: Path, language: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = kaldi_dir(tmp_path, "good a\n")
    out = tmp_path / "k.jsonl"
    with pytest.raises(EarmarkError) as caught:
        import_kaldi(data, out, language=language, **DECLARED)
    assert caught.value.field == "language"
    code = main(["import", "kaldi", str(data), "--out", str(out), "--language", language])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "language" in err
    assert not out.exists()


def nemo_manifest(tmp_path: Path, lines: list[str]) -> Path:
    for name in ("a", "b", "c", "d", "e", "f", "g"):
        write_wav(tmp_path / "audio" / f"{name}.wav")
    path = tmp_path / "nemo.json"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_nemo_nan_zero_durations_infinite_offset_and_list_lang(tmp_path: Path) -> None:
    path = nemo_manifest(
        tmp_path,
        [
            '{"audio_filepath": "audio/a.wav", "text": "good", "duration": 1.0, "lang": "en"}',
            '{"audio_filepath": "audio/b.wav", "text": "x", "duration": NaN, "lang": "en"}',
            '{"audio_filepath": "audio/c.wav", "text": "x", "duration": 0, "lang": "en"}',
            '{"audio_filepath": "audio/d.wav", "text": "x", "offset": Infinity, "lang": "en"}',
            '{"audio_filepath": "audio/e.wav", "text": "x", "duration": 1, "lang": ["en"]}',
            '{"audio_filepath": "audio/f.wav", "text": "x", "offset": 0, "duration": -2, '
            '"lang": "en"}',
            '{"audio_filepath": "audio/g.wav", "text": "x", "duration": 1, "lang": "e n"}',
        ],
    )
    out = tmp_path / "n.jsonl"
    report = import_nemo(path, out, hash_audio=False, **DECLARED)
    assert report.rows_written == 1
    assert [(row.reason, row.line) for row in report.skipped] == [
        ("invalid_duration", 2),
        ("invalid_duration", 3),
        ("invalid_times", 4),
        ("invalid_language", 5),
        ("invalid_duration", 6),
        ("invalid_language", 7),
    ]
    assert report.skipped[3].detail == "lang must be a string, got list"
    assert report.skipped[0].id == "b"
    assert [(r.id, r.duration) for r in assert_readable(out)] == [("a", 1.0)]


def test_common_voice_accent_listed_twice_is_one_slice(tmp_path: Path) -> None:
    folder = tmp_path / "cv-corpus-25.0" / "ga-IE"
    write_wav(folder / "clips" / "c1.mp3")  # the importer does not decode audio
    (folder / "test.tsv").write_text(
        "client_id\tpath\tsentence\taccents\n"
        "abc\tc1.mp3\tDia duit.\tMunster|Munster| Munster \n"
        "abc\t../../../etc/passwd\tEscape.\t\n",
        encoding="utf-8",
    )
    out = tmp_path / "cv.jsonl"
    report = import_common_voice(folder, out, hash_audio=False)
    assert report.rows_written == 1
    assert [(row.reason, row.line) for row in report.skipped] == [("invalid_audio_path", 3)]
    (row,) = assert_readable(out)
    assert row.slices == ("accent:Munster",)


def test_fleurs_negative_sample_count_is_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "ga_ie"
    write_wav(folder / "audio" / "test" / "1.wav")
    write_wav(folder / "audio" / "test" / "2.wav")
    (folder / "test.tsv").write_text(
        "10\t1.wav\tDia duit\tdia duit\td i a\t16000\tFEMALE\n"
        "11\t2.wav\tSlán\tslán\ts l a n\t-16000\tMALE\n",
        encoding="utf-8",
    )
    out = tmp_path / "f.jsonl"
    report = import_fleurs(folder, out, hash_audio=False)
    assert report.rows_written == 1
    assert reasons(report) == [("invalid_duration", "ga_ie_11_2")]
    assert report.skipped[0].detail == "duration: must be a finite number >= 0, got -1.0"
    assert [r.duration for r in assert_readable(out)] == [1.0]


def test_every_row_rejected_writes_nothing_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = kaldi_dir(tmp_path, "a x\nb y\n", "a r1 nan 1\nb r1 3 2\n")
    out = tmp_path / "k.jsonl"
    with pytest.raises(EarmarkError, match=r"all 2 rows skipped, no manifest written"):
        import_kaldi(data, out, language="ga", **DECLARED)
    args = ["import", "kaldi", str(data), "--out", str(out), "--language", "ga"]
    assert main([*args, "--licence", "CC0-1.0", "--consent", "c"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "invalid_times=2 ('a', 'b')" in err
    assert not out.exists() and not Path(f"{out}.meta.json").exists()


def test_cli_report_counts_reasons_and_lists_first_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = kaldi_dir(tmp_path, "good a\nbad b\n", "good r1 0 1\nbad r1 2 1\n")
    out = tmp_path / "k.jsonl"
    args = ["import", "kaldi", str(data), "--out", str(out), "--language", "ga"]
    assert main([*args, "--licence", "CC0-1.0", "--consent", "c", "--no-hash"]) == 0
    printed = capsys.readouterr().out
    assert "1 rows written" in printed and "1 skipped (invalid_times=1)" in printed
    assert "skipped bad (invalid_times) at " in printed
    assert "end: end (1.0) must be after start (2.0)" in printed
    assert main(["manifest", "validate", str(out)]) == 0


@pytest.mark.parametrize(
    ("utterance", "reason"),
    [
        (Utterance("a", "x.wav", "t", "en", duration=float("nan")), "invalid_duration"),
        (Utterance("a", "x.wav", "t", "en", custom={"v": [float("inf")]}), "invalid_custom"),
        (Utterance("a", "x.wav", "t\ud800", "en"), "invalid_text"),
        (Utterance("a", "/etc/x.wav", "t", "en"), "invalid_audio_path"),
        (Utterance("a", "x.wav", "t", "en", slices=("s", "s")), "invalid_slices"),
        (Utterance("a", "x.wav", "t", "en", custom={"k": "v" * 1_100_000}), "row_too_long"),
    ],
)
def test_row_problem_names_the_field_each_reason_comes_from(
    utterance: Utterance, reason: str
) -> None:
    from earmark.corpus.sources.report import reason_for_field

    problem = row_problem(utterance)
    assert problem is not None
    assert reason_for_field(problem.field) == reason
    assert reason in SKIP_REASONS
    assert row_problem(Utterance("a", "x.wav", "t", "en", duration=1.0)) is None


def test_out_naming_a_directory_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = kaldi_dir(tmp_path, "good a\n")
    out = tmp_path / "out-dir"
    out.mkdir()
    args = ["import", "kaldi", str(data), "--out", str(out), "--language", "ga", "--no-hash"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out names a directory" in err
    assert list(out.iterdir()) == []


def test_hf_datasets_on_a_folder_that_is_not_a_dataset_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("datasets", reason="needs the datasets extra (test extra)")
    folder = tmp_path / "not-a-dataset"
    folder.mkdir()
    (folder / "readme.txt").write_text("hello", encoding="utf-8")
    args = ["import", "hf-datasets", str(folder), "--out", str(tmp_path / "m.jsonl")]
    assert main([*args, "--language", "en"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a Hugging Face dataset saved with save_to_disk" in err


def test_the_report_shows_each_reason_even_when_one_dominates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "".join(f"b{i} x\n" for i in range(12)) + "long y\ngood z\n"
    segments = "".join(f"b{i} r1 3 2\n" for i in range(12)) + "long r1 0 1\ngood r1 0 1\n"
    data = kaldi_dir(tmp_path, text, segments)
    (data / "utt2spk").write_text(
        "".join(f"b{i} s\n" for i in range(12)) + f"long {'s' * 600}\ngood s\n", "utf-8"
    )
    out = tmp_path / "k.jsonl"
    args = ["import", "kaldi", str(data), "--out", str(out), "--language", "ga", "--no-hash"]
    assert main([*args, "--licence", "CC0-1.0", "--consent", "c"]) == 0
    printed = capsys.readouterr().out
    assert "13 skipped (invalid_speaker=1, invalid_times=12)" in printed
    listed = [line.split()[1] for line in printed.splitlines() if line.startswith("  skipped")]
    assert listed == ["b0", "b1", "b2", "long"]
    assert "... 9 more listed in the sidecar" in printed
