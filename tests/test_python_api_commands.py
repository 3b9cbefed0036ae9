"""One typed Python function per verb (`earmark.run`, `earmark.compare`, ...), the layer
the CLI calls.

Three things are pinned: every verb's keywords mirror its subcommand's flags (names
spelled as the flags, the same defaults, required where the flag is; display-only flags
such as `--quiet` stay in the CLI), so the two cannot drift; the verb layer loads neither
argparse nor `earmark.cli`; and each verb returns, typed and built in memory, what the
CLI writes from the same arguments (a real run of the bundled demo corpus with two
precomputed arms, then compare, decide, leaderboard, report and verify on it, each
through the verb and through the CLI).
"""

from __future__ import annotations

import argparse
import inspect
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import earmark
from earmark.api.checking import verify
from earmark.api.comparing import compare, gap
from earmark.api.corpora import demo, fetch, import_corpus
from earmark.api.deciding import decide
from earmark.api.example_files import examples
from earmark.api.manifests import (
    manifest_contamination,
    manifest_hash,
    manifest_leakage,
    manifest_select,
    manifest_validate,
)
from earmark.api.postprocessing import postprocess
from earmark.api.rendering import leaderboard, report
from earmark.api.running import plan_freeze, plan_show, run
from earmark.api.scoring import score_file
from earmark.api.speakers import multispeaker
from earmark.cli import build_parser, main
from earmark.errors import EarmarkError

DEMO = Path(earmark.__file__).parent / "demo_corpus" / "manifest.jsonl"

#: Each verb, the subcommand whose flags it takes, and the flags it leaves to the CLI
#: (what is printed) or to another verb of the same subcommand.
VERBS: dict[str, tuple[Callable[..., object], tuple[str, ...], frozenset[str]]] = {
    "score_file": (score_file, ("score",), frozenset({"quiet", "show_alignments", "json"})),
    "run": (run, ("run",), frozenset()),
    "compare": (compare, ("compare",), frozenset({"quiet", "gap", "arm"})),
    "verify": (verify, ("verify",), frozenset({"quiet"})),
    "report": (report, ("report",), frozenset()),
    "leaderboard": (leaderboard, ("leaderboard",), frozenset({"quiet"})),
    "decide": (decide, ("decide",), frozenset({"quiet"})),
    "postprocess": (postprocess, ("postprocess",), frozenset({"quiet"})),
    "multispeaker": (multispeaker, ("multispeaker",), frozenset({"quiet"})),
    "plan_freeze": (plan_freeze, ("plan", "freeze"), frozenset()),
    "plan_show": (plan_show, ("plan", "show"), frozenset()),
    "manifest_validate": (manifest_validate, ("manifest", "validate"), frozenset({"json"})),
    "manifest_hash": (manifest_hash, ("manifest", "hash"), frozenset()),
    "manifest_select": (manifest_select, ("manifest", "select"), frozenset()),
    "manifest_leakage": (manifest_leakage, ("manifest", "leakage"), frozenset()),
    "manifest_contamination": (
        manifest_contamination,
        ("manifest", "contamination"),
        frozenset(),
    ),
    "import_corpus": (import_corpus, ("import",), frozenset()),
    "fetch": (fetch, ("fetch",), frozenset()),
    "demo": (demo, ("demo",), frozenset()),
    "examples": (examples, ("examples",), frozenset()),
}
#: Keywords with no flag: what only a Python caller can pass (a progress callback).
API_ONLY = {("fetch", "on_progress"), ("run", "check")}
#: Flags that are required on the command line but optional here: without an output
#: folder a verb writes nothing and returns its result.
OPTIONAL_HERE = {
    ("score_file", "out"),
    ("compare", "out"),
    ("multispeaker", "out"),
    ("manifest_contamination", "out"),
    ("decide", "out"),
    ("postprocess", "out"),
}


def _parser(path: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser()
    for name in path:
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = sub.choices[name]
    return parser


def _multi(value: object) -> object:
    """A repeatable or many-valued option's default: argparse's [] or None is our ()."""
    return () if value in (None, []) else tuple(value) if isinstance(value, list) else value


# --- the keywords are the flags -------------------------------------------------------


def test_every_exported_verb_is_here_and_lazy_in_the_package() -> None:
    # The functions of lists and rows in memory (no subcommand takes those).
    in_memory = ("__version__", "wer", "cer", "score", "score_rows")
    exported = {n for n in earmark.__all__ if n not in in_memory}
    assert exported - {"CorpusScore", "manifest_init_sidecar", "gap"} <= set(VERBS)
    for name in exported & set(VERBS):
        function = VERBS[name][0]
        assert function.__name__ == name and getattr(earmark, name) is function


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_keywords_mirror_the_flags(verb: str) -> None:
    function, path, cli_only = VERBS[verb]
    params = {
        name: param
        for name, param in inspect.signature(function).parameters.items()
        if (verb, name) not in API_ONLY
    }
    actions = [
        a
        for a in _parser(path)._actions
        if not isinstance(a, argparse._HelpAction) and a.dest not in cli_only
    ]
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
        if action.required and (verb, action.dest) in OPTIONAL_HERE:
            assert param.default is None, action.dest
        elif action.required:
            assert param.default is empty, action.dest
        elif isinstance(action, argparse._AppendAction) or isinstance(action.nargs, int):
            assert _multi(action.default) == _multi(param.default), action.dest
        else:
            assert param.default == action.default, action.dest
            assert type(param.default) is type(action.default), action.dest


def test_gap_takes_the_gap_flags_of_compare() -> None:
    params = inspect.signature(gap).parameters
    flags = {a.dest for a in _parser(("compare",))._actions}
    assert set(params) - {"run_a", "run_b"} <= flags and "gap" in flags


def test_the_bootstrap_flag_is_spelled_bootstrap_everywhere() -> None:
    for function in (score_file, run, compare, gap, postprocess, multispeaker):
        params = inspect.signature(function).parameters
        assert "bootstrap" in params and "resamples" not in params
    assert "bootstrap" in inspect.signature(earmark.score).parameters


def test_the_verb_layer_loads_neither_argparse_nor_the_cli() -> None:
    code = (
        "import importlib, pkgutil, sys\n"
        "import earmark, earmark.api\n"
        "for m in pkgutil.iter_modules(earmark.api.__path__):\n"
        "    importlib.import_module('earmark.api.' + m.name)\n"
        "for name in earmark.__all__[1:]:\n"
        "    assert callable(getattr(earmark, name)), name\n"
        "print(sorted(m for m in sys.modules if m == 'argparse' or m.startswith('earmark.cli')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# --- usage mistakes are errors, as the CLI's exit 2 -----------------------------------


def test_usage_mistakes_raise_earmark_errors(tmp_path: Path) -> None:
    pairs = tmp_path / "p.jsonl"
    pairs.write_text('{"id": "1", "reference": "a b", "hypothesis": "a c"}\n', "utf-8")
    out = tmp_path / "out"
    with pytest.raises(EarmarkError, match="must be 0 or more"):
        earmark.score_file(pairs, out=out, normalizer="none", bootstrap=-1)
    with pytest.raises(EarmarkError, match="invalid choice"):
        earmark.score_file(pairs, out=out, normalizer="none", format="xml")
    # No normaliser named is no longer a mistake: `auto` chooses, and says so
    # (tests/scoring/test_score_oneoff.py pins the choice and its reasons).
    assert earmark.score_file(pairs, bootstrap=0).arm("p").normalizer_choice is not None
    with pytest.raises(EarmarkError, match="--plan and --manifest"):
        earmark.run(out=out)
    with pytest.raises(EarmarkError, match="standard output"):
        earmark.score_file(pairs, out="-", normalizer="none")
    with pytest.raises(EarmarkError, match="--csv"):
        earmark.score_file(pairs, normalizer="none", csv=True)
    assert not out.exists()


def test_score_file_without_out_writes_nothing(tmp_path: Path) -> None:
    pairs = tmp_path / "p.jsonl"
    pairs.write_text('{"id": "1", "reference": "a b", "hypothesis": "a c"}\n', "utf-8")
    results = earmark.score_file(pairs, normalizer="none", bootstrap=0)
    overall = results.arm("p").overall
    assert overall is not None and overall.views["raw"].wer is not None
    assert overall.views["raw"].wer.value == 0.5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.jsonl"]


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
        predictions, out=tmp_path / "api", normalizer="auto", arm="cut", bootstrap=300
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
    report = earmark.verify(demo_run["api"], json=tmp_path / "v.json")
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
    report = earmark.verify(tampered)
    assert not report.ok
    assert any(c.status == "mismatch" for c in report.checks)


def test_compare_equals_the_cli(demo_run: dict[str, Any], tmp_path: Path) -> None:
    comparison = earmark.compare(
        [demo_run["api"]], out=tmp_path / "api", normalizer="auto", bootstrap=300
    )
    path = tmp_path / "api" / "compare.json"
    assert comparison.to_json() == path.read_text("utf-8")
    # without a folder: the same comparison, nothing written
    again = earmark.compare([demo_run["api"]], normalizer="auto", bootstrap=300)
    assert again.to_dict() | {"created": None} == comparison.to_dict() | {"created": None}
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
    decision = earmark.decide(**sides, out=tmp_path / "api")
    again = earmark.decide(**sides, out=tmp_path / "api")
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
    written = earmark.leaderboard([demo_run["api"]], out=tmp_path / "api")
    out = tmp_path / "api"
    assert sorted(written) == ["csv", "html", "json", "md"]
    assert all(path.parent == out for path in written.values())
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
    assert capsys.readouterr().out == ""  # the verb prints nothing; the CLI prints `wrote`
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
    result = earmark.multispeaker(
        refs, hyps, normalizer="none", metric=["cpwer", "orcwer"], bootstrap=0, out=tmp_path / "a"
    )
    path = tmp_path / "a" / "multispeaker.json"
    assert result.metrics["cpwer"].total.rate == 0.2
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
