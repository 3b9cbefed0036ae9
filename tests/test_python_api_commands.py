"""One Python function per subcommand (`earmark.run`, `earmark.compare`, ...).

Two things are pinned: every function's signature mirrors its subcommand's argparse
options (names spelled as the flags, the same defaults, required where the flag is), so
they cannot drift; and each function writes what the CLI writes from the same arguments
(a real run of the bundled demo corpus with two precomputed arms, then compare, decide,
leaderboard, report and verify on it, each through the function and through the CLI).
"""

from __future__ import annotations

import argparse
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

import earmark
from earmark.api import subcommands
from earmark.api.subcommands import FUNCTIONS
from earmark.cli import build_parser, main
from earmark.errors import EarmarkError

DEMO = Path(earmark.__file__).parent / "demo_corpus" / "manifest.jsonl"


def _cli_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def _multi(value: object) -> object:
    """A repeatable or many-valued option's default: argparse's [] or None is our ()."""
    return () if value in (None, []) else tuple(value) if isinstance(value, list) else value


# --- the signatures are the flags ----------------------------------------------------


def test_every_function_is_a_subcommand_and_public() -> None:
    parsers = _cli_parsers()
    assert set(FUNCTIONS) <= set(parsers)
    assert set(FUNCTIONS) >= {
        "score",
        "run",
        "compare",
        "verify",
        "decide",
        "report",
        "leaderboard",
    }
    for command, function in FUNCTIONS.items():
        name = "score_file" if command == "score" else command
        assert function.__name__ == name and name in earmark.__all__
        assert inspect.signature(getattr(earmark, name)) == inspect.signature(function)


@pytest.mark.parametrize("command", sorted(FUNCTIONS))
def test_signature_mirrors_the_argparse_options(command: str) -> None:
    parser = _cli_parsers()[command]
    params = inspect.signature(FUNCTIONS[command]).parameters
    actions = [a for a in parser._actions if not isinstance(a, argparse._HelpAction)]
    assert sorted(params) == sorted(a.dest for a in actions)
    empty = inspect.Parameter.empty
    for action in actions:
        param = params[action.dest]
        if not action.option_strings:  # a positional stays positional
            assert param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, action.dest
            if action.nargs == "*":  # may be empty: optional here too
                assert param.default == (), action.dest
            else:
                assert param.default is empty, action.dest
            continue
        assert param.kind is inspect.Parameter.KEYWORD_ONLY, action.dest
        # The parameter is the flag's own spelling: --id-field is id_field.
        assert action.option_strings[-1] == "--" + param.name.replace("_", "-")
        if action.required:
            assert param.default is empty, action.dest
        elif isinstance(action, argparse._AppendAction) or isinstance(action.nargs, int):
            assert _multi(action.default) == _multi(param.default), action.dest
        else:
            assert param.default == action.default, action.dest
            assert type(param.default) is type(action.default), action.dest


def test_the_bootstrap_flag_is_spelled_bootstrap_everywhere() -> None:
    for command in ("score", "run", "compare"):
        params = inspect.signature(FUNCTIONS[command]).parameters
        assert "bootstrap" in params and "resamples" not in params
    assert "bootstrap" in inspect.signature(earmark.score).parameters


# --- usage mistakes are errors, as the CLI's exit 2 -----------------------------------


def test_usage_mistakes_raise_earmark_errors(tmp_path: Path) -> None:
    pairs = tmp_path / "p.jsonl"
    pairs.write_text('{"id": "1", "reference": "a b", "hypothesis": "a c"}\n', "utf-8")
    out = tmp_path / "out"
    with pytest.raises(EarmarkError, match="must be 0 or more"):
        earmark.score_file(pairs, out=out, normalizer="none", bootstrap=-1)
    with pytest.raises(EarmarkError, match="invalid choice"):
        earmark.score_file(pairs, out=out, normalizer="none", format="xml")
    with pytest.raises(EarmarkError, match="--normalizer"):
        earmark.score_file(pairs, out=out)
    with pytest.raises(EarmarkError, match="--plan --manifest"):
        earmark.run(out=out)
    with pytest.raises(EarmarkError, match="standard output"):
        earmark.score_file(pairs, out="-", normalizer="none")
    assert not out.exists()


def test_argv_is_what_the_command_line_would_be() -> None:
    parser = subcommands.command_parser("compare")
    argv = subcommands.command_argv(
        parser,
        {
            "arms": ["-odd", Path("b")],
            "out": Path("o"),
            "bootstrap": 0,
            "quiet": True,
            "seed": None,
        },
    )
    assert argv == ["--bootstrap=0", "--out=o", "--quiet", "--", "-odd", "b"]
    args = parser.parse_args(argv)
    assert (args.arms, args.bootstrap, args.out, args.seed) == (["-odd", "b"], 0, "o", None)
    parser = subcommands.command_parser("leaderboard")
    argv = subcommands.command_argv(
        parser, {"run_dirs": "r", "out": "o", "contamination": ["c1", "c2"], "min_coverage": 1.0}
    )
    assert argv == ["--out=o", "--contamination=c1", "--contamination=c2", "--", "r"]


# --- each function writes what its command writes -------------------------------------


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demo corpus's first 8 clips run with two precomputed arms, by `earmark.run`
    and by `earmark run`."""
    root = tmp_path_factory.mktemp("demo")
    rows = [json.loads(line) for line in DEMO.read_text("utf-8").splitlines()]
    exact, cut = root / "exact.jsonl", root / "cut.jsonl"
    exact.write_text(
        "".join(json.dumps({"id": r["id"], "hypothesis": r["text"]}) + "\n" for r in rows)
    )
    cut.write_text(
        "".join(
            json.dumps({"id": r["id"], "hypothesis": r["text"] if i % 3 else r["text"][:-4]}) + "\n"
            for i, r in enumerate(rows)
        )
    )
    arms = [f"precomputed:{exact}?name=exact", f"precomputed:{cut}?name=cut"]
    results = earmark.run(
        manifest=DEMO,
        arm=arms,
        first=8,
        bootstrap=300,
        isolation="inline",
        out=root / "api",
        quiet=True,
    )
    argv = ["run", "--manifest", str(DEMO), "--arm", arms[0], "--arm", arms[1], "--first", "8"]
    argv += ["--bootstrap", "300", "--isolation", "inline", "--out", str(root / "cli"), "--quiet"]
    assert main(argv) == 0
    assert results.arm_names == ("exact", "cut")
    return {"root": root, "api": root / "api", "cli": root / "cli", "results": results}


def _figures(results: dict[str, Any]) -> dict[str, Any]:
    """Every arm's figures per language and view (timings and dates left out)."""
    return {
        name: {lang: block["views"] for lang, block in arm["by_language"].items()}
        for name, arm in results["arms"].items()
    }


def _json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def test_run_equals_the_cli(demo_run: dict[str, Any]) -> None:
    typed = demo_run["results"]
    assert typed.to_json() == (demo_run["api"] / "results.json").read_text("utf-8")
    assert (
        typed.arm("cut").view("en", "normalized").wer.value
        == _json(demo_run["api"] / "results.json")["arms"]["cut"]["by_language"]["en"]["views"][
            "normalized"
        ]["wer"]["value"]
    )
    api, cli = _json(demo_run["api"] / "results.json"), _json(demo_run["cli"] / "results.json")
    assert _figures(api) == _figures(cli)
    exact, cut = (api["arms"][a]["overall"] for a in ("exact", "cut"))
    assert exact["views"][exact["primary_view"]]["wer"]["value"] == 0.0
    # clips 1, 4 and 7 lost their last four characters: three word errors in all
    wer = cut["views"][cut["primary_view"]]["wer"]
    assert wer["substitutions"] + wer["deletions"] + wer["insertions"] == 3
    assert wer["value"] == 3 / wer["ref_units"]
    assert api["plan"] == cli["plan"]


def test_score_file_equals_the_cli(demo_run: dict[str, Any], tmp_path: Path) -> None:
    predictions = demo_run["api"] / "predictions.jsonl"
    results = earmark.score_file(
        predictions, out=tmp_path / "api", normalizer="auto", arm="cut", bootstrap=300, quiet=True
    )
    out = tmp_path / "api"
    assert results.to_json() == (out / "results.json").read_text("utf-8")
    assert results.arm_names == ("cut",)
    argv = ["score", str(predictions), "--normalizer", "auto", "--arm", "cut"]
    assert main([*argv, "--bootstrap", "300", "--out", str(tmp_path / "cli"), "--quiet"]) == 0
    api, cli = _json(out / "results.json"), _json(tmp_path / "cli" / "results.json")
    assert {k: v for k, v in api.items() if k != "created"} == {
        k: v for k, v in cli.items() if k != "created"
    }
    assert (out / "predictions.jsonl").read_bytes() == (
        tmp_path / "cli" / "predictions.jsonl"
    ).read_bytes()


def test_verify_returns_the_report(demo_run: dict[str, Any], tmp_path: Path) -> None:
    report = earmark.verify(demo_run["api"], quiet=True, json=tmp_path / "v.json")
    assert report.ok and report.checks
    assert _json(tmp_path / "v.json") == report.to_dict()
    # a figure changed by hand is a mismatch: ok is False (exit 1 on the command line)
    tampered = tmp_path / "run"
    tampered.mkdir()
    for f in demo_run["api"].iterdir():
        if f.is_file():
            (tampered / f.name).write_bytes(f.read_bytes())
    results = _json(tampered / "results.json")
    views = results["arms"]["cut"]["by_language"]["en"]["views"]
    views[next(iter(views))]["wer"]["value"] = 0.5
    (tampered / "results.json").write_text(json.dumps(results), "utf-8")
    report = earmark.verify(tampered, quiet=True)
    assert not report.ok
    assert any(c.status == "mismatch" for c in report.checks)


def test_compare_equals_the_cli(demo_run: dict[str, Any], tmp_path: Path) -> None:
    comparison = earmark.compare(
        [demo_run["api"]], out=tmp_path / "api", normalizer="auto", bootstrap=300, quiet=True
    )
    path = tmp_path / "api" / "compare.json"
    assert not isinstance(comparison, Path) and comparison.to_json() == path.read_text("utf-8")
    argv = ["compare", str(demo_run["api"]), "--normalizer", "auto", "--bootstrap", "300"]
    assert main([*argv, "--out", str(tmp_path / "cli"), "--quiet"]) == 0
    api, cli = _json(path), _json(tmp_path / "cli" / "compare.json")
    assert {k: v for k, v in api.items() if k != "created"} == {
        k: v for k, v in cli.items() if k != "created"
    }
    assert api["reference_arm"] == "exact" and api["arms_order"] == ["exact", "cut"]


def test_decide_equals_the_cli(demo_run: dict[str, Any], tmp_path: Path) -> None:
    run = demo_run["api"]
    sides = {"baseline": f"{run}#exact", "challenger": f"{run}#cut"}
    decision = earmark.decide(**sides, out=tmp_path / "api", quiet=True)
    again = earmark.decide(**sides, out=tmp_path / "api", quiet=True)
    first = tmp_path / "api" / f"decision-{decision.date}.json"
    assert decision.to_json() == first.read_text("utf-8")
    assert again == decision
    assert (tmp_path / "api" / f"decision-{decision.date}-2.json").is_file()
    assert first.with_suffix(".md").is_file()
    argv = ["decide", "--baseline", sides["baseline"], "--challenger", sides["challenger"]]
    assert main([*argv, "--out", str(tmp_path / "cli"), "--quiet"]) == 0
    (cli,) = (tmp_path / "cli").glob("decision-*.json")
    assert _json(first) == _json(cli)
    assert decision.verdict == _json(cli)["verdict"]


def test_leaderboard_equals_the_cli(demo_run: dict[str, Any], tmp_path: Path) -> None:
    out = earmark.leaderboard([demo_run["api"]], out=tmp_path / "api", quiet=True)
    assert out == tmp_path / "api"
    assert (
        main(["leaderboard", str(demo_run["api"]), "--out", str(tmp_path / "cli"), "--quiet"]) == 0
    )
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(p.name for p in (tmp_path / "cli").iterdir()) and names
    for name in names:
        if name.endswith(".json"):
            api, cli = _json(out / name), _json(tmp_path / "cli" / name)
            assert _drop_created(api) == _drop_created(cli), name


def test_report_equals_the_cli(
    demo_run: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = earmark.report(demo_run["api"], out=tmp_path / "api.html", worst=2)
    assert path == tmp_path / "api.html"
    assert f"wrote {path}" in capsys.readouterr().out
    argv = ["report", str(demo_run["api"]), "--out", str(tmp_path / "cli.html"), "--worst", "2"]
    assert main(argv) == 0
    assert path.read_bytes() == (tmp_path / "cli.html").read_bytes()


def _drop_created(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_created(v) for k, v in value.items() if k not in ("created", "generated")}
    if isinstance(value, list):
        return [_drop_created(v) for v in value]
    return value


def test_multispeaker_equals_the_cli(tmp_path: Path) -> None:
    pytest.importorskip("meeteval", reason="needs earmark[multi-speaker] (meeteval)")
    refs, hyps = tmp_path / "ref.stm", tmp_path / "hyp.stm"
    refs.write_text("rec1 1 A 0.0 1.0 a b c\nrec1 1 B 1.0 2.0 d e\n", "utf-8")
    # speakers renamed (X, Y): cpWER pairs A-X, B-Y and counts one substitution of 5 words
    hyps.write_text("rec1 1 X 0.0 1.0 a b c\nrec1 1 Y 1.0 2.0 d f\n", "utf-8")
    path = earmark.multispeaker(
        refs, hyps, normalizer="none", metric=["cpwer", "orcwer"], bootstrap=0, out=tmp_path / "a"
    )
    assert path == tmp_path / "a" / "multispeaker.json"
    argv = ["multispeaker", str(refs), str(hyps), "--normalizer", "none", "--metric", "cpwer"]
    argv += ["--metric", "orcwer", "--bootstrap", "0", "--out", str(tmp_path / "c"), "--quiet"]
    assert main(argv) == 0
    assert _json(path) == _json(tmp_path / "c" / "multispeaker.json")
    total = _json(path)["metrics"]["cpwer"]["total"]
    assert (total["errors"], total["length"], total["substitutions"], total["rate"]) == (
        1,
        5,
        1,
        0.2,
    )
