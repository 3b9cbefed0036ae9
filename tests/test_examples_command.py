"""`earmark examples DIR` (issue 26): the files the documentation's examples read.

What is pinned: the folder holds every file the docs name, each usable as the docs use
it (the manifests pass the licence gate, the runs verify, the corpora import); system
`f32`'s hypotheses give the same counts in every input format, the counts the rule that
made them implies (and jiwer's, as a peer); the CLI and `earmark.examples` write the same
files; and the hostile cases: a folder that is not empty is refused unless `--force`, and
with `--force` nothing is written through a symbolic link, into a FIFO or over a folder in
the way, so no file outside DIR changes. tests/test_docs_run.py runs the docs themselves
from an empty folder, through this command.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jiwer
import pytest
import tomllib

import earmark
from earmark.api.example_files import ExampleFolder, examples, system_output
from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.metrics import ErrorCounts
from earmark.results import Results

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(earmark.__file__).parent
#: system f32 on the 12 English clips of the demo corpus: clips 1, 4, 7 and 10 (every
#: third, from the first) lose their last word, nothing else changes; 114 words in all
#: after en-v1 (113 as written: en-v1 reads `10:30` as two words).
F32_ENGLISH = ErrorCounts(substitutions=0, deletions=4, insertions=0, hits=110)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> ExampleFolder:
    return examples(tmp_path_factory.mktemp("examples") / "ex")


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["examples", *args])
    out, err = capsys.readouterr()
    return code, out, err


# --- what is written ---------------------------------------------------------------------


def test_every_file_the_folder_readme_lists_is_there(made: ExampleFolder) -> None:
    """The folder's README.md is its table of contents: every path it names exists."""
    readme = (made.folder / "README.md").read_text("utf-8")
    first_cells = [line.split("|")[1] for line in readme.splitlines() if line.startswith("| `")]
    named = [n.rstrip("/") for cell in first_cells for n in re.findall(r"`([^`]+)`", cell)]
    named = [n.replace("*", "f32") for n in named if n != ".meta.json"]
    assert len(named) >= 25
    missing = [n for n in named if not (made.folder / n).exists()]
    assert not missing, missing


def _tree(folder: Path) -> list[str]:
    """Every entry under `folder`, links not followed."""
    found = []
    for top, dirs, files in os.walk(folder):
        found += [(Path(top) / n).relative_to(folder).as_posix() for n in [*dirs, *files]]
    return sorted(found)


def test_the_files_are_the_ones_named_and_inside_the_folder(made: ExampleFolder) -> None:
    root = made.folder.resolve()
    on_disk = [f for f in _tree(root) if (root / f).is_file()]
    assert sorted(made.files) == on_disk
    assert all((root / f).resolve().is_relative_to(root) for f in made.files)
    assert made.runs == (
        "runs/sweep",
        "runs/f32",
        "runs/q8",
        "runs/cv",
        "runs/fleurs",
        "runs/zh-small",
    )
    # the demo corpus's clips, copied byte for byte (never a second copy in the package)
    demo = PACKAGE / "demo_corpus" / "audio"
    assert {p.name for p in (root / "audio").iterdir()} == {p.name for p in demo.iterdir()}
    assert (root / "audio" / "zh-03.flac").read_bytes() == (demo / "zh-03.flac").read_bytes()
    assert sorted(p.name for p in (root / "corpus" / "audio").iterdir()) == [
        "en-01.flac",
        "en-02.flac",
        "en-03.flac",
    ]


def test_the_hypotheses_follow_the_documented_rule() -> None:
    assert system_output("a b c", 0, 0) == "a b"  # index 0: every third from the first
    assert system_output("a b c", 1, 0) == "a b c"
    assert system_output("a b c", 2, 1) == "a b"  # shifted by one
    assert system_output("今天下雨", 3, 0) == "今天下"  # one "word": its last character
    assert system_output("a b", 4, 1) == "a b okay"  # clip 4 of a shifted system
    assert system_output("", 0, 0) == ""


@pytest.mark.parametrize(
    ("prediction", "refs", "extra"),
    [
        ("hyps.jsonl", None, ()),
        ("hyps.csv", None, ()),
        ("hyps.tsv", None, ()),
        ("hyp", "text", ()),
        ("hyp.txt", "ref.txt", ("--format", "lines")),
        ("hyp.trn", "ref.trn", ()),
        ("hyp.ctm", "ref.stm", ()),
    ],
)
def test_every_format_gives_the_same_counts(
    made: ExampleFolder, prediction: str, refs: str | None, extra: tuple[str, ...]
) -> None:
    """One system in seven formats: the English word counts are the same in each."""
    results = earmark.score_file(
        made.folder / prediction,
        refs=None if refs is None else made.folder / refs,
        normalizer="en-v1",
        bootstrap=0,
        format=extra[1] if extra else None,
    )
    arm = results.arm()
    language = "en" if "en" in arm.languages and prediction.startswith("hyps") else "und"
    counts = arm.language(language).view("normalized").metric("wer").counts
    assert counts == F32_ENGLISH


def test_jiwer_agrees_on_the_lines_files(made: ExampleFolder) -> None:
    """A peer oracle on the raw text: jiwer reads ref.txt/hyp.txt as the same 4 deletions
    (of 113 words: en-v1 makes 114 of them, reading `10:30` as `10 30`)."""
    refs = (made.folder / "ref.txt").read_text("utf-8").splitlines()
    hyps = (made.folder / "hyp.txt").read_text("utf-8").splitlines()
    out = jiwer.process_words(refs, hyps)
    assert (out.substitutions, out.deletions, out.insertions, out.hits) == (0, 4, 0, 109)


def test_the_runs_verify_and_hold_the_systems(made: ExampleFolder) -> None:
    for run in made.runs:
        assert earmark.verify(made.folder / run).ok, run
    sweep = Results.from_path(made.folder / "runs" / "sweep")
    assert list(sweep.arms) == ["f32", "q8_0"]
    en = sweep.arm("f32").language("en").view("normalized").metric("wer").counts
    assert en == F32_ENGLISH
    cv = Results.from_path(made.folder / "runs" / "cv")
    assert cv.arm().languages == ("ga",) and cv.arm().coverage.references == 8


def test_the_manifests_pass_the_licence_gate(made: ExampleFolder) -> None:
    for name, rows in [("corpus.jsonl", 31), ("ga.jsonl", 8), ("zh.jsonl", 8), ("test.jsonl", 15)]:
        report = earmark.manifest_validate(made.folder / name, check_audio=True)
        assert report.ok and report.rows == rows and not report.problems, name
    mine = earmark.manifest_validate(made.folder / "corpus" / "manifest.jsonl", check_audio=True)
    assert mine.ok and mine.rows == 3 and not mine.problems


def test_the_corpus_layouts_import(made: ExampleFolder, tmp_path: Path) -> None:
    fleurs = earmark.import_corpus(
        "fleurs", made.folder / "data" / "cmn_hans_cn", out=tmp_path / "f.jsonl"
    )
    voice = earmark.import_corpus(
        "common-voice",
        made.folder / "cv-corpus-25.0-2026-03-14" / "ga-IE",
        split="test",
        out=tmp_path / "cv.jsonl",
    )
    kaldi = earmark.import_corpus(
        "kaldi", made.folder / "data" / "test", language="ga", out=tmp_path / "k.jsonl"
    )
    assert (fleurs.rows_written, voice.rows_written, kaldi.rows_written) == (2, 2, 2)
    texts = [json.loads(x)["text"] for x in (tmp_path / "f.jsonl").read_text().splitlines()]
    assert texts[0] == "今天天气很好，我们去公园散步吧。"


def test_the_package_carries_the_data() -> None:
    """The wheel's package-data globs cover examples_data/ (and the demo corpus it copies)."""
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["earmark"]
    data = PACKAGE / "examples_data"
    files = [p.relative_to(PACKAGE).as_posix() for p in data.rglob("*") if p.is_file()]
    assert files and all(any(fnmatch.fnmatch(f, g) for g in globs) for f in files), files


# --- the command line ---------------------------------------------------------------------


def test_the_cli_writes_what_the_api_writes(
    made: ExampleFolder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(capsys, str(tmp_path / "cli"))
    assert code == 0 and not err
    assert out.startswith(f"wrote {len(made.files)} files to {tmp_path / 'cli'} (6 run folders")
    assert out.splitlines()[-1] == f"next: cd {tmp_path / 'cli'} && earmark verify runs/sweep"
    written = [f for f in _tree(tmp_path / "cli") if (tmp_path / "cli" / f).is_file()]
    assert sorted(made.files) == written
    for name in ("hyps.jsonl", "hyp.ctm", "ref.stm", "corpus.jsonl.meta.json"):
        assert (tmp_path / "cli" / name).read_bytes() == (made.folder / name).read_bytes()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "must name a path"),
        ("-", "standard output"),
        ("a\x00b", "NUL"),
        ("bad\ud800", "cannot be a file name"),
    ],
)
def test_a_bad_folder_name_is_one_error(name: str, message: str) -> None:
    with pytest.raises(EarmarkError, match=message):
        examples(name)


def test_a_folder_that_is_not_empty_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    code, out, err = _cli(capsys, str(tmp_path))
    assert code == 2 and not out
    assert err.strip() == (
        f"earmark: error: {tmp_path}: the folder is not empty (hint: name a new folder, or "
        "give --force to replace the example files in it)"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]


def test_force_replaces_the_example_files_and_keeps_the_others(
    made: ExampleFolder, tmp_path: Path
) -> None:
    target = tmp_path / "ex"
    target.mkdir()
    (target / "mine.txt").write_text("keep me")
    (target / "hyps.jsonl").write_text("stale")
    (target / "runs" / "sweep").mkdir(parents=True)
    (target / "runs" / "sweep" / "old.txt").write_text("an older example run")
    again = examples(target, force=True)
    assert (target / "mine.txt").read_text() == "keep me"
    assert (target / "hyps.jsonl").read_bytes() == (made.folder / "hyps.jsonl").read_bytes()
    assert not (target / "runs" / "sweep" / "old.txt").exists()
    assert earmark.verify(target / "runs" / "sweep").ok
    assert sorted(again.files) == sorted(made.files)


def test_a_file_where_the_folder_goes_is_refused(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(EarmarkError, match="is a file, not a folder"):
        examples(tmp_path / "f", force=True)


# --- hostile folders: nothing outside DIR changes -----------------------------------------


def _outside(tmp_path: Path) -> Path:
    victim = tmp_path / "outside"
    victim.mkdir()
    (victim / "victim.txt").write_text("untouched")
    return victim


@pytest.mark.parametrize(
    "link",
    ["hyps.jsonl", "runs", "runs/sweep", "systems", "corpus/audio", "data", "README.md"],
)
def test_force_never_writes_through_a_symbolic_link(tmp_path: Path, link: str) -> None:
    outside = _outside(tmp_path)
    target = tmp_path / "ex"
    (target / link).parent.mkdir(parents=True, exist_ok=True)
    pointed = outside / "victim.txt" if "." in Path(link).name else outside
    (target / link).symlink_to(pointed)
    with pytest.raises(EarmarkError, match="symbolic link"):
        examples(target, force=True)
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
    assert (outside / "victim.txt").read_text() == "untouched"
    made_here = [Path(link).parts[0], *(["/".join(Path(link).parts)] if "/" in link else [])]
    assert _tree(target) == sorted(made_here)  # nothing new, and nothing removed


def test_a_dangling_link_and_a_link_loop_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "ex"
    target.mkdir()
    (target / "canaries.txt").symlink_to(tmp_path / "nowhere" / "created.txt")
    (target / "preds").symlink_to(target / "preds")
    with pytest.raises(EarmarkError, match="symbolic link"):
        examples(target, force=True)
    assert not (tmp_path / "nowhere").exists()


def test_a_path_escape_in_the_folder_name_stays_where_it_points(tmp_path: Path) -> None:
    """`a/../b` is b: every file lands under the folder the name resolves to."""
    (tmp_path / "a").mkdir()
    wrote = examples(f"{tmp_path}/a/../b")
    assert (tmp_path / "b" / "hyps.jsonl").is_file() and not any((tmp_path / "a").iterdir())
    assert all((tmp_path / "b" / f).resolve().is_relative_to(tmp_path / "b") for f in wrote.files)


def test_a_fifo_or_a_folder_in_the_way_is_refused_without_hanging(tmp_path: Path) -> None:
    """Opening a FIFO for writing blocks until a reader comes: the command must refuse it
    by its type first (its own process, with a deadline, so a regression fails)."""
    target = tmp_path / "ex"
    target.mkdir()
    os.mkfifo(target / "canaries.txt")
    done = subprocess.run(
        [sys.executable, "-m", "earmark", "examples", str(target), "--force"],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        f"earmark: error: {target / 'canaries.txt'}: is not a regular file, as the example's "
        "is (hint: move it away, or name a new folder)"
    )
    os.unlink(target / "canaries.txt")
    (target / "hyps.jsonl").mkdir()
    with pytest.raises(EarmarkError, match="is not a regular file"):
        examples(target, force=True)
    (target / "hyps.jsonl").rmdir()
    (target / "systems").write_text("a file where a folder goes")
    with pytest.raises(EarmarkError, match="is in the way"):
        examples(target, force=True)
    assert (target / "systems").read_text() == "a file where a folder goes"


def test_a_fifo_as_the_folder_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(EarmarkError, match="is a file, not a folder"):
        examples(tmp_path / "pipe", force=True)


def test_a_folder_name_with_the_arm_spec_marks_still_runs(tmp_path: Path) -> None:
    """The runs name their saved hypotheses by path inside an arm spec (`KIND:PATH?k=v&...`):
    a folder called `a?b&c=d#e f%20` must still give runs that verify."""
    wrote = examples(tmp_path / "a?b&c=d#e f%20")
    assert earmark.verify(wrote.folder / "runs" / "sweep").ok
    sweep = Results.from_path(wrote.folder / "runs" / "sweep")
    assert sweep.arm("f32").language("en").view("normalized").metric("wer").counts == F32_ENGLISH
