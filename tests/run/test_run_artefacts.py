"""`artefacts.sha256`: every run and score folder lists its outputs' SHA-256, and verify
checks it (issue 15, seed 001's artefact hash list).

The oracle for the format is coreutils: `sha256sum -c artefacts.sha256` run in the folder.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from earmark.artefacts import (
    LISTING,
    add_to_listing,
    check_artefacts,
    output_files,
    read_listing,
    write_artefacts,
)
from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.outputs import FOLDER_MARKER

RUN_OUTPUTS = [
    "arms/fake/egress.json",
    "arms/fake/model.json",
    "arms/fake/resources.json",
    "plan.json",
    "predictions.jsonl",
    "provenance.json",
    "results.json",
    "results.md",
]

needs_sha256sum = pytest.mark.skipif(
    shutil.which("sha256sum") is None, reason="coreutils sha256sum is the oracle"
)


def sha256sum_check(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sha256sum", "--strict", "-c", LISTING],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture()
def run_dir(tmp_path: Path, fake_asr: str, corpus_factory) -> Path:
    manifest = corpus_factory(tmp_path / "corpus", 3)
    out = tmp_path / "run"
    args = ["run", "--manifest", str(manifest), "--arm", f"command:{fake_asr} {{audio}}?name=fake"]
    args += ["--normalizer", "none", "--bootstrap", "50", "--out", str(out), "--quiet"]
    assert main(args) == 0
    return out


def verify(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["verify", str(folder), "--quiet"])
    return code, capsys.readouterr().out


@needs_sha256sum
def test_a_run_lists_every_output_with_its_hash_and_sha256sum_agrees(run_dir: Path) -> None:
    lines = (run_dir / LISTING).read_text("utf-8").splitlines()
    names = [line.split("  ", 1)[1] for line in lines]
    assert names == RUN_OUTPUTS  # sorted, the listing itself and the lock not in it
    for line in lines:
        digest, name = line.split("  ", 1)
        assert digest == hashlib.sha256((run_dir / name).read_bytes()).hexdigest()
    done = sha256sum_check(run_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(": OK") == len(RUN_OUTPUTS)
    # Written last: no output is newer than the listing, and no temporary file is left.
    newest = max((run_dir / n).stat().st_mtime_ns for n in RUN_OUTPUTS)
    assert (run_dir / LISTING).stat().st_mtime_ns >= newest
    assert not [p for p in run_dir.rglob("*.tmp")]


def test_verify_passes_an_untouched_run(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = verify(run_dir, capsys)
    assert code == 0
    report = json.loads(json.dumps(_verify_dict(run_dir)))
    (check,) = [c for c in report["checks"] if c["name"] == LISTING]
    assert check == {"name": LISTING, "status": "ok", "detail": f"8 files match {LISTING}"}


def _verify_dict(folder: Path) -> dict:
    from earmark.verification import verify_run

    return verify_run(folder).to_dict()


@needs_sha256sum
@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        ("change results.md", "changed: results.md"),
        ("change arms/fake/model.json", "changed: arms/fake/model.json"),
        ("remove arms/fake/egress.json", "missing: arms/fake/egress.json"),
        ("add notes.txt", "unlisted: notes.txt"),
        ("add arms/fake/extra.json", "unlisted: arms/fake/extra.json"),
    ],
)
def test_a_tampered_folder_fails_verify_naming_the_path(
    run_dir: Path, capsys: pytest.CaptureFixture[str], damage: str, expected: str
) -> None:
    verb, name = damage.split(" ", 1)
    path = run_dir / name
    if verb == "change":
        path.write_bytes(path.read_bytes() + b" ")
    elif verb == "remove":
        path.unlink()
    else:
        path.write_text("{}\n", "utf-8")
    code, out = verify(run_dir, capsys)
    assert code == 1
    assert f"MISMATCH     {LISTING}: {expected}" in out
    # coreutils sees the same change (it cannot see an unlisted file: that is verify's part).
    assert (sha256sum_check(run_dir).returncode == 0) == (verb == "add")


def test_hidden_entries_are_not_outputs(run_dir: Path) -> None:
    """The writer's lock and a killed writer's temporary file are not artefacts."""
    assert (run_dir / ".earmark.lock").exists()
    (run_dir / ".results.json.123.0badf00d.tmp").write_text("half")
    assert output_files(run_dir) == RUN_OUTPUTS
    checked = check_artefacts(run_dir)
    assert checked is not None and checked.ok


def test_a_nested_output_folder_is_not_walked(tmp_path: Path) -> None:
    """`postprocess --out RUN/pp` has its own listing; only top level and arms/* count."""
    (tmp_path / "arms" / "a").mkdir(parents=True)
    (tmp_path / "arms" / "a" / "model.json").write_text("{}")
    (tmp_path / "results.json").write_text("{}")
    (tmp_path / "pp").mkdir()
    (tmp_path / "pp" / "postprocess.json").write_text("{}")
    assert output_files(tmp_path) == ["arms/a/model.json", "results.json"]


@needs_sha256sum
def test_a_score_folder_gets_a_listing_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preds = tmp_path / "p.jsonl"
    preds.write_text(
        '{"id": "a", "reference": "the cat sat", "hypothesis": "the cat sat"}\n'
        '{"id": "b", "reference": "on the mat", "hypothesis": "on a mat"}\n',
        "utf-8",
    )
    out = tmp_path / "out"
    args = ["score", str(preds), "--normalizer", "none", "--bootstrap", "50", "--out", str(out)]
    assert main([*args, "--quiet", "--sclite-reports"]) == 0
    listed = read_listing(out / LISTING)
    assert sorted(listed) == sorted(
        ["predictions.jsonl", "results.json", "results.md", "p.sys", "p.raw", "p.pra", "p.dtl"]
    )
    assert sha256sum_check(out).returncode == 0
    assert verify(out, capsys)[0] == 0
    (out / "p.pra").write_text("edited", "utf-8")
    code, text = verify(out, capsys)
    assert code == 1 and "changed: p.pra" in text


def test_adding_a_report_keeps_the_other_hashes(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`earmark report` into the run folder adds report.html; a file changed before that
    stays changed (the addition does not re-bless the folder)."""
    from earmark.render.html import write_html_report

    page = write_html_report(run_dir)
    add_to_listing(run_dir, page)
    assert "report.html" in read_listing(run_dir / LISTING)
    assert verify(run_dir, capsys)[0] == 0
    (run_dir / "results.md").write_text("edited", "utf-8")
    assert add_to_listing(run_dir, page)
    code, text = verify(run_dir, capsys)
    assert code == 1 and "changed: results.md" in text and "report.html" not in text
    # Outside the folder, or in a folder without a listing: nothing to record.
    assert not add_to_listing(run_dir, run_dir.parent / "elsewhere.html")
    (run_dir / LISTING).unlink()
    assert not add_to_listing(run_dir, page)


def test_a_folder_without_a_listing_is_unavailable_not_failed(run_dir: Path) -> None:
    # A folder from before listings (and before the folder marker) has neither.
    (run_dir / LISTING).unlink()
    (run_dir / FOLDER_MARKER).unlink()
    assert check_artefacts(run_dir) is None
    report = _verify_dict(run_dir)
    (check,) = [c for c in report["checks"] if c["name"] == LISTING]
    assert check["status"] == "unavailable" and report["ok"]


def test_a_deleted_listing_fails_a_folder_whose_marker_says_run(run_dir: Path) -> None:
    """Issue 24 item 5: deleting the listing must not switch tamper detection off."""
    (run_dir / LISTING).unlink()
    report = _verify_dict(run_dir)
    (check,) = [c for c in report["checks"] if c["name"] == LISTING]
    assert check["status"] == "mismatch" and not report["ok"]
    assert check["detail"].startswith(
        f"no {LISTING}, but {FOLDER_MARKER} says `earmark run` made this folder"
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not a hash  results.json", "not a sha256sum line"),
        ("0" * 64 + "  ../outside.json", "leaves the folder"),
        ("0" * 64 + "  /etc/passwd", "leaves the folder"),
    ],
)
def test_a_malformed_listing_is_refused_with_its_line(
    tmp_path: Path, line: str, message: str
) -> None:
    (tmp_path / LISTING).write_text("0" * 64 + "  a.json\n" + line + "\n", "utf-8")
    with pytest.raises(EarmarkError, match=message) as caught:
        read_listing(tmp_path / LISTING)
    assert caught.value.line == 2
    report = _verify_dict_of_listing(tmp_path)
    assert report.status == "mismatch" and message in report.detail


def _verify_dict_of_listing(folder: Path):
    from earmark.verification import _check_artefacts

    return _check_artefacts(folder)


def test_write_artefacts_hashes_match_hashlib(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_bytes(b"{}\n")
    (tmp_path / "a.md").write_bytes("中文\n".encode())
    path = write_artefacts(tmp_path)
    a = hashlib.sha256("中文\n".encode()).hexdigest()
    b = hashlib.sha256(b"{}\n").hexdigest()
    assert path.read_text("utf-8") == f"{a}  a.md\n{b}  b.json\n"
