"""`score --bootstrap-generator`: the default (`numpy-pcg64-poisson`) and `numpy-pcg64` are
named, recorded choices that `verify` reproduces; results that name no generator (every one
written before issue 25) were drawn with `numpy-pcg64` and still verify; a protocol keeps
its own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import earmark
from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.protocols import get_protocol
from earmark.stats.settings import DEFAULT_GENERATOR, UNNAMED_GENERATOR, BootstrapSettings

POISSON = "numpy-pcg64-poisson"
#: `score_rows` of `_rows()` with 500 resamples by earmark before issue 25 (its default
#: generator, numpy-pcg64, then unnamed in results): an old results folder, kept as written.
OLD_FOLDER = Path(__file__).parent / "data" / "unnamed-generator"


def _rows(n: int = 60) -> tuple[list[str], list[str]]:
    # Many identical clips (the Poisson generator draws groups of >= 4 by its table).
    refs = ["the cat sat on the mat"] * n + ["hello there world"] * n
    hyps = ["the cat sat on a mat"] * (n // 2) + ["the cat sat on the mat"] * (n - n // 2)
    hyps += ["hello world"] * (n // 3) + ["hello there world"] * (n - n // 3)
    return refs, hyps


def _bootstrap(out: Path) -> dict[str, object]:
    arm = json.loads((out / "results.json").read_text("utf-8"))["arms"]["rows"]
    record: dict[str, object] = arm["bootstrap"]
    return record


def test_the_default_is_the_poisson_generator() -> None:
    assert DEFAULT_GENERATOR == POISSON and UNNAMED_GENERATOR == "numpy-pcg64"
    assert BootstrapSettings().generator == POISSON


def test_both_generators_are_recorded_and_verify_reproduces_them(tmp_path: Path) -> None:
    refs, hyps = _rows()
    default = earmark.score_rows(
        references=refs, hypotheses=hyps, normalizer="none", out=tmp_path / "d"
    )
    old = earmark.score_rows(
        references=refs,
        hypotheses=hyps,
        normalizer="none",
        bootstrap_generator=UNNAMED_GENERATOR,
        out=tmp_path / "o",
    )
    assert _bootstrap(tmp_path / "d")["generator"] == POISSON
    assert _bootstrap(tmp_path / "o")["generator"] == UNNAMED_GENERATOR
    a, b = default.arm().view("und").wer, old.arm().view("und").wer
    # The same point estimate (30 substitutions, 20 deletions of 540 words), other
    # intervals for the seed.
    assert a.value == b.value == pytest.approx(50 / 540)
    assert a.ci is not None and b.ci is not None and a.ci != b.ci
    assert main(["verify", str(tmp_path / "d")]) == 0
    assert main(["verify", str(tmp_path / "o")]) == 0


def test_a_result_naming_no_generator_was_drawn_with_numpy_pcg64(tmp_path: Path) -> None:
    """An old folder verifies (redrawn with numpy-pcg64), and only numpy-pcg64 gives its
    intervals: the default draws others for the same rows and seed."""
    folder = tmp_path / "old"
    shutil.copytree(OLD_FOLDER, folder)
    assert "generator" not in _bootstrap(folder)
    assert main(["verify", str(folder)]) == 0
    recorded = json.loads((folder / "results.json").read_text("utf-8"))["arms"]["rows"]
    old_ci = recorded["overall"]["views"]["raw"]["wer"]["ci95"]
    refs, hyps = _rows()
    kwargs = {"references": refs, "hypotheses": hyps, "normalizer": "none", "bootstrap": 500}
    again = earmark.score_rows(**kwargs, bootstrap_generator=UNNAMED_GENERATOR)  # type: ignore[arg-type]
    default = earmark.score_rows(**kwargs)  # type: ignore[arg-type]
    assert list(again.arm().view("und").wer.ci or ()) == old_ci
    assert list(default.arm().view("und").wer.ci or ()) != old_ci


def test_a_protocol_keeps_its_own_generator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ref.txt").write_text("a b\n", "utf-8")
    (tmp_path / "hyp.txt").write_text("a c\n", "utf-8")
    argv = ["score", str(tmp_path / "hyp.txt"), "--refs", str(tmp_path / "ref.txt")]
    argv += ["--format", "lines", "--protocol", "blasbench-v1", "--bootstrap-generator", POISSON]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "fixes its own bootstrap generator" in err


def test_a_protocol_draws_with_numpy_pcg64(tmp_path: Path) -> None:
    """mmv-punct-v024 names numpy-pcg64: its figures stay as published, not the default's."""
    refs, hyps = _rows()
    out = tmp_path / "p"
    earmark.score_rows(references=refs, hypotheses=hyps, protocol="mmv-punct-v024", out=out)
    assert _bootstrap(out)["generator"] == UNNAMED_GENERATOR
    arm = json.loads((out / "results.json").read_text("utf-8"))["arms"]["rows"]
    assert arm["punctuation"]["bootstrap"]["generator"] == UNNAMED_GENERATOR
    assert main(["verify", str(out)]) == 0
    with pytest.raises(EarmarkError, match="draws its intervals with numpy-pcg64"):
        ScoringOptions(
            policy=NormalizerPolicy.parse("mmv-cer-v1"),
            bootstrap=BootstrapSettings(seed=20260926),
            protocol=get_protocol("mmv-punct-v024"),
        )


@pytest.mark.parametrize("name", ["python-random", "\ud800", "a\x00b", "../x", "<b>", "x" * 10_000])
def test_an_unknown_generator_is_one_line(name: str) -> None:
    with pytest.raises(EarmarkError, match="bootstrap_generator"):
        earmark.score_rows(references=["a"], hypotheses=["a"], bootstrap_generator=name)


@pytest.mark.parametrize("name", ["python-random", "\ud800", "<b>", "x" * 10_000, 7, None])
def test_verify_of_a_tampered_generator_is_a_mismatch(tmp_path: Path, name: object) -> None:
    """A recorded generator earmark does not know is a mismatch, not a crash (nor a pass)."""
    folder = tmp_path / "old"
    shutil.copytree(OLD_FOLDER, folder)
    path = folder / "results.json"
    results = json.loads(path.read_text("utf-8"))
    results["arms"]["rows"]["bootstrap"]["generator"] = name
    path.write_text(json.dumps(results), "utf-8")
    assert main(["verify", str(folder)]) == 1
