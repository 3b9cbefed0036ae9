"""The model-licence gate before a run (issue 23, seed 000): with a sidecar that requires
it (`"model_licence": "required"`), `earmark run` refuses an arm whose model licence is
not declared in its settings, naming the arm and the settings, before anything runs."""

from __future__ import annotations

import inspect
from dataclasses import replace
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.corpus.manifest import read_manifest, read_meta
from earmark.corpus.writer import write_manifest
from earmark.decisions.gates import licence_gate

DECLARED = "licence=MIT&licence_source=https://example.org/model-card"


def _gate(manifest: Path, value: str | None = "required") -> None:
    write_manifest(
        manifest, read_manifest(manifest), replace(read_meta(manifest), model_licence=value)
    )


def _run(manifest: Path, out: Path, *arms: str) -> int:
    args = ["run", "--manifest", str(manifest)]
    for arm in arms:
        args += ["--arm", arm]
    return main([*args, "--normalizer", "none", "--bootstrap", "0", "--out", str(out), "--quiet"])


@pytest.mark.parametrize(
    ("settings", "missing"),
    [
        ("", ["model licence not recorded (licence=)", "model licence source not recorded"]),
        ("&licence=MIT", ["model licence source not recorded (licence_source=)"]),
        ("&licence=unknown&licence_source=card", ["model licence not recorded (licence=)"]),
        ("&licence=%20&licence_source=card", ["model licence not recorded (licence=)"]),
    ],
    ids=["none", "no-source", "unknown", "blank"],
)
def test_an_undeclared_model_licence_is_refused_before_anything_runs(
    tmp_path: Path, fake_asr: str, corpus_factory, capsys, settings: str, missing: list[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    _gate(manifest)
    out = tmp_path / "run"
    assert _run(manifest, out, f"command:{fake_asr} {{audio}}?name=fake{settings}") == 2
    err = capsys.readouterr().err
    assert "arm 'fake': " in err and "requires a declared model licence" in err
    for problem in missing:
        assert problem in err
    assert "licence=ID&licence_source=WHERE" in err
    assert not out.exists()


def test_every_arm_is_checked_and_the_first_undeclared_one_named(
    tmp_path: Path, fake_asr: str, corpus_factory, capsys
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    _gate(manifest)
    good = f"command:{fake_asr} {{audio}}?name=good&{DECLARED}"
    bad = f"command:{fake_asr} {{audio}}?name=bad"
    assert _run(manifest, tmp_path / "run", good, bad) == 2
    assert "arm 'bad': model licence not recorded" in capsys.readouterr().err


def test_a_declared_licence_runs_and_is_recorded(
    tmp_path: Path, fake_asr: str, corpus_factory
) -> None:
    import json

    manifest = corpus_factory(tmp_path / "corpus", 2)
    _gate(manifest)
    out = tmp_path / "run"
    assert _run(manifest, out, f"command:{fake_asr} {{audio}}?name=fake&{DECLARED}") == 0
    model = json.loads((out / "arms" / "fake" / "model.json").read_text("utf-8"))
    assert model["licence"] == "MIT"
    assert model["licence_source"] == "https://example.org/model-card"


def test_without_the_sidecar_field_nothing_changes(
    tmp_path: Path, fake_asr: str, corpus_factory
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    assert read_meta(manifest).model_licence is None
    assert "model_licence" not in read_meta(manifest).to_dict()
    assert _run(manifest, tmp_path / "run", f"command:{fake_asr} {{audio}}?name=fake") == 0


@pytest.mark.parametrize("value", ["yes", "REQUIRED", "required\x00", "r" * 10_000])
def test_an_unknown_gate_value_is_refused(
    tmp_path: Path, fake_asr: str, corpus_factory, capsys, value: str
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    _gate(manifest, value)
    assert (
        _run(manifest, tmp_path / "run", f"command:{fake_asr} {{audio}}?name=fake&{DECLARED}") == 2
    )
    err = capsys.readouterr().err
    assert "unknown model_licence" in err and "model_licence" in err
    assert "Traceback" not in err and len(err) < 1_000  # one line, the value cut short


def test_the_wording_is_decides_own() -> None:
    source = inspect.getsource(licence_gate)
    assert "model licence not recorded (licence=)" in source
    assert "model licence source not recorded (licence_source=)" in source
