"""A malformed file is an EarmarkError naming the JSON path of the bad field and a hint;
`earmark.results` stays pure and light."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from earmark.errors import EarmarkError
from earmark.results import Comparison, Decision, PredictionRow, Results, read_predictions

RUN = Path(__file__).resolve().parents[1] / "report/data/example-run"
ARM = "tiny.en-int8"
WER = f'arms["{ARM}"].by_language.en.views.normalized.wer'
PACKAGE = Path(__file__).resolve().parents[2] / "src/earmark/results"


def _broken(edit: Callable[[dict], None]) -> str:
    data = json.loads((RUN / "results.json").read_text("utf-8"))
    edit(data)
    return json.dumps(data, indent=2)


def _wer(data: dict) -> dict:
    return data["arms"][ARM]["by_language"]["en"]["views"]["normalized"]["wer"]


@pytest.mark.parametrize(
    ("edit", "field", "says"),
    [
        (
            lambda d: _wer(d).__setitem__("ci95", [0.1]),
            f"{WER}.ci95",
            "expected a [low, high] pair of numbers or null, found a list",
        ),
        (
            lambda d: _wer(d).__setitem__("ci95", [0.1, "x"]),
            f"{WER}.ci95[1]",
            "expected a number, found a string",
        ),
        (
            lambda d: _wer(d).__setitem__("hits", 1.5),
            f"{WER}.hits",
            "expected an integer, found a number",
        ),
        (
            lambda d: _wer(d).__setitem__("substitutions", True),
            f"{WER}.substitutions",
            "expected an integer, found a boolean",
        ),
        (lambda d: _wer(d).pop("deletions"), f"{WER}.deletions", "required key is missing"),
        (
            lambda d: _wer(d).__setitem__("aggregate", "mean"),
            f"{WER}.aggregate",
            "expected one of micro, macro, found 'mean'",
        ),
        (
            lambda d: _wer(d).__setitem__("null_reason", None),
            f"{WER}.null_reason",
            "expected a string, found null",
        ),
        (
            lambda d: d["arms"][ARM]["by_language"].__setitem__("en", []),
            f'arms["{ARM}"].by_language.en',
            "expected an object, found a list",
        ),
        (
            lambda d: d["arms"][ARM]["bootstrap"].__setitem__("level", 95),
            f'arms["{ARM}"].bootstrap.level',
            "between 0 and 1",
        ),
        (
            lambda d: d["arms"][ARM]["coverage"]["not_ok"].append({"id": "x"}),
            f'arms["{ARM}"].coverage.not_ok[0].status',
            "required key is missing",
        ),
        (  # inside a value that may be null: the inner error, at its own path
            lambda d: d["arms"][ARM].__setitem__(
                "overall", {**d["arms"][ARM]["by_language"]["ga"], "n_utterances": "8"}
            ),
            f'arms["{ARM}"].overall.n_utterances',
            "expected an integer, found a string",
        ),
        (
            lambda d: d["probes"][2].__setitem__("passed", "yes"),
            "probes[2].passed",
            "expected true or false, found a string",
        ),
        (
            lambda d: d.__setitem__("schema", "earmark.results/2"),
            "schema",
            "unsupported schema 'earmark.results/2'",
        ),
    ],
)
def test_malformed_results_name_the_json_path(
    edit: Callable[[dict], None], field: str, says: str
) -> None:
    with pytest.raises(EarmarkError) as caught:
        Results.from_json(_broken(edit), file="results.json")
    error = caught.value
    assert error.field == field
    assert says in error.message
    assert error.hint and error.file == "results.json"
    assert str(error).startswith(f"results.json: field '{field}': ")


def test_not_json_names_the_line() -> None:
    with pytest.raises(EarmarkError) as caught:
        Results.from_json('{\n  "schema": "earmark.results/1",\n  oops\n}', file="r.json")
    assert caught.value.line == 3 and caught.value.file == "r.json" and caught.value.hint


def test_top_level_must_be_an_object() -> None:
    with pytest.raises(EarmarkError, match="expected an object, found a list") as caught:
        Results.from_json("[]")
    assert caught.value.field == "(top level)"


def test_other_files_check_their_schema() -> None:
    with pytest.raises(EarmarkError, match="unsupported schema 'earmark.results/1'"):
        Comparison.from_json((RUN / "results.json").read_text("utf-8"))
    with pytest.raises(EarmarkError, match="required key is missing"):
        Decision.from_json('{"schema": "earmark.decision/1"}')
    golden = RUN.parent / "decision-golden/blocked.json"
    data = json.loads(golden.read_text("utf-8"))
    data["verdict"] = "ship it"
    with pytest.raises(EarmarkError, match="expected one of promote, blocked, stay") as caught:
        Decision.from_json(json.dumps(data))
    assert caught.value.field == "verdict"


def test_missing_file_and_bad_predictions_line(tmp_path: Path) -> None:
    with pytest.raises(EarmarkError, match="file not found"):
        Results.from_path(tmp_path)
    path = tmp_path / "predictions.jsonl"
    path.write_text('{"id": "a"}\n{"id": "b", "views": {"raw": {"wer": {"hits": 1}}}}\n', "utf-8")
    with pytest.raises(EarmarkError) as caught:
        list(read_predictions(path))
    assert (caught.value.file, caught.value.line) == (str(path), 2)
    assert caught.value.field == "views.raw.wer.substitutions"


def test_lookups_list_what_there_is() -> None:
    results = Results.from_path(RUN)
    with pytest.raises(EarmarkError, match="no arm 'base'") as caught:
        results.arm("base")
    assert caught.value.hint == f"arms here: {ARM}"
    with pytest.raises(EarmarkError, match="no view 'normalised'") as caught:
        results.arm().view("en", "normalised")
    assert caught.value.hint == "views here: raw, normalized"
    with pytest.raises(EarmarkError, match="this view has no wer") as caught:
        _ = results.arm().view("zh").wer
    assert caught.value.hint == "metrics here: cer, mixed_er"
    with pytest.raises(EarmarkError, match="no language 'fr'"):
        results.arm().language("fr")
    two = Results.from_path(RUN.parent / "html-golden/rich")
    assert len(two.arms) > 1
    with pytest.raises(EarmarkError, match=f"this file holds {len(two.arms)} arms; name one"):
        two.arm()


def test_a_written_file_reads_back(tmp_path: Path) -> None:
    results = Results.from_path(RUN)
    digest = results.to_path(tmp_path / "results.json")
    assert len(digest) == 64
    assert (tmp_path / "results.json").read_text("utf-8") == (RUN / "results.json").read_text(
        "utf-8"
    )
    assert Results.from_path(tmp_path) == results
    row = PredictionRow.from_line((RUN / "predictions.jsonl").read_text("utf-8").splitlines()[0])
    assert row.view("normalized") is not None and row.view("nope") is None


def test_import_is_light_and_pure() -> None:
    """`import earmark.results` pulls in no numpy (nor torch & co.), and the package
    imports only the standard library, earmark.errors, earmark.metrics (counts),
    earmark.outputs (atomic writes, in `io`) and earmark.markdown_cells (the escaping
    every `.md` shares, for the notebook display in `notebook`: pure, standard library only)."""
    probe = "import sys, earmark.results; print(' '.join(sorted(sys.modules)))"
    mods = set(
        subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    assert not {"numpy", "torch", "transformers", "ctranslate2", "ray", "pandas"} & mods
    assert not {
        m
        for m in mods
        if m.startswith("earmark.")
        and m.split(".")[1] not in ("results", "errors", "markdown_cells")
    }
    allowed = {
        "earmark.errors",
        "earmark.metrics.counts",
        "earmark.outputs",
        "earmark.markdown_cells",
    }
    stdlib = set(sys.stdlib_module_names)
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                ok = (
                    name.split(".")[0] in stdlib
                    # the DataFrame annotation; pandas itself is imported only in to_pandas()
                    or (path.name == "notebook.py" and name == "pandas")
                    or name.startswith("earmark.results")
                    or name in allowed
                )
                assert ok, f"{path.name} imports {name}"
