"""CLI options that cost trust when wrong: numbers and paths are validated while parsing,
`manifest validate --check-audio` reads the audio `run` reads, `manifest init-sidecar`
writes what the licence gate needs, `run --device/--batch-size` reach the arms, and
`--csv` writes a spreadsheet-safe per-utterance table."""

from __future__ import annotations

import argparse
import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from earmark.cli import arguments, main
from earmark.corpus.demo import demo_audio_root, demo_manifest_path
from earmark.engines.registry import validate_arm
from earmark.engines.spec import parse_arm_spec
from earmark.errors import EarmarkError
from earmark.execution.run_request import (
    BATCH_BACKENDS,
    DEVICE_BACKENDS,
    with_batch_size,
    with_device,
)


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refusals and --help
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- types


def test_argument_types_accept_their_range_and_refuse_the_rest() -> None:
    assert arguments.non_negative_int("0") == 0
    assert arguments.positive_int("1") == 1
    assert arguments.positive_float("0.5") == 0.5
    assert arguments.non_negative_float("0") == 0.0
    assert arguments.share("0") == 0.0 and arguments.share("1") == 1.0
    assert arguments.output_path("runs/a") == "runs/a"
    refused = [
        (arguments.non_negative_int, "-1"),
        (arguments.non_negative_int, "1.5"),
        (arguments.positive_int, "0"),
        (arguments.positive_int, "ten"),
        (arguments.positive_float, "0"),
        (arguments.positive_float, "nan"),
        (arguments.non_negative_float, "-0.1"),
        (arguments.non_negative_float, "inf"),
        (arguments.share, "1.01"),
        (arguments.share, "-0.5"),
        (arguments.output_path, "-"),
        (arguments.output_path, ""),
        (arguments.output_path, "   "),
    ]
    for parse, text in refused:
        with pytest.raises(argparse.ArgumentTypeError):
            parse(text)


BAD_VALUES = [
    (["score", "p.jsonl", "--normalizer", "en-v1", "--out", "o", "--bootstrap", "-5"], "--bootstrap"),
    (["score", "p.jsonl", "--normalizer", "en-v1", "--out", "o", "--bootstrap", "1.5"], "--bootstrap"),
    (["score", "p.jsonl", "--normalizer", "en-v1", "--out", "o", "--show-alignments", "-1"], "--show-alignments"),
    (["run", "--manifest", "m.jsonl", "--arm", "x:y", "--out", "o", "--repeats", "0"], "--repeats"),
    (["run", "--manifest", "m.jsonl", "--arm", "x:y", "--out", "o", "--threads", "0"], "--threads"),
    (["run", "--manifest", "m.jsonl", "--arm", "x:y", "--out", "o", "--batch-size", "0"], "--batch-size"),
    (["run", "--manifest", "m.jsonl", "--arm", "x:y", "--out", "o", "--first", "-3"], "--first"),
    (["run", "--manifest", "m.jsonl", "--arm", "x:y", "--out", "o", "--ray-actors", "0"], "--ray-actors"),
    (["run", "--manifest", "m.jsonl", "--arm", "x:y", "--out", "o", "--ray-cpus-per-actor", "0"], "--ray-cpus-per-actor"),
    (["run", "--manifest", "m.jsonl", "--arm", "x:y", "--out", "o", "--ray-gpus-per-actor", "-1"], "--ray-gpus-per-actor"),
    (["run", "--manifest", "m.jsonl", "--arm", "x:y", "--out", "o", "--device", "tpu"], "--device"),
    (["compare", "a", "--normalizer", "en-v1", "--out", "o", "--bootstrap", "-5"], "--bootstrap"),
    (["demo", "--bootstrap", "-5"], "--bootstrap"),
    (["postprocess", "--run", "r", "--processor", "opencc:s2t", "--out", "o", "--repeats", "0"], "--repeats"),
    (["leaderboard", "r", "--out", "o", "--min-coverage", "1.5"], "--min-coverage"),
    (["decide", "--baseline", "a", "--challenger", "b", "--out", "o", "--min-coverage", "-0.1"], "--min-coverage"),
    (["report", "r", "--worst", "-2"], "--worst"),
    (["fetch", "fleurs", "--languages", "ga_ie", "--per-language", "0", "--out", "o"], "--per-language"),
    (["manifest", "select", "m.jsonl", "--out", "o.jsonl", "--first", "-1"], "--first"),
    (["manifest", "select", "m.jsonl", "--out", "o.jsonl", "--fraction", "2"], "--fraction"),
]  # fmt: skip


@pytest.mark.parametrize(
    "argv,flag", BAD_VALUES, ids=[" ".join(a[:1] + [f]) for a, f in BAD_VALUES]
)
def test_out_of_range_numbers_are_refused_in_one_line(
    argv: list[str], flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(argv, capsys)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert f"argument {flag}" in lines[0] and "--help" in lines[0]
    assert list(tmp_path.iterdir()) == []  # nothing written


OUT_COMMANDS = [
    ["score", "p.jsonl", "--normalizer", "en-v1"],
    ["run", "--manifest", "m.jsonl", "--arm", "x:y"],
    ["compare", "a", "--normalizer", "en-v1"],
    ["leaderboard", "r"],
    ["decide", "--baseline", "a", "--challenger", "b"],
    ["report", "r"],
    ["postprocess", "--run", "r", "--processor", "opencc:s2t"],
    ["demo"],
    ["import", "nemo", "n.json"],
    ["fetch", "fleurs", "--languages", "ga_ie", "--per-language", "1"],
    ["manifest", "select", "m.jsonl"],
]


@pytest.mark.parametrize("value", ["-", ""])
@pytest.mark.parametrize("argv", OUT_COMMANDS, ids=[" ".join(a[:2]) for a in OUT_COMMANDS])
def test_out_dash_or_empty_is_refused_and_creates_nothing(
    argv: list[str],
    value: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli([*argv, "--out", value], capsys)
    assert code == 2
    assert "argument --out" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "-").exists()
    assert list(tmp_path.iterdir()) == []


def test_a_valid_score_still_runs_after_validation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pred = tmp_path / "p.jsonl"
    pred.write_text(json.dumps({"id": "a", "reference": "a b", "hypothesis": "a c"}) + "\n")
    code, _, err = run_cli(
        [
            "score", str(pred), "--normalizer", "none", "--language", "en", "--bootstrap", "0",
            "--show-alignments", "0", "--out", str(tmp_path / "o"), "--quiet",
        ],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    results = json.loads((tmp_path / "o" / "results.json").read_text("utf-8"))
    arm = next(iter(results["arms"].values()))
    assert arm["bootstrap"]["resamples"] == 0  # 0 is allowed: no confidence intervals
    assert arm["overall"]["views"]["raw"]["wer"]["ci95"] is None


# --------------------------------------------------------------------------- manifest


def _corpus_with_recorded_root(tmp_path: Path) -> Path:
    """Two demo clips under tmp/data/audio, the manifest in tmp/manifests with
    `extra.audio_root = "../data"` (as an importer writes it)."""
    rows = [
        json.loads(line)
        for line in demo_manifest_path().read_text("utf-8").splitlines()
        if line.strip()
    ][:2]
    (tmp_path / "data" / "audio").mkdir(parents=True)
    for row in rows:
        shutil.copy(demo_audio_root() / row["audio"], tmp_path / "data" / row["audio"])
    manifest = tmp_path / "manifests" / "m.jsonl"
    manifest.parent.mkdir()
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    meta = {
        "dataset": "demo-pair",
        "licence": "MIT",
        "consent_basis": "synthetic speech",
        "extra": {"audio_root": "../data"},
    }
    Path(f"{manifest}.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return manifest


def test_validate_check_audio_uses_the_audio_root_run_uses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from earmark.execution.plan import default_audio_root

    manifest = _corpus_with_recorded_root(tmp_path)
    assert default_audio_root(manifest.resolve()) == (tmp_path / "data").resolve()
    code, out, err = run_cli(
        ["manifest", "validate", str(manifest), "--check-audio", "--json"], capsys
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["problems"] == []
    assert report["rows"] == 2
    # An explicit --audio-root still wins: the manifest's own folder has no audio.
    code, out, _ = run_cli(
        ["manifest", "validate", str(manifest), "--check-audio", "--json",
         "--audio-root", str(manifest.parent)],
        capsys,
    )  # fmt: skip
    assert code == 1
    assert len(json.loads(out)["problems"]) == 2


def test_init_sidecar_writes_what_the_gate_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from earmark.corpus.manifest import read_meta

    manifest = _corpus_with_recorded_root(tmp_path)
    sidecar = Path(f"{manifest}.meta.json")
    sidecar.unlink()
    # Without a sidecar, the refusal points to the command that writes one.
    code, out, _ = run_cli(["manifest", "validate", str(manifest)], capsys)
    assert code == 1 and "REFUSED" in out and "earmark manifest init-sidecar" in out
    with pytest.raises(EarmarkError) as info:
        read_meta(manifest)
    assert "earmark manifest init-sidecar MANIFEST --licence" in (info.value.hint or "")
    code, out, err = run_cli(
        ["manifest", "init-sidecar", str(manifest), "--licence", "CC-BY-4.0",
         "--consent", "speakers consented to public release", "--dataset", "pair",
         "--url", "https://example.org/pair", "--redistribute-audio"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    meta = read_meta(manifest)
    assert (meta.dataset, meta.licence, meta.consent_basis, meta.url) == (
        "pair",
        "CC-BY-4.0",
        "speakers consented to public release",
        "https://example.org/pair",
    )
    assert (meta.redistribute_audio, meta.redistribute_transcripts) == (True, False)
    code, out, _ = run_cli(["manifest", "validate", str(manifest), "--json"], capsys)
    assert code == 0 and json.loads(out)["licence_problem"] is None

    # No silent overwrite.
    before = sidecar.read_bytes()
    code, _, err = run_cli(
        ["manifest", "init-sidecar", str(manifest), "--licence", "MIT", "--consent", "x"], capsys
    )
    assert code == 2 and "--force" in err and len(err.strip().splitlines()) == 1
    assert sidecar.read_bytes() == before


def test_init_sidecar_force_keeps_importer_fields_and_refuses_undeclared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from earmark.corpus.manifest import read_meta

    manifest = _corpus_with_recorded_root(tmp_path)
    code, _, err = run_cli(
        ["manifest", "init-sidecar", str(manifest), "--force", "--licence", "CC0-1.0",
         "--consent", "public domain dedication", "--no-redistribute-audio",
         "--redistribute-transcripts"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    meta = read_meta(manifest)
    assert meta.extra == {"audio_root": "../data"}  # run still finds the audio
    assert (meta.dataset, meta.licence) == ("demo-pair", "CC0-1.0")
    assert (meta.redistribute_audio, meta.redistribute_transcripts) == (False, True)
    before = Path(f"{manifest}.meta.json").read_bytes()
    for flag, value in (("--licence", "unknown"), ("--consent", " ")):
        argv = ["manifest", "init-sidecar", str(manifest), "--force",
                "--licence", "MIT", "--consent", "given"]  # fmt: skip
        argv[argv.index(flag) + 1] = value
        code, _, err = run_cli(argv, capsys)
        assert code == 2 and f"{flag} {value!r} declares nothing" in err
    assert Path(f"{manifest}.meta.json").read_bytes() == before
    code, _, err = run_cli(
        ["manifest", "init-sidecar", str(tmp_path / "nope.jsonl"), "--licence", "MIT",
         "--consent", "x"],
        capsys,
    )  # fmt: skip
    assert code == 2 and "manifest not found" in err
    assert not (tmp_path / "nope.jsonl.meta.json").exists()


# --------------------------------------------------------------------------- run --device


def test_every_device_backend_accepts_device_and_batch_backends_batch_size(
    tmp_path: Path,
) -> None:
    """The backend lists match what each backend's settings reader accepts."""
    model = {"faster-whisper": "bundled:tiny.en"}
    for backend in DEVICE_BACKENDS:
        validate_arm(parse_arm_spec(f"{backend}:{model.get(backend, tmp_path)}?device=cuda"))
    for backend in BATCH_BACKENDS:
        validate_arm(parse_arm_spec(f"{backend}:{tmp_path}?batch_size=8"))
    with pytest.raises(EarmarkError, match="unknown setting"):
        validate_arm(parse_arm_spec(f"vosk:{tmp_path}?device=cuda"))
    with pytest.raises(EarmarkError, match="unknown setting"):
        validate_arm(parse_arm_spec("faster-whisper:bundled:tiny.en?batch_size=8"))


def test_with_device_and_batch_size_fill_only_unset_settings() -> None:
    arms = (
        parse_arm_spec("faster-whisper:bundled:tiny.en"),
        parse_arm_spec("transformers-ctc:/m?device=cpu&batch_size=2"),
        parse_arm_spec("vosk:/v"),
    )
    filled = with_batch_size(with_device(arms, "cuda"), 16)
    assert [a.settings_dict for a in filled] == [
        {"device": "cuda"},
        {"device": "cpu", "batch_size": "2"},  # the arm's own settings win
        {},
    ]
    assert [a.name for a in filled] == [a.name for a in arms]  # labels are kept
    assert filled[0].canonical() != arms[0].canonical()  # so rows are not reused
    assert with_device(arms, None) == arms and with_batch_size(arms, None) == arms
    with pytest.raises(EarmarkError, match="no arm here takes a device"):
        with_device((arms[2],), "cpu")


def _captured_plan(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Keep the plan the command hands to the runner, and run nothing."""
    import earmark.execution.runner as runner
    from earmark.results import RESULTS_SCHEMA, Results

    seen: dict[str, Any] = {}

    def capture(plan: Any, out: Any, options: Any) -> Results:
        seen["plan"] = plan
        return Results(schema=RESULTS_SCHEMA, earmark_version="", created="", arms={}, probes=())

    monkeypatch.setattr(runner, "run_plan", capture)
    monkeypatch.setattr("earmark.render.terminal.print_summary", lambda *a, **k: None)
    return seen


def test_run_device_and_batch_size_reach_the_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _captured_plan(monkeypatch)
    code, _, err = run_cli(
        ["run", "--manifest", str(demo_manifest_path()), "--out", str(tmp_path / "r"),
         "--arm", "faster-whisper:bundled:tiny.en", "--arm", f"transformers-ctc:{tmp_path}",
         "--device", "cpu", "--batch-size", "4", "--quiet"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    plan = seen["plan"]
    assert plan.batch_size == 4
    assert [a.settings_dict for a in plan.arms] == [
        {"device": "cpu"},
        {"device": "cpu", "batch_size": "4"},
    ]
    assert plan.to_dict()["batch_size"] == 4


def test_run_device_and_batch_size_with_a_plan_file_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(
        f'manifest = "{demo_manifest_path()}"\n'
        '[[arms]]\nbackend = "faster-whisper"\nmodel = "bundled:tiny.en"\n',
        encoding="utf-8",
    )
    code, _, err = run_cli(
        ["run", "--plan", str(plan), "--out", str(tmp_path / "r"), "--device", "cpu"], capsys
    )
    assert code == 2 and "go in the plan file" in err
    assert not (tmp_path / "r").exists()


def test_run_device_cuda_without_a_gpu_is_one_line_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ctranslate2 = pytest.importorskip("ctranslate2", reason="needs the faster-whisper extra")
    if ctranslate2.get_cuda_device_count() > 0:
        pytest.skip("this machine has a CUDA device")
    code, out, err = run_cli(
        ["run", "--manifest", str(demo_manifest_path()), "--out", str(tmp_path / "r"),
         "--arm", "faster-whisper:bundled:tiny.en", "--device", "cuda", "--first", "1"],
        capsys,
    )  # fmt: skip
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert "asks for device cuda, but ctranslate2 sees no CUDA device" in lines[0]
    assert "--device cpu" in lines[0]
    assert not (tmp_path / "r").exists()


# --------------------------------------------------------------------------- --csv


def test_score_csv_reads_back_with_counts_and_formula_guard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"id": "a", "reference": "the cat sat", "hypothesis": "the cat sit", "language": "en"},
        {"id": "b", "reference": "你好世界", "hypothesis": "你好", "language": "zh"},
        {"id": "c", "reference": "", "hypothesis": '=HYPERLINK("x")', "language": "en"},
        {"id": "-d", "reference": 'say "hi", then\nleave', "hypothesis": "@me", "language": "en"},
        {"id": "e", "reference": "", "hypothesis": "", "language": "en"},
    ]
    pred = tmp_path / "p.jsonl"
    pred.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    out = tmp_path / "o"
    code, stdout, err = run_cli(
        ["score", str(pred), "--normalizer", "auto", "--bootstrap", "1", "--out", str(out),
         "--csv"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    path = out / "predictions.csv"
    assert f"wrote {path}" in stdout
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 BOM, for Excel
    with open(path, encoding="utf-8-sig", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [r["id"] for r in table] == ["a", "b", "c", "'-d", "e"]
    by_id = {r["id"]: r for r in table}
    a, b, c, d, e = (by_id[k] for k in ("a", "b", "c", "'-d", "e"))
    assert (a["arm"], a["language"], a["normalizer"], a["view"], a["metric"]) == (
        "p", "en", "en-v1", "normalized", "wer",
    )  # fmt: skip
    assert (a["substitutions"], a["deletions"], a["insertions"], a["errors"]) == (
        "1",
        "0",
        "0",
        "1",
    )
    assert a["ref_units"] == "3" and float(a["rate"]) == pytest.approx(1 / 3)
    assert (b["normalizer"], b["metric"], b["deletions"], b["ref_units"]) == (
        "zh-eval-v1", "cer", "2", "4",
    )  # fmt: skip
    assert float(b["rate"]) == 0.5
    assert b["reference"] == "你好世界"
    # A formula is shown, never evaluated; an empty reference with output rates 1.
    assert c["hypothesis"] == '\'=HYPERLINK("x")'
    assert (c["ref_units"], float(c["rate"])) == ("0", 1.0)
    assert (e["errors"], float(e["rate"])) == ("0", 0.0)
    # Quotes, commas and a line break stay in one cell.
    assert d["reference"] == 'say "hi", then\nleave'
    assert d["hypothesis"] == "'@me"
    assert all(r["status"] == "ok" and r["repeat"] == "0" for r in table)


def test_guard_cell_prefixes_only_formula_starts() -> None:
    from earmark.render.predictions_csv import guard_cell

    for text in ("=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"):
        assert guard_cell(text) == "'" + text
    for text in ("", "hello", "1-2", "a=b", "'quoted"):
        assert guard_cell(text) == text


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "r", "--json", "-"],
        ["import", "hf-datasets", "d", "--out", "m.jsonl", "--audio-dir", ""],
    ],
)
def test_other_output_paths_refuse_dash_and_empty(
    argv: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(argv, capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "argument --" in err
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- flags defined once

#: Flags several subcommands share: each is spelled only in `earmark.cli.options`. The
#: exceptions mean something else where they stand: `manifest select --seed` seeds a hash
#: subset (a string), `verify --json FILE` writes a file, `multispeaker --normalizer`
#: takes one word normaliser, not a policy.
SHARED_FLAGS = (
    "--out", "--quiet", "--bootstrap", "--seed", "--normalizer", "--protocol", "--aggregate",
    "--exclude-unmatched", "--csv", "--json", "--expect-sha256", "--cluster",
    "--min-per-slice", "--min-speakers",
)  # fmt: skip
OWN_MEANING = {
    ("manifest.py", "--seed"),
    ("verify.py", "--json"),
    ("multispeaker.py", "--normalizer"),
}


def test_shared_flags_are_defined_once() -> None:
    cli = Path(arguments.__file__).parent
    spelled = {
        (path.name, flag)
        for path in cli.glob("*.py")
        if path.name != "options.py"
        for flag in SHARED_FLAGS
        if f'"{flag}"' in path.read_text("utf-8")
    }
    assert spelled == OWN_MEANING


def test_every_out_and_bootstrap_is_checked_the_same_way() -> None:
    from test_cli_help import ALL

    for path, parser in ALL:
        for action in parser._actions:
            if "--out" in action.option_strings:
                assert action.type is arguments.output_path, path
            if "--bootstrap" in action.option_strings:
                assert action.type is arguments.non_negative_int and action.metavar == "B", path


def test_the_protocols_named_in_help_are_the_registry() -> None:
    from earmark.cli.options import PROTOCOLS
    from earmark.scoring.protocols import available_protocols

    assert sorted(PROTOCOLS) == available_protocols()


def test_the_extra_metrics_offered_are_the_scorers() -> None:
    from earmark.api.scoring import EXTRA_METRICS
    from earmark.scoring.metric import EXTRA_METRICS as SCORED

    assert EXTRA_METRICS == SCORED
