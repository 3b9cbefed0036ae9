"""`score --bootstrap-generator`: the faster generator is a named, recorded choice that
`verify` reproduces; the default keeps every result's bytes; a protocol keeps its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import earmark
from earmark.cli import main
from earmark.errors import EarmarkError

POISSON = "numpy-pcg64-poisson"


def _rows(n: int = 60) -> tuple[list[str], list[str]]:
    # Many identical clips (the Poisson generator draws groups of >= 4 by its table).
    refs = ["the cat sat on the mat"] * n + ["hello there world"] * n
    hyps = ["the cat sat on a mat"] * (n // 2) + ["the cat sat on the mat"] * (n - n // 2)
    hyps += ["hello world"] * (n // 3) + ["hello there world"] * (n - n // 3)
    return refs, hyps


def test_the_generator_is_recorded_and_verify_reproduces_it(tmp_path: Path) -> None:
    refs, hyps = _rows()
    out = tmp_path / "p"
    fast = earmark.score_rows(
        references=refs, hypotheses=hyps, normalizer="none", bootstrap_generator=POISSON, out=out
    )
    default = earmark.score_rows(references=refs, hypotheses=hyps, normalizer="none")
    recorded = json.loads((out / "results.json").read_text("utf-8"))["arms"]["rows"]
    assert recorded["bootstrap"]["generator"] == POISSON
    a, b = fast.arm().view("und").wer, default.arm().view("und").wer
    # The same point estimate (30 substitutions, 20 deletions of 540 words), other
    # intervals for the seed.
    assert a.value == b.value == pytest.approx(50 / 540)
    assert a.ci is not None and b.ci is not None and a.ci != b.ci
    assert main(["verify", str(out)]) == 0


def test_the_default_records_no_generator(tmp_path: Path) -> None:
    refs, hyps = _rows(8)
    out = tmp_path / "d"
    earmark.score_rows(references=refs, hypotheses=hyps, normalizer="none", out=out)
    recorded = json.loads((out / "results.json").read_text("utf-8"))["arms"]["rows"]
    assert "generator" not in recorded["bootstrap"]


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


@pytest.mark.parametrize("name", ["python-random", "\ud800", "a\x00b", "../x", "<b>", "x" * 10_000])
def test_an_unknown_generator_is_one_line(name: str) -> None:
    with pytest.raises(EarmarkError, match="bootstrap_generator"):
        earmark.score_rows(references=["a"], hypotheses=["a"], bootstrap_generator=name)
