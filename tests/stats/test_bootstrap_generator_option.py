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


def _gap_corpus(folder: Path, shift: int) -> Path:
    refs = ["the cat sat on the mat", "hello there world", "a b c d e", "one two three four"]
    rows = []
    for i in range(40):
        words = refs[i % 4].split()
        hyp = " ".join(words[: len(words) - ((i + shift) % 3)])
        rows.append(json.dumps({"id": f"u{i}", "reference": refs[i % 4], "hypothesis": hyp}))
    path = folder / f"corpus{shift}.jsonl"
    path.write_text("\n".join(rows) + "\n", "utf-8")
    return path


def test_a_gap_draws_every_interval_with_one_named_generator(tmp_path: Path) -> None:
    """The gap's own interval follows the generator, and gap.json names it; numpy-pcg64
    gives the numbers earmark gave before issue 25 (pinned from then). (Each corpus's own
    figures follow it once `scoring.row_counts.scope_metrics` passes it on.)"""
    from earmark.comparison.gap import corpus_gap
    from earmark.rundir.arm_inputs import load_arms

    (a,) = load_arms(str(_gap_corpus(tmp_path, 0)))
    (b,) = load_arms(str(_gap_corpus(tmp_path, 1)))
    old = corpus_gap(a, b, normalizer="none", resamples=400, seed=3, generator=UNNAMED_GENERATOR)
    new = corpus_gap(a, b, normalizer="none", resamples=400, seed=3)
    pinned = {
        ("gap", "wer"): [-0.08339932379937062, 0.09140982199331345],
        ("gap", "cer"): [-0.09846605740696804, 0.11479313208229239],
    }
    for (part, metric), ci in pinned.items():
        assert old[part][metric]["ci95"] == ci  # type: ignore[index,call-overload]
        assert new[part][metric]["ci95"] != ci  # type: ignore[index,call-overload]
    assert old["bootstrap"]["generator"] == UNNAMED_GENERATOR  # type: ignore[index,call-overload]
    assert new["bootstrap"]["generator"] == POISSON  # type: ignore[index,call-overload]
    assert new["gap"]["wer"]["value"] == old["gap"]["wer"]["value"]  # type: ignore[index,call-overload]


@pytest.mark.parametrize("bad", ['"python-random"', '"<b>"', "7", '"a\\u0000b"'])
def test_decision_rules_name_their_generator(tmp_path: Path, bad: str) -> None:
    """The paired bootstrap of `decide` draws with the rules' generator (default: the
    default), and its record names it; an unknown one is refused with the field."""
    from earmark.decisions.thresholds import DecisionRules

    rules = tmp_path / "rules.toml"
    assert DecisionRules().applied().generator == POISSON
    rules.write_text('[decision]\ngenerator = "numpy-pcg64"\n', "utf-8")
    assert DecisionRules.from_toml(rules).applied().generator == UNNAMED_GENERATOR
    rules.write_text(f"[decision]\ngenerator = {bad}\n", "utf-8")
    with pytest.raises(EarmarkError, match="generator"):
        DecisionRules.from_toml(rules)


@pytest.mark.parametrize("generator", [UNNAMED_GENERATOR, POISSON])
def test_multispeaker_draws_with_the_named_generator(generator: str) -> None:
    """multispeaker's interval over recordings is the stats function's with that generator,
    and its record names it."""
    pytest.importorskip("meeteval", reason="needs meeteval (.[multispeaker])")
    from earmark.scoring.multispeaker import Segment, score_segments
    from earmark.stats.bootstrap import bootstrap_cis

    ref, hyp = [], []
    for r in range(8):
        ref.append(Segment(f"r{r}", "A", 0.0, 2.0, "the cat sat on the mat"))
        ref.append(Segment(f"r{r}", "B", 2.0, 3.0, "hello world"))
        hyp.append(Segment(f"r{r}", "x", 0.0, 2.0, "the cat sat on a mat" if r % 2 else "the cat"))
        hyp.append(Segment(f"r{r}", "y", 2.0, 3.0, "hello world" if r % 3 else "hello"))
    result = score_segments(ref, hyp, ["cpwer"], resamples=300, seed=4, generator=generator)
    rows = result.metrics["cpwer"].recordings
    expected = bootstrap_cis(
        {"cpwer": ([s.counts.errors for s in rows], [s.counts.length for s in rows])},
        resamples=300,
        seed=4,
        generator=generator,
    )["cpwer"]
    assert result.metrics["cpwer"].ci == expected
    assert result.bootstrap.generator == generator


@pytest.mark.parametrize("generator", [None, UNNAMED_GENERATOR])
def test_postprocess_names_the_generator_it_drew_with(
    tmp_path: Path, generator: str | None
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    rows = [
        {"id": f"c{i}", "reference": "今天很好，我们走吧。", "hypothesis": "今天很好我们走吧"}
        for i in range(6)
    ]
    lines = [json.dumps({"status": "ok", "language": "zh", **r}, ensure_ascii=False) for r in rows]
    (run / "predictions.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    argv = ["postprocess", "--run", str(run), "--processor", "opencc:t2s", "--repeats", "1"]
    argv += ["--bootstrap", "50", "--out", str(tmp_path / "out"), "--quiet"]
    argv += [] if generator is None else ["--bootstrap-generator", generator]
    assert main(argv) == 0
    document = json.loads((tmp_path / "out" / "postprocess.json").read_text("utf-8"))
    assert document["summary"]["bootstrap"]["generator"] == (generator or POISSON)
