"""`import earmark` and the scoring path must not pull in heavy runtimes."""

import argparse
import subprocess
import sys
from pathlib import Path

HEAVY = ("torch", "transformers", "ctranslate2", "ray", "pandas", "faster_whisper", "pyarrow")


def _imported_after(code: str) -> set[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    import json

    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_earmark_is_light() -> None:
    mods = _imported_after("import earmark")
    assert not [m for m in HEAVY if m in mods]


def test_cli_parser_is_light() -> None:
    mods = _imported_after("from earmark.cli import build_parser; build_parser()")
    assert not [m for m in HEAVY if m in mods]


def test_earmark_score_stays_light(tmp_path) -> None:
    data = tmp_path / "p.jsonl"
    data.write_text(
        '{"id":"a","reference":"我爱北京","hypothesis":"我爱南京","language":"zh"}\n'
        '{"id":"b","reference":"Hello there","hypothesis":"hello","language":"en"}\n',
        "utf-8",
    )
    code = (
        "from earmark.cli import main\n"
        f"assert main(['score', {str(data)!r}, '--normalizer', 'auto', '--bootstrap', '50',"
        f" '--out', {str(tmp_path / 'out')!r}, '--quiet', '--punctuation',"
        " '--critical-tokens']) == 0"
    )
    mods = _imported_after(code)
    assert not [m for m in HEAVY if m in mods]


def test_import_earmark_loads_only_itself() -> None:
    """`import earmark` names every verb lazily: no numpy, and no module of its own but the
    package (each verb's module loads on first use)."""
    mods = _imported_after("import earmark")
    assert "numpy" not in mods
    assert sorted(m for m in mods if m.startswith("earmark")) == ["earmark"]


def test_a_command_builds_only_its_own_parser() -> None:
    """`earmark score ...` imports the score command's module and no other command's (the
    other sixteen parsers cost a quarter of a one-pair score's start-up); the whole parser,
    for `earmark --help`, still has them all."""
    mods = _imported_after("from earmark.cli import build_parser; build_parser('score')")
    commands = {m for m in mods if m.startswith("earmark.cli.")}
    # blas_threads is the process entry's, not a command's (it imports only os and sys).
    assert commands == {
        "earmark.cli.score", "earmark.cli.options", "earmark.cli.arguments",
        "earmark.cli.blas_threads",
    }  # fmt: skip
    assert "numpy" not in mods
    from earmark.cli import COMMAND_MODULES, build_parser

    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(sub.choices) == len(COMMAND_MODULES)
    assert "import" in sub.choices and "importers" not in sub.choices


def test_one_command_parser_parses_as_the_whole_one(tmp_path: Path) -> None:
    """The same words give the same namespace whether the parser holds one command or all."""
    from earmark.cli import build_parser

    words = ["score", "p.jsonl", "--normalizer", "none", "--bootstrap", "0", "--out", "o//"]
    assert build_parser("score").parse_args(words) == build_parser().parse_args(words)
    words = ["import", "fleurs", str(tmp_path), "--out", str(tmp_path / "m.jsonl")]
    assert build_parser("import").parse_args(words) == build_parser().parse_args(words)


def test_rendering_loads_no_scoring_code() -> None:
    """results.md and the terminal summary are rendered from typed results: no scorer, no
    numpy (`earmark report` and `earmark score --json` readers pay for neither)."""
    mods = _imported_after("import earmark.render.terminal, earmark.render.markdown")
    assert "numpy" not in mods
    assert not [m for m in mods if m.startswith("earmark.scoring")]


def test_scoring_package_imports_nothing() -> None:
    """`earmark.scoring` re-exports nothing, so its light modules (the normaliser policy,
    the self-probes, the options every result records) load without the scorer and numpy."""
    mods = _imported_after(
        "import earmark.scoring.policy, earmark.scoring.probes, earmark.scoring.options"
    )
    assert "numpy" not in mods
    assert "earmark.scoring.scorer" not in mods


def test_quiet_one_pair_score_loads_only_what_it_uses(tmp_path: Path) -> None:
    """`earmark score --quiet FILE --bootstrap 0 --out DIR` (the bench's one-pair command):
    nothing that prints (rich, the terminal table), no other command, no sclite reader for
    a JSONL file, no streaming code for an arm that did not stream.

    Nor a normaliser the run and its self-probes do not name (a lookup imports its own
    module), nor the sclite or Kaldi alignments, GLM rules or trn markup for an earmark
    alignment, nor csv for a JSONL file, nor html (a notebook's table). numpy is still
    loaded: the scorer's columns (`earmark.scoring.counting`, `parts`, `groups`,
    `row_facts`, `columns`, `scorer`, `breakdowns`, `blocks`, `metric`) are numpy arrays
    for one row as for a million; see the issue 25 notes."""
    data = tmp_path / "one.jsonl"
    data.write_text('{"id": "u1", "reference": "a b c", "hypothesis": "a x c"}\n', "utf-8")
    code = (
        "from earmark.cli import main\n"
        f"assert main(['score', '--quiet', {str(data)!r}, '--normalizer', 'none',"
        f" '--bootstrap', '0', '--out', {str(tmp_path / 'out')!r}]) == 0"
    )
    mods = _imported_after(code)
    assert (tmp_path / "out" / "results.json").is_file()
    unwanted = {
        "rich",
        "earmark.render.terminal",
        "earmark.terminal_table",
        "earmark.cli.run",
        "earmark.cli.compare",
        "earmark.execution.run_request",
        "earmark.formats.trn",
        "earmark.scoring.streaming_section",
        "earmark.metrics.streaming",
        "earmark.comparison",
        "earmark.results.comparison",
        "earmark.results.decision",
        "earmark.text.blasbench_ga_v1",
        "earmark.text.mmv_cer_v1",
        "earmark.text.crude_delete_v1",
        "earmark.text.crude_char_v1",
        "earmark.text.zh_itn_v1",
        "earmark.scoring.glm",
        "earmark.formats.sclite_markup",
        "earmark.metrics.slot_alignment",
        "earmark.metrics.kaldi_alignment",
        "earmark.metrics.sclite_alignment",
        "csv",
        "html",
    }
    assert not sorted(unwanted & mods)
    assert not [m for m in HEAVY if m in mods]
