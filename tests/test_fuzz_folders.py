"""Hostile output folders and input files (issue 24 items 3, 5 and 7, and its "Also" list).

An output folder records which command made it (`earmark.outputs.FOLDER_MARKER`);
another command refuses to write into it and no command overwrites its own input.
Deleting `artefacts.sha256` from a folder whose marker says a listing was written fails
`verify`. Every reader refuses a FIFO or a symlink loop by `stat`, before `open` (each
CLI call runs in its own process with a timeout, so a regression fails instead of
hanging CI). A `results.json` that is a JSON list and a duplicate Kaldi segment id are
one-line errors.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from earmark.corpus.sources.kaldi import import_kaldi
from earmark.errors import EarmarkError
from earmark.outputs import FOLDER_MARKER, claim_output_folder, folder_maker, refuse_own_input
from earmark.rundir.results_file import load_results

EXAMPLE_RUN = Path(__file__).parent / "report" / "data" / "example-run"
DECLARED = {"licence": "CC-BY-4.0", "consent_basis": "recorded with consent"}


def earmark(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m earmark ARGS` with a deadline: a reader blocked on a FIFO fails the test."""
    return subprocess.run(
        [sys.executable, "-m", "earmark", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The single `earmark: error:` line of an exit-2 refusal."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("earmark: error: "), done.stderr
    return lines[0]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file's bytes under `folder` except the writer's lock (made by a refusal too)."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != ".earmark.lock"
    }


def predictions(path: Path, rows: int = 3) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(
            json.dumps({"id": f"u{i}", "reference": "a b c", "hypothesis": "a b"}) + "\n"
            for i in range(rows)
        ),
        encoding="utf-8",
    )
    return path


def score(source: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return earmark(
        "score", str(source), "--normalizer", "en-v1", "--bootstrap", "0", "--out", str(out),
        *extra,
    )  # fmt: skip


# --- item 3: a folder is its maker's -----------------------------------------------------


def test_score_into_a_finished_run_is_refused_and_the_run_is_untouched(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE_RUN, run)  # a run from before the marker: it has plan.json
    before = snapshot(run)
    line = error_line(score(predictions(tmp_path / "x.jsonl"), run))
    assert line == (
        f"earmark: error: {run}: is an output folder of `earmark run`; `earmark score` will "
        "not write into it (hint: give `earmark score` another --out)"
    )
    assert snapshot(run) == before
    assert not (run / FOLDER_MARKER).exists()


def test_score_never_overwrites_its_own_input(tmp_path: Path) -> None:
    out = tmp_path / "out"
    source = predictions(out / "predictions.jsonl")
    before = source.read_bytes()
    line = error_line(score(source, out))
    assert "is the input of `earmark score` and also its output predictions.jsonl" in line
    assert source.read_bytes() == before
    # A hard link elsewhere is the same file (same inode): refused as well.
    linked = tmp_path / "elsewhere.jsonl"
    os.link(source, linked)
    line = error_line(score(linked, out))
    assert f"{linked}: is the input of `earmark score`" in line
    assert source.read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == ["predictions.jsonl"]


def test_multispeaker_never_overwrites_its_own_input(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    segments = out / "multispeaker.json"
    segments.write_text(
        '{"r1": [{"speaker": "A", "start": 0.0, "end": 1.0, "text": "a b"}]}', encoding="utf-8"
    )
    before = segments.read_bytes()
    args = ("multispeaker", str(segments), str(segments), "--normalizer", "en-v1")
    line = error_line(earmark(*args, "--out", str(out)))
    assert "is the input of `earmark multispeaker` and also its output multispeaker.json" in line
    assert segments.read_bytes() == before


def test_refuse_own_input_sees_through_links_and_dot_dot(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "plan.json").write_text("{}", encoding="utf-8")
    (tmp_path / "alias").symlink_to(out / "plan.json")
    for given in (out / "plan.json", tmp_path / "alias", out / ".." / "out" / "plan.json"):
        with pytest.raises(EarmarkError, match="its output plan.json"):
            refuse_own_input(out, (None, given), ("plan.json", "results.json"), "run")
    # Another file of the same name elsewhere, a missing output, a missing input: fine.
    (tmp_path / "plan.json").write_text("{}", encoding="utf-8")
    refuse_own_input(out, (tmp_path / "plan.json", tmp_path / "none"), ("plan.json",), "run")
    refuse_own_input(tmp_path / "absent", (out / "plan.json",), ("plan.json",), "run")


def test_the_maker_may_write_again_and_another_command_may_not(tmp_path: Path) -> None:
    out = tmp_path / "out"
    source = predictions(tmp_path / "x.jsonl")
    assert score(source, out).returncode == 0
    assert json.loads((out / FOLDER_MARKER).read_text("utf-8")) == {
        "schema": "earmark.folder/1",
        "command": "score",
    }
    assert score(predictions(tmp_path / "y.jsonl", rows=2), out).returncode == 0  # a rescore
    before = snapshot(out)
    line = error_line(earmark("compare", str(out), "--normalizer", "en-v1", "--out", str(out)))
    assert "is an output folder of `earmark score`; `earmark compare` will not write" in line
    assert snapshot(out) == before


def test_old_folders_are_recognised_by_their_files(tmp_path: Path) -> None:
    cases = {
        "plan.json": "run",
        "postprocess.json": "postprocess",
        "multispeaker.json": "multispeaker",
        "compare.json": "compare",
        "leaderboard.json": "leaderboard",
        "decision-2026-12-01.json": "decide",
        "results.json": "score",
    }
    for name, command in cases.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / name).write_text("{}", encoding="utf-8")
        assert folder_maker(folder) == command
        claim_output_folder(folder, command)  # the same command: allowed, marker written
        assert folder_maker(folder) == command
        with pytest.raises(EarmarkError, match=f"output folder of `earmark {command}`"):
            claim_output_folder(folder, "other")
    # A folder with no earmark record (the user's own) is claimed by the first writer.
    own = tmp_path / "own"
    own.mkdir()
    (own / "notes.txt").write_text("mine", encoding="utf-8")
    claim_output_folder(own, "leaderboard")
    assert folder_maker(own) == "leaderboard"


def test_a_command_that_fails_before_any_record_leaves_no_marker(tmp_path: Path) -> None:
    own = tmp_path / "own"
    own.mkdir()
    (own / "notes.txt").write_text("mine", encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "u1", "reference": "a"}\n{"id": "u1", "reference": "b"}\n', "utf-8")
    assert score(bad, own).returncode == 2
    assert sorted(p.name for p in own.iterdir()) == [".earmark.lock", "notes.txt"]
    assert folder_maker(own) is None


def test_an_edited_marker_is_refused_not_trusted(tmp_path: Path) -> None:
    for text in ("[1]", '{"schema": "earmark.folder/1", "command": 7}', "{" * 100_000, "\x00"):
        (tmp_path / FOLDER_MARKER).write_text(text, encoding="utf-8")
        with pytest.raises(EarmarkError, match="unreadable folder marker"):
            claim_output_folder(tmp_path, "score")


# --- item 5: a deleted listing fails verify ----------------------------------------------


def test_deleting_the_listing_of_a_marked_folder_fails_verify(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert score(predictions(tmp_path / "x.jsonl"), out).returncode == 0
    assert earmark("verify", str(out)).returncode == 0
    (out / "artefacts.sha256").unlink()
    (out / "results.md").write_text("edited\n", encoding="utf-8")
    done = earmark("verify", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "MISMATCH     artefacts.sha256: no artefacts.sha256, but .earmark-folder.json says "
        "`earmark score` made this folder"
    ) in done.stdout


def test_a_folder_from_before_listings_still_verifies_without_one(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE_RUN, run)
    done = earmark("verify", str(run))
    assert "UNAVAILABLE  artefacts.sha256: no artefacts.sha256 (a folder written before" in (
        done.stdout
    ), done.stdout


# --- item 7 and "Also": FIFOs, symlink loops -----------------------------------------------


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.fixture
def loop(tmp_path: Path) -> Path:
    (tmp_path / "loop-b").symlink_to(tmp_path / "loop-a")
    (tmp_path / "loop-a").symlink_to(tmp_path / "loop-b")
    return tmp_path / "loop-a"


def _readers(tmp_path: Path, bad: Path) -> dict[str, tuple[str, ...]]:
    """Each command that reads a user's file, with `bad` as that file."""
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(
        '{"id": "u1", "audio": "a.wav", "text": "a b", "language": "en"}\n', encoding="utf-8"
    )
    out = str(tmp_path / "out")
    return {
        "score --glm": (
            "score", str(predictions(tmp_path / "x.jsonl")), "--normalizer", "en-v1",
            "--glm", str(bad), "--out", out,
        ),
        "multispeaker": (
            "multispeaker", str(bad), str(bad), "--normalizer", "en-v1", "--format", "json",
            "--out", out,
        ),
        "plan freeze": ("plan", "freeze", str(bad)),
        "manifest contamination --against": (
            "manifest", "contamination", str(manifest), "--against", str(bad), "--out", out,
        ),
        "report": ("report", str(bad)),
        "verify": ("verify", str(bad)),
    }  # fmt: skip


def test_every_reader_refuses_a_fifo_at_once(tmp_path: Path, fifo: Path) -> None:
    for name, args in _readers(tmp_path, fifo).items():
        line = error_line(earmark(*args))
        assert f"{fifo}: is a FIFO (named pipe), not a regular file" in line, name
        assert not (tmp_path / "out").exists(), name


def test_every_reader_names_a_symlink_loop(tmp_path: Path, loop: Path) -> None:
    for name, args in _readers(tmp_path, loop).items():
        line = error_line(earmark(*args))
        assert f"{loop}: is a symbolic link loop" in line, name


# --- "Also": results.json of the wrong shape, duplicate Kaldi segments ----------------------


@pytest.mark.parametrize(
    ("text", "found"),
    [("[1, 2]", "list"), ('"results"', "string"), ("3", "number"), ("null", "null")],
)
def test_results_json_that_is_not_an_object(tmp_path: Path, text: str, found: str) -> None:
    (tmp_path / "results.json").write_text(text, encoding="utf-8")
    with pytest.raises(EarmarkError, match=f"expected a JSON object, found a JSON {found}"):
        load_results(tmp_path)
    for command in ("report", "verify"):
        line = error_line(earmark(command, str(tmp_path)))
        assert f"expected a JSON object, found a JSON {found}" in line, command


def test_results_json_nested_too_deep_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(EarmarkError, match="invalid JSON"):
        load_results(tmp_path)


def test_a_duplicate_kaldi_segment_id_is_refused_with_its_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "wav.scp").write_text("r1 r1.wav\n", encoding="utf-8")
    (data / "text").write_text("u1 a b\nu2 c d\n", encoding="utf-8")
    (data / "segments").write_text(
        "u1 r1 0.0 1.0\nu2 r1 1.0 2.0\nu1 r1 2.0 3.0\n", encoding="utf-8"
    )
    with pytest.raises(EarmarkError) as refused:
        import_kaldi(data, tmp_path / "k.jsonl", language="ga", hash_audio=False, **DECLARED)
    assert (refused.value.file, refused.value.line) == (str(data / "segments"), 3)
    assert refused.value.message == "duplicate segment id 'u1' (first on line 1)"
    assert not (tmp_path / "k.jsonl").exists()
