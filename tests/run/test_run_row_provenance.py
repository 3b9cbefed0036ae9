"""Per-row data provenance (the sidecar's `row_provenance: "required"`): every row must
carry `source` with a dataset and a declared licence, and run, validate and init-sidecar
refuse a row without it, naming its line and id. Without the field nothing changes."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.corpus.manifest import read_manifest, read_meta
from earmark.corpus.model import Source
from earmark.corpus.validation import validate_manifest
from earmark.corpus.writer import meta_path_for, write_manifest
from earmark.errors import EarmarkError


def _require(manifest: Path, sources: list[Source | None]) -> None:
    """Give row i `sources[i]` and mark the sidecar `row_provenance: required`."""
    rows = [replace(u, source=s) for u, s in zip(read_manifest(manifest), sources, strict=True)]
    meta = replace(read_meta(manifest), row_provenance="required")
    write_manifest(manifest, rows, meta)


def _run(manifest: Path, fake_asr: str, out: Path) -> int:
    return main(
        ["run", "--manifest", str(manifest), "--arm", f"command:{fake_asr} {{audio}}?name=fake",
         "--normalizer", "none", "--bootstrap", "0", "--out", str(out), "--quiet"]
    )  # fmt: skip


GOOD = Source(dataset="tones", licence="CC0-1.0")


@pytest.mark.parametrize(
    ("second", "missing"),
    [
        (None, "source"),
        (Source(licence="CC0-1.0"), "source.dataset"),
        (Source(dataset="tones", licence="unknown"), "source.licence"),
        (Source(dataset="tones"), "source.licence"),
    ],
)
def test_a_row_without_provenance_is_refused_before_anything_runs(
    tmp_path: Path,
    fake_asr: str,
    corpus_factory,
    capsys: pytest.CaptureFixture[str],
    second: Source | None,
    missing: str,
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 3)
    _require(manifest, [GOOD, second, GOOD])
    out = tmp_path / "run"
    assert _run(manifest, fake_asr, out) == 2
    err = capsys.readouterr().err
    assert f"manifest.jsonl:2: field '{missing}': row 'c001' has no {missing}" in err
    assert not (out / "predictions.jsonl").exists()
    report = validate_manifest(manifest)
    assert not report.ok and f"no {missing}" in (report.licence_problem or "")


def test_rows_that_all_say_where_they_came_from_run(
    tmp_path: Path, fake_asr: str, corpus_factory
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 3)
    _require(manifest, [GOOD, GOOD, Source(dataset="other", split="test", licence="CC-BY-4.0")])
    assert validate_manifest(manifest).ok
    out = tmp_path / "run"
    assert _run(manifest, fake_asr, out) == 0
    rows = (out / "predictions.jsonl").read_text("utf-8").splitlines()
    assert len(rows) == 3


def test_without_the_field_rows_need_no_source(tmp_path: Path, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    assert read_meta(manifest).row_provenance is None
    assert "row_provenance" not in json.loads(meta_path_for(manifest).read_text("utf-8"))
    assert validate_manifest(manifest).ok


def test_an_unknown_value_is_refused(tmp_path: Path, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 1)
    sidecar = meta_path_for(manifest)
    data = json.loads(sidecar.read_text("utf-8"))
    sidecar.write_text(json.dumps({**data, "row_provenance": "yes"}), "utf-8")
    with pytest.raises(EarmarkError, match="unknown row_provenance 'yes'") as caught:
        read_meta(manifest)
    assert caught.value.field == "row_provenance"


def test_init_sidecar_sets_and_clears_it_and_checks_the_rows_first(
    tmp_path: Path, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    init = ["manifest", "init-sidecar", str(manifest), "--licence", "CC0-1.0",
            "--consent", "synthetic", "--force"]  # fmt: skip
    # The rows carry no source yet: the sidecar that would refuse every run is not written.
    assert main([*init, "--require-row-provenance"]) == 2
    assert "row 'c000' has no source" in capsys.readouterr().err
    assert read_meta(manifest).row_provenance is None
    _require(manifest, [GOOD, GOOD])
    meta = replace(read_meta(manifest), row_provenance=None)
    write_manifest(manifest, list(read_manifest(manifest)), meta)
    assert main([*init, "--require-row-provenance"]) == 0
    assert read_meta(manifest).row_provenance == "required"
    assert main(init) == 0  # --force keeps what is not given
    assert read_meta(manifest).row_provenance == "required"
    assert main([*init, "--no-require-row-provenance"]) == 0
    assert read_meta(manifest).row_provenance is None
