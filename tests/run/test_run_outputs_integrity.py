"""`earmark run` folders: one writer, atomic records, a full disk, records bounded to the run.

Issue 16 items 5, 6 and 10: a second run into a busy `--out` must get one line and exit 2
(not append its rows to the first one's store); a full disk must leave no `.tmp` and no
half-written record, and a rerun must resume and verify; `verify` must refuse empty
records and predictions that are not the ones the figures came from; `run --first N` on
a large manifest must not list every row never run. The CLI runs in its own process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cli_process import earmark, one_error_line, wait_until_it_holds
from earmark.corpus.model import Utterance
from earmark.corpus.selection import select
from earmark.execution.finish import EXCLUSIONS_LISTED, bounded_selection


def run_args(manifest: Path, out: Path, arm: str, *extra: str) -> list[str]:
    return [
        "run",
        "--manifest",
        str(manifest),
        "--arm",
        arm,
        "--normalizer",
        "none",
        "--bootstrap",
        "50",
        "--out",
        str(out),
        "--quiet",
        *extra,
    ]


def leftovers(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.name.endswith(".tmp"))


def store_keys(out: Path) -> list[tuple[str, str, int]]:
    rows = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    return [(r["arm"], r["id"], r.get("repeat", 0)) for r in rows]


@pytest.fixture()
def finished_run(tmp_path: Path, fake_asr: str, corpus_factory) -> Path:
    manifest = corpus_factory(tmp_path / "corpus", 3)
    out = tmp_path / "run"
    done = earmark(*run_args(manifest, out, f"command:{fake_asr} {{audio}}?name=fake"))
    assert done.returncode == 0, done.stderr
    return out


# --- two writers --------------------------------------------------------------------------


def test_a_second_run_into_a_busy_folder_exits_2_and_the_first_keeps_its_rows(
    tmp_path: Path, fake_asr: str, corpus_factory
) -> None:
    """Same plan, so only the lock can refuse it (a different plan is refused anyway);
    deterministic: the first run is stopped while it holds the folder."""
    manifest = corpus_factory(tmp_path / "corpus", 4)
    out = tmp_path / "run"
    args = run_args(manifest, out, f"command:{fake_asr} {{audio}} 0.3?name=slow")
    first = subprocess.Popen(
        [sys.executable, "-m", "earmark", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        wait_until_it_holds(first, out)
        assert first.poll() is None, "the first run finished before it could be held"
        os.kill(first.pid, signal.SIGSTOP)
        try:
            second = earmark(*args)
        finally:
            os.kill(first.pid, signal.SIGCONT)
        _, err = first.communicate(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
    assert second.returncode == 2
    line = one_error_line(second.stderr)
    assert f"another earmark process (pid {first.pid}) is writing to this folder" in line
    assert "earmark run` another --out" in line
    assert first.returncode == 0, err
    assert store_keys(out) == [("slow", f"c{i:03d}", 0) for i in range(4)]
    assert earmark("verify", str(out)).returncode == 0


# --- full disk ----------------------------------------------------------------------------


def test_a_full_disk_exits_1_with_one_line_and_a_rerun_resumes_and_verifies(
    tmp_path: Path, fake_asr: str, corpus_factory
) -> None:
    """20 KB: the store, plan and arm records fit; results.json (~50 KB) does not."""
    manifest = corpus_factory(tmp_path / "corpus", 6)
    out = tmp_path / "run"
    args = run_args(manifest, out, f"command:{fake_asr} {{audio}}?name=fake")
    full = earmark(*args, limit=20_000)
    assert full.returncode == 1
    assert f"{out / 'results.json'}: file too large" in one_error_line(full.stderr)
    assert leftovers(out) == []
    assert not (out / "results.json").exists()
    for record in [out / "plan.json", out / "provenance.json", *out.glob("arms/*/*.json")]:
        json.loads(record.read_text("utf-8"))  # whole, or not there at all
    assert earmark("verify", str(out)).returncode == 2  # no figures to verify yet
    rerun = earmark(*args)
    assert rerun.returncode == 0, rerun.stderr
    resources = json.loads((out / "arms/fake/resources.json").read_text("utf-8"))
    assert resources["session"]["transcribed"] == 0  # every row came from the store
    assert earmark("verify", str(out)).returncode == 0


# --- records ------------------------------------------------------------------------------


def test_a_run_names_the_hash_of_the_store_as_scored(finished_run: Path) -> None:
    import hashlib

    results = json.loads((finished_run / "results.json").read_text("utf-8"))
    data = (finished_run / "predictions.jsonl").read_bytes()
    assert results["predictions"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert results["predictions"]["rows"] == 3


def test_a_resumed_store_beside_old_figures_is_refused_by_verify_and_report(
    finished_run: Path,
) -> None:
    """A rerun killed after its first new row: the store has grown, results.json has not."""
    path = finished_run / "predictions.jsonl"
    last = path.read_text("utf-8").splitlines()[-1]
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(last + "\n")
    for command in ("verify", "report"):
        done = earmark(command, str(finished_run))
        assert done.returncode == 2
        assert "not the file results.json was computed from" in one_error_line(done.stderr)


@pytest.mark.parametrize("record", ["provenance.json", "plan.json"])
def test_verify_refuses_an_empty_record(finished_run: Path, record: str) -> None:
    (finished_run / record).write_bytes(b"")
    done = earmark("verify", str(finished_run))
    assert done.returncode == 2
    assert f"{record} is empty" in one_error_line(done.stderr)


def test_a_run_resumes_over_an_empty_plan_file(
    finished_run: Path, fake_asr: str, tmp_path: Path
) -> None:
    """An empty plan.json (an old full disk) records no plan: the same command resumes."""
    (finished_run / "plan.json").write_bytes(b"")
    manifest = tmp_path / "corpus" / "manifest.jsonl"
    done = earmark(*run_args(manifest, finished_run, f"command:{fake_asr} {{audio}}?name=fake"))
    assert done.returncode == 0, done.stderr
    assert json.loads((finished_run / "plan.json").read_text("utf-8"))["sha256"]
    assert earmark("verify", str(finished_run)).returncode == 0


# --- records of rows never run ------------------------------------------------------------


def _utterances(n: int) -> list[Utterance]:
    return [
        Utterance(id=f"u{i:05d}", audio=f"a/{i}.wav", text="x", language="en") for i in range(n)
    ]


def test_a_small_selection_lists_every_exclusion() -> None:
    _, record = select(_utterances(10), n=4)
    bounded = bounded_selection(record)
    assert bounded == record.to_dict()
    assert [e["id"] for e in bounded["exclusions"]] == [f"u{i:05d}" for i in range(4, 10)]


def test_a_large_selection_keeps_counts_and_lists_only_the_first_ids() -> None:
    _, record = select(_utterances(EXCLUSIONS_LISTED + 2500), n=3)
    bounded = bounded_selection(record)
    total = EXCLUSIONS_LISTED + 2497
    assert bounded["excluded_counts"] == {"after_limit": total}
    assert bounded["exclusions_total"] == total and bounded["exclusions_truncated"] is True
    assert [e["id"] for e in bounded["exclusions"]] == [
        f"u{i:05d}" for i in range(3, 3 + EXCLUSIONS_LISTED)
    ]
    assert bounded["input_rows"] == EXCLUSIONS_LISTED + 2500 and bounded["kept_rows"] == 3


def test_run_first_on_a_large_manifest_writes_records_of_the_rows_run(
    tmp_path: Path, fake_asr: str, corpus_factory
) -> None:
    """20,000 rows, `--first 2`: the records hold counts and 1,000 ids, not 19,998."""
    manifest = corpus_factory(tmp_path / "corpus", 2)
    with open(manifest, "a", encoding="utf-8") as handle:
        for i in range(20_000 - 2):  # rows never run: their audio need not exist
            row = Utterance(id=f"never-{i:05d}", audio=f"audio/n{i}.wav", text="x", language="en")
            handle.write(row.to_json() + "\n")
    out = tmp_path / "run"
    done = earmark(
        *run_args(manifest, out, f"command:{fake_asr} {{audio}}?name=fake", "--first", "2")
    )
    assert done.returncode == 0, done.stderr
    for name in ("results.json", "provenance.json"):
        selection = json.loads((out / name).read_text("utf-8"))["corpus"]["selection"]
        assert selection["excluded_counts"] == {"after_limit": 19_998}
        assert selection["exclusions_total"] == 19_998
        assert len(selection["exclusions"]) == EXCLUSIONS_LISTED
        assert selection["exclusions"][0] == {"id": "never-00000", "reason": "after_limit"}
    # Each record stays small: 19,998 listed ids would add ~900 KB to each.
    assert (out / "provenance.json").stat().st_size < 150_000
    assert earmark("verify", str(out)).returncode == 0
