"""`earmark score` output folders: atomic writes, one writer, records that name their rows.

Issue 16 items 5 and 6: two writers into one `--out` once left 100,010 mixed rows and a
torn line; a full disk left `.tmp` files and a traceback; a kill between the two writes
left new predictions beside old figures, and `report` rendered the pair. Each test runs
the real CLI in its own process (the lock and the file-size limit are per process).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from cli_process import earmark, one_error_line, wait_until_it_holds
from earmark.errors import EarmarkError
from earmark.outputs import LOCK_NAME, atomic_write_bytes, atomic_write_text, lock_output_folder
from earmark.render.results import results_schema

SENTENCES = [
    ("the cat sat on the mat", "the cat sat on a mat"),
    ("hello there world", "hello world"),
    ("one two three four", "one two three four"),
]


def write_predictions(path: Path, prefix: str, n: int) -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(n):
            ref, hyp = SENTENCES[i % len(SENTENCES)]
            row = {"id": f"{prefix}-{i}", "reference": ref, "hypothesis": hyp, "language": "en"}
            handle.write(json.dumps(row) + "\n")
    return path


def score_cmd(predictions: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "earmark",
        "score",
        str(predictions),
        "--normalizer",
        "en-v1",
        "--bootstrap",
        "0",
        "--out",
        str(out),
        "--quiet",
    ]


def ids_in(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text("utf-8").splitlines()]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith(".tmp"))


# --- the helper itself -------------------------------------------------------------------


def test_atomic_write_returns_the_digest_of_the_bytes_under_the_final_name(tmp_path: Path) -> None:
    target = tmp_path / "f.jsonl"
    chunks = [b'{"a": 1}\n', "é\n".encode(), b""]
    digest, size = atomic_write_bytes(target, iter(chunks))
    data = target.read_bytes()
    assert data == b"".join(chunks) and size == len(data) == 12
    assert digest == hashlib.sha256(data).hexdigest()
    assert atomic_write_text(target, "x\n") == hashlib.sha256(b"x\n").hexdigest()
    assert target.read_text() == "x\n" and leftovers(tmp_path) == []


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "results.json"
    target.write_text("old\n")

    def dying() -> object:
        yield b"new, half"
        raise EarmarkError("reader failed mid-stream")

    with pytest.raises(EarmarkError):
        atomic_write_bytes(target, dying())  # type: ignore[arg-type]
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]


def test_a_second_lock_on_one_folder_is_refused_and_the_first_released(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with lock_output_folder(out, "score"):
        assert (out / LOCK_NAME).read_text().strip() == str(os.getpid())
        with pytest.raises(EarmarkError) as refused:
            with lock_output_folder(out, "score"):
                pass  # pragma: no cover
        assert f"another earmark process (pid {os.getpid()})" in refused.value.message
        assert "another --out" in (refused.value.hint or "")
    # Released on leaving the block (the same command: the folder is now a score folder).
    with lock_output_folder(out, "score"):
        pass


def test_the_lock_holder_removes_temp_files_a_killed_writer_left(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "arms" / "a").mkdir(parents=True)
    stale = [out / ".results.json.4242.0123abcd.tmp", out / "arms/a/.model.json.7.deadbeef.tmp"]
    kept = [out / "notes.tmp", out / ".hidden.tmp"]  # not names earmark makes
    for path in stale + kept:
        path.write_text("x")
    with lock_output_folder(out, "run"):
        assert [p.exists() for p in stale] == [False, False]
        assert [p.exists() for p in kept] == [True, True]


def test_a_refused_command_leaves_no_folder_it_created(tmp_path: Path) -> None:
    out = tmp_path / "new"
    done = earmark(
        "score", str(tmp_path / "missing.jsonl"), "--normalizer", "en-v1", "--out", str(out)
    )
    assert done.returncode == 2 and not out.exists()


# --- two writers --------------------------------------------------------------------------


def test_a_second_score_into_a_held_folder_exits_2_and_the_winner_keeps_its_rows(
    tmp_path: Path,
) -> None:
    """Deterministic: the first process is stopped while it holds the lock."""
    a = write_predictions(tmp_path / "a.jsonl", "a", 20000)
    b = write_predictions(tmp_path / "b.jsonl", "b", 300)
    out = tmp_path / "out"
    first = subprocess.Popen(score_cmd(a, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_until_it_holds(first, out)
        assert first.poll() is None, "the first score finished before it could be held"
        os.kill(first.pid, signal.SIGSTOP)
        try:
            second = subprocess.run(score_cmd(b, out), capture_output=True, text=True, timeout=120)
        finally:
            os.kill(first.pid, signal.SIGCONT)
        _, err = first.communicate(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
    assert second.returncode == 2
    line = one_error_line(second.stderr)
    assert f"another earmark process (pid {first.pid}) is writing to this folder" in line
    assert str(out) in line and "another --out" in line
    assert first.returncode == 0, err
    assert ids_in(out / "predictions.jsonl") == [f"a-{i}" for i in range(20000)]
    assert earmark("verify", str(out)).returncode == 0


def test_two_scores_started_together_one_wins_and_nothing_is_mixed(tmp_path: Path) -> None:
    inputs = {
        name: write_predictions(tmp_path / f"{name}.jsonl", name, 20000) for name in ("a", "b")
    }
    out = tmp_path / "out"
    procs = {
        name: subprocess.Popen(
            score_cmd(path, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for name, path in inputs.items()
    }
    codes = {name: p.wait(timeout=300) for name, p in procs.items()}
    assert sorted(codes.values()) == [0, 2], {n: p.stderr.read() for n, p in procs.items()}
    winner = next(name for name, code in codes.items() if code == 0)
    loser = next(name for name, code in codes.items() if code == 2)
    assert "is writing to this folder" in one_error_line(procs[loser].stderr.read())
    assert ids_in(out / "predictions.jsonl") == [f"{winner}-{i}" for i in range(20000)]
    assert leftovers(out) == []
    assert earmark("verify", str(out)).returncode == 0


# --- full disk ----------------------------------------------------------------------------


def test_a_full_disk_exits_1_with_one_line_leaves_no_temp_and_a_rerun_verifies(
    tmp_path: Path,
) -> None:
    preds = write_predictions(tmp_path / "p.jsonl", "p", 400)  # predictions.jsonl > 64 KiB
    out = tmp_path / "out"
    args = score_cmd(preds, out)[3:]
    full = earmark(*args, limit=64 * 1024)
    assert full.returncode == 1
    line = one_error_line(full.stderr)
    assert f"{out / 'predictions.jsonl'}: file too large" in line
    assert leftovers(out) == []
    assert not (out / "predictions.jsonl").exists() and not (out / "results.json").exists()
    assert earmark(*args).returncode == 0
    assert earmark("verify", str(out)).returncode == 0


def test_a_full_disk_on_a_rescore_keeps_the_old_pair_intact(tmp_path: Path) -> None:
    out = tmp_path / "out"
    small = write_predictions(tmp_path / "small.jsonl", "s", 20)
    assert earmark(*score_cmd(small, out)[3:]).returncode == 0
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.name != LOCK_NAME}
    big = write_predictions(tmp_path / "big.jsonl", "b", 400)
    full = earmark(*score_cmd(big, out)[3:], limit=64 * 1024)
    assert full.returncode == 1 and "file too large" in one_error_line(full.stderr)
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name != LOCK_NAME} == before
    assert earmark("verify", str(out)).returncode == 0


# --- records name what they came from ------------------------------------------------------


def test_results_name_the_hash_and_rows_of_the_predictions_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    preds = write_predictions(tmp_path / "p.jsonl", "p", 7)
    assert earmark(*score_cmd(preds, out)[3:]).returncode == 0
    results = json.loads((out / "results.json").read_text("utf-8"))
    data = (out / "predictions.jsonl").read_bytes()
    assert results["predictions"] == {
        "file": "predictions.jsonl",
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "rows": 7,
    }
    jsonschema.validate(results, results_schema())


@pytest.fixture()
def scored_folder(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    preds = write_predictions(tmp_path / "p.jsonl", "p", 9)
    assert earmark(*score_cmd(preds, out)[3:]).returncode == 0
    return out


@pytest.mark.parametrize("command", ["verify", "report"])
def test_new_predictions_beside_old_results_are_refused(scored_folder: Path, command: str) -> None:
    """What a kill between the two writes of a rescore leaves: the new rows, the old figures."""
    other = scored_folder.parent / "other"
    preds = write_predictions(scored_folder.parent / "q.jsonl", "q", 9)
    assert earmark(*score_cmd(preds, other)[3:]).returncode == 0
    (scored_folder / "predictions.jsonl").write_bytes((other / "predictions.jsonl").read_bytes())
    done = earmark(command, str(scored_folder))
    assert done.returncode == 2
    line = one_error_line(done.stderr)
    assert "predictions.jsonl is not the file results.json was computed from" in line
    assert not (scored_folder / "report.html").exists()


@pytest.mark.parametrize("command", ["verify", "report"])
@pytest.mark.parametrize("damage", ["empty", "missing"])
def test_an_empty_or_missing_results_file_is_refused(
    scored_folder: Path, command: str, damage: str
) -> None:
    path = scored_folder / "results.json"
    if damage == "empty":
        path.write_bytes(b"")
    else:
        path.unlink()
    done = earmark(command, str(scored_folder))
    assert done.returncode == 2
    expected = "results file is empty" if damage == "empty" else "results file not found"
    assert expected in one_error_line(done.stderr)


def test_an_edited_predictions_row_is_refused_even_when_the_figures_would_match(
    scored_folder: Path,
) -> None:
    """One byte of whitespace changes no figure, but the file is no longer the one scored."""
    path = scored_folder / "predictions.jsonl"
    path.write_bytes(path.read_bytes() + b"\n")
    done = earmark("verify", str(scored_folder))
    assert done.returncode == 2 and "not the file results.json" in done.stderr


def test_a_killed_writer_leaves_no_lock_and_the_next_score_cleans_up(tmp_path: Path) -> None:
    """`kill -9` runs no cleanup: the kernel drops the flock, the next writer the temp files."""
    a = write_predictions(tmp_path / "a.jsonl", "a", 20000)
    out = tmp_path / "out"
    first = subprocess.Popen(score_cmd(a, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_until_it_holds(first, out)
    first.kill()
    first.wait(timeout=60)
    stale = out / f".predictions.jsonl.{first.pid}.0badf00d.tmp"  # as if killed mid-write
    stale.write_text("half")
    b = write_predictions(tmp_path / "b.jsonl", "b", 30)
    done = subprocess.run(score_cmd(b, out), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert leftovers(out) == []
    assert ids_in(out / "predictions.jsonl") == [f"b-{i}" for i in range(30)]
    assert earmark("verify", str(out)).returncode == 0
