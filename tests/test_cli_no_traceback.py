"""Bad input, unwritable outputs and full disks give one line on stderr, never a traceback
(issue 16, "Tracebacks"): OS errors name the path and exit 1, `EarmarkError` exits 2, and
anything unexpected prints one line saying where its full traceback was written.

The cases are chosen to fail as root too (root ignores file modes): an `--out` that is a
file or lies under one, a file-size limit set with `setrlimit` in the child, /dev/full.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from earmark.cli import describe_os_error, main
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.writer import write_manifest

SCORE = ["score", "--normalizer", "none", "--language", "en", "--bootstrap", "10", "--quiet"]


def earmark(tmp: Path, *args: str, fsize: int | None = None) -> tuple[int, list[str]]:
    """Run the CLI as a user does; returns the exit code and stderr's lines."""

    def limit() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    done = subprocess.run(
        [sys.executable, "-m", "earmark", *args],
        cwd=tmp,
        env={**os.environ, "TMPDIR": str(tmp)},
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
    )
    return done.returncode, done.stderr.splitlines()


def one_line(lines: list[str]) -> str:
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    return lines[0]


@pytest.fixture()
def preds(tmp_path: Path) -> Path:
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "a", "reference": "x y", "hypothesis": "x y"}\n', "utf-8")
    (tmp_path / "afile").write_text("not a folder\n", "utf-8")
    return path


def test_score_out_is_an_existing_file(tmp_path: Path, preds: Path) -> None:
    rc, err = earmark(tmp_path, *SCORE, str(preds), "--out", "afile")
    assert rc == 1
    assert one_line(err) == (
        "earmark: error: afile: is a file, where a directory is needed (hint: choose another path)"
    )


def test_score_out_under_a_file(tmp_path: Path, preds: Path) -> None:
    rc, err = earmark(tmp_path, *SCORE, str(preds), "--out", "afile/sub")
    assert rc == 1
    assert one_line(err) == (
        "earmark: error: afile/sub: a part of this path is a file, not a directory"
    )


def test_report_out_under_a_file(tmp_path: Path, preds: Path) -> None:
    assert main([*SCORE, str(preds), "--out", str(tmp_path / "run")]) == 0
    rc, err = earmark(tmp_path, "report", "run", "--out", "afile/report.html")
    assert rc == 1
    assert one_line(err).startswith("earmark: error: afile: is a file, where a directory")


def test_score_under_a_file_size_limit(tmp_path: Path, preds: Path) -> None:
    # `ulimit -f`: Python ignores SIGXFSZ, so the write fails with EFBIG.
    rc, err = earmark(tmp_path, *SCORE, str(preds), "--out", "out", fsize=512)
    assert rc == 1
    line = one_line(err)
    assert line.startswith("earmark: error: out/") and "file too large" in line


def _copy_to_full_disk(source: Path) -> None:
    with open(source, encoding="utf-8") as inp, open("/dev/full", "w", encoding="utf-8") as out:
        for line in inp:
            out.write(line)
            out.flush()


def test_write_error_without_a_file_name_names_the_file_being_written(preds: Path) -> None:
    # write() and flush() on a full disk raise an OSError that carries no file name; the
    # failing frame also holds the input file, which is not the one to name.
    with pytest.raises(OSError) as caught:
        _copy_to_full_disk(preds)
    assert caught.value.errno == errno.ENOSPC and caught.value.filename is None
    assert describe_os_error(caught.value) == (
        "/dev/full: no space left on the device (hint: free space, then rerun the command)"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file modes")
def test_score_out_in_a_read_only_folder(tmp_path: Path, preds: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    rc, err = earmark(tmp_path, *SCORE, str(preds), "--out", "locked/out")
    assert rc == 1 and "permission denied" in one_line(err)


def test_report_on_json_nested_100k_deep(tmp_path: Path, preds: Path) -> None:
    run = tmp_path / "deep"
    run.mkdir()
    (run / "results.json").write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    (run / "predictions.jsonl").write_text(preds.read_text("utf-8"), "utf-8")
    rc, err = earmark(tmp_path, "report", "deep")
    line = one_line(err)
    assert rc in (1, 2) and line.startswith("earmark: ")
    if rc == 1:  # not yet a reader's own error: the trace is in a file, named on the line
        crash = Path(line.split("full traceback in ")[1].split(" ")[0])
        assert crash.parent == tmp_path and "RecursionError" in crash.read_text("utf-8")


def test_unexpected_error_one_line_and_the_trace_in_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("a bug\non two lines")

    monkeypatch.setattr("earmark.render.html.write_html_report", broken)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # re-read TMPDIR
    assert main(["report", str(tmp_path)]) == 1
    line = one_line(capsys.readouterr().err.splitlines())
    assert line.startswith("earmark: internal error: ZeroDivisionError: a bug on two lines; ")
    (crash,) = tmp_path.glob("earmark-crash-*.txt")
    assert str(crash) in line
    text = crash.read_text("utf-8")
    assert "Traceback (most recent call last)" in text and "in broken" in text
    assert "argv: ['report'," in text


def test_interrupt_keeps_exit_130(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("earmark.render.html.write_html_report", interrupted)
    assert main(["report", "x"]) == 130
    assert "interrupted" in one_line(capsys.readouterr().err.splitlines())


def _corpus(root: Path, meta: dict[str, object] | None) -> Path:
    (root / "audio").mkdir(parents=True)
    tone = (np.sin(np.arange(16000) * 0.05) * 0.3).astype(np.float32)
    sf.write(root / "audio" / "a.wav", tone, 16000, subtype="PCM_16")
    manifest = root / "m.jsonl"
    rows = [Utterance("a", "audio/a.wav", "x y", "en")]
    write_manifest(manifest, rows, CorpusMeta(dataset="d", licence="CC0-1.0", consent_basis="s"))
    sidecar = root / "m.jsonl.meta.json"
    sidecar.unlink()
    if meta is None:
        sidecar.mkdir()
    else:
        sidecar.write_text(json.dumps(meta), "utf-8")
    (root / "h.jsonl").write_text('{"id": "a", "text": "x y"}\n', "utf-8")
    return manifest


def _run(tmp: Path, manifest: Path) -> tuple[int, list[str]]:
    args = ["run", "--manifest", str(manifest), "--audio-root", str(manifest.parent)]
    args += ["--arm", f"precomputed:{manifest.parent / 'h.jsonl'}", "--normalizer", "none"]
    return earmark(tmp, *args, "--out", "run")


def test_sidecar_that_is_a_directory(tmp_path: Path) -> None:
    manifest = _corpus(tmp_path / "c", None)
    rc, err = _run(tmp_path, manifest)
    assert rc == 2 and "m.jsonl.meta.json" in one_line(err)


@pytest.mark.parametrize("missing", ["licence", "consent_basis"])
def test_sidecar_without_licence_or_consent(tmp_path: Path, missing: str) -> None:
    meta = {"dataset": "d", "licence": "CC0-1.0", "consent_basis": "s"}
    del meta[missing]
    manifest = _corpus(tmp_path / "c", meta)
    rc, err = _run(tmp_path, manifest)
    assert rc == 2
    line = one_line(err)
    assert f"field '{missing}'" in line and "refusing to evaluate" in line


def test_import_out_naming_a_directory(tmp_path: Path) -> None:
    tone = (np.sin(np.arange(16000) * 0.05) * 0.3).astype(np.float32)
    sf.write(tmp_path / "a.wav", tone, 16000, subtype="PCM_16")
    nemo = tmp_path / "nemo.json"
    nemo.write_text('{"audio_filepath": "a.wav", "text": "x y", "duration": 1.0}\n', "utf-8")
    (tmp_path / "outdir").mkdir()
    args = ["import", "nemo", str(nemo), "--out", "outdir", "--language", "en", "--no-hash"]
    rc, err = earmark(tmp_path, *args, "--licence", "CC0-1.0", "--consent", "s", "--dataset", "d")
    assert rc == 2  # refused up front as a user error (importers check --out before writing)
    line = one_line(err)
    assert line.startswith("earmark: error: ") and "outdir: --out names a directory" in line
