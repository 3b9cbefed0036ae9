"""One Python function per `earmark` subcommand, a thin mirror of the CLI.

Each function turns its keyword arguments back into the subcommand's own arguments and
parses them with the parser the subcommand registers for the CLI, then calls the very
handler the CLI calls. So defaults, validation and figures cannot differ from the CLI's;
a test compares every function's signature with its parser (names, defaults,
required-ness) so the two cannot drift. Parameters are spelled as the flags are
(`--bootstrap B` is `bootstrap=B`, `--id-field` is `id_field`).

A usage mistake the CLI would answer with exit 2 is an `EarmarkError` here; what the
command prints (tables, `wrote ...`) it prints here too, unless `quiet=True`.
"""

from __future__ import annotations

import argparse
import importlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from earmark.errors import EarmarkError
from earmark.rundir.layout import COMPARE, RESULTS

if TYPE_CHECKING:
    from earmark.results import Comparison, Decision, Results
    from earmark.verification import VerifyReport

#: A path argument: a string or anything `os.fspath` takes.
PathArg = str | os.PathLike[str]


class _ApiParser(argparse.ArgumentParser):
    """argparse that raises instead of exiting: a Python caller gets an `EarmarkError`
    where the CLI user gets a usage line and exit 2."""

    def error(self, message: str) -> NoReturn:
        raise EarmarkError(message, hint=f"see `{self.prog} --help`")


def command_parser(command: str) -> argparse.ArgumentParser:
    """The parser `earmark COMMAND` uses, registered by the command's own module."""
    parent = _ApiParser(prog="earmark")
    sub = parent.add_subparsers(dest="command")
    importlib.import_module(f"earmark.cli.{command}").register(sub)
    parser: argparse.ArgumentParser = sub.choices[command]
    return parser


def command_argv(parser: argparse.ArgumentParser, arguments: Mapping[str, object]) -> list[str]:
    """The command line that gives `arguments` (by destination name) to `parser`.

    Arguments left at the parser's default are not written, so argparse applies its own
    default exactly as on the command line.
    """
    options: list[str] = []
    positionals: list[str] = []
    known = set()
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        known.add(action.dest)
        value = arguments.get(action.dest)
        if value is None or (value == action.default and not action.required):
            continue
        if not action.option_strings:
            positionals.extend(_strings(value, many=action.nargs in ("*", "+")))
            continue
        flag = action.option_strings[-1]
        if action.nargs == 0:  # store_true: written when true
            if value is True:
                options.append(flag)
            elif value is not False:
                raise EarmarkError(f"{action.dest} takes True or False, not {value!r}")
        elif isinstance(action, argparse._AppendAction):
            options.extend(f"{flag}={text}" for text in _strings(value, many=True))
        elif isinstance(action.nargs, int):  # a fixed number of values, e.g. --gap A B
            options.extend([flag, *_strings(value, many=True)])
        else:
            (text,) = _strings(value, many=False)
            options.append(f"{flag}={text}")
    unknown = sorted(set(arguments) - known)
    if unknown:  # a local name of the calling function: a bug here, not the user's
        raise EarmarkError(f"unknown argument(s) {', '.join(unknown)}")
    return options + (["--", *positionals] if positionals else [])


def _strings(value: object, *, many: bool) -> list[str]:
    """A value as the command line's text: paths by `os.fspath`, numbers by `str`."""
    values = (
        list(value)
        if many and isinstance(value, Sequence) and not isinstance(value, str)
        else [value]
    )
    return [os.fspath(v) if isinstance(v, os.PathLike) else str(v) for v in values]


def invoke(command: str, arguments: Mapping[str, object]) -> tuple[argparse.Namespace, int]:
    """Parse `arguments` with `earmark COMMAND`'s parser and call its handler: the
    namespace it was given and its exit status."""
    parser = command_parser(command)
    args = parser.parse_args(command_argv(parser, arguments))
    status = int(args.func(args) or 0)
    return args, status


def score_file(
    predictions: PathArg,
    *,
    out: PathArg,
    refs: PathArg | None = None,
    normalizer: str | None = None,
    protocol: str | None = None,
    aggregate: str | None = None,
    bootstrap: int | None = None,
    seed: int | None = None,
    format: str | None = None,
    id_field: str = "id",
    reference_field: str = "reference",
    hypothesis_field: str = "hypothesis",
    language_field: str = "language",
    cluster_field: str = "clip",
    language: str | None = None,
    arm: str | None = None,
    exclude_unmatched: bool = False,
    punctuation: bool = False,
    punctuation_marks: str | None = None,
    critical_tokens: bool = False,
    metrics: list[str] | None = None,
    sclite_reports: bool = False,
    alignment: str = "earmark",
    glm: PathArg | None = None,
    show_alignments: int = 0,
    csv: bool = False,
    quiet: bool = False,
    cluster: str | None = None,
    min_per_slice: int | None = None,
    min_speakers: int | None = None,
) -> Results:
    """`earmark score PREDICTIONS --out OUT ...`: score a file of saved hypotheses.

    Returns the results.json written into OUT (beside predictions.jsonl and results.md),
    typed: `.arm().view(language, view).wer` is an `Estimate`.
    """
    args, _ = invoke("score", dict(locals()))
    from earmark.results import read_results

    return read_results(Path(args.out) / RESULTS)


def run(
    *,
    out: PathArg,
    plan: PathArg | None = None,
    manifest: PathArg | None = None,
    expect_sha256: str | None = None,
    audio_root: PathArg | None = None,
    arm: Sequence[str] = (),
    weight_types: str | None = None,
    normalizer: str | None = None,
    protocol: str | None = None,
    repeats: int = 1,
    bootstrap: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    cpu_isa: str | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    first: int | None = None,
    distinct_texts: bool = False,
    languages: str | None = None,
    allow_network: bool = False,
    require_offline: bool = False,
    allow_missing_audio: bool = False,
    retry_failed: bool = False,
    isolation: str = "process",
    executor: str = "local",
    ray_address: str | None = None,
    ray_actors: int = 2,
    ray_cpus_per_actor: float = 1.0,
    ray_gpus_per_actor: float = 0.0,
    ray_max_retries: int = 2,
    csv: bool = False,
    quiet: bool = False,
    cluster: str | None = None,
    min_per_slice: int | None = None,
    min_speakers: int | None = None,
) -> Results:
    """`earmark run --plan PLAN | --manifest MANIFEST --arm SPEC ... --out OUT`.

    Returns the run's results.json, typed (the folder also holds predictions.jsonl,
    provenance.json and results.md). A run that wrote its files but whose figures are not a result
    (an arm that did not finish, or produced no hypothesis), exit 1 on the command line,
    raises an `EarmarkError` naming why; its files are kept for the rerun that resumes it.
    """
    args, status = invoke("run", dict(locals()))
    folder = Path(args.out)
    from earmark.results import read_results

    if status != 0:
        from earmark.execution.run_request import failure_message

        raise EarmarkError(
            failure_message(read_results(folder / RESULTS))
            or f"earmark run exited with status {status}",
            file=str(folder / RESULTS),
        )
    return read_results(folder / RESULTS)


def compare(
    arms: Sequence[PathArg] = (),
    *,
    out: PathArg,
    reference: str | None = None,
    normalizer: str | None = None,
    protocol: str | None = None,
    aggregate: str | None = None,
    bootstrap: int | None = None,
    seed: int | None = None,
    gap: tuple[PathArg, PathArg] | None = None,
    arm: str | None = None,
    quiet: bool = False,
) -> Comparison | Path:
    """`earmark compare ARM ... --out OUT` (or `--gap RUN_A RUN_B`).

    Returns OUT/compare.json as a typed `Comparison`; with `gap`, the path of the
    OUT/gap.json written (the results model has no type for it yet).
    """
    args, _ = invoke("compare", dict(locals()))
    if args.gap:
        return Path(args.out) / "gap.json"
    from earmark.results import read_comparison

    return read_comparison(Path(args.out) / COMPARE)


def verify(run_dir: PathArg, *, json: PathArg | None = None, quiet: bool = False) -> VerifyReport:
    """`earmark verify RUN_DIR`: recompute every figure and hash of a run.

    Returns the report (`.ok` is False on a mismatch, where the CLI exits 1) instead of
    raising, so a caller can list the mismatched checks.
    """
    arguments = dict(locals())
    from earmark.cli.verify import check

    parser = command_parser("verify")
    return check(parser.parse_args(command_argv(parser, arguments)))


def decide(
    *,
    baseline: str,
    challenger: str,
    out: PathArg,
    rules: PathArg | None = None,
    min_coverage: float | None = None,
    allow_setting_differences: str | None = None,
    quiet: bool = False,
) -> Decision:
    """`earmark decide --baseline RUN[#ARM] --challenger RUN[#ARM] --out OUT`.

    Returns the decision record written, typed (`.verdict`, `.reasons`, `.evidence`):
    OUT/decision-DATE.json, or decision-DATE-N.json when that day's record already
    exists, with its Markdown beside it.
    """
    arguments = dict(locals())
    from earmark.results import read_decision

    folder = Path(out)
    before = set(folder.glob("decision-*.json")) if folder.is_dir() else set()
    invoke("decide", arguments)
    (written,) = set(folder.glob("decision-*.json")) - before
    return read_decision(written)


def report(
    run_dir: PathArg,
    *,
    compare: PathArg | None = None,
    out: PathArg | None = None,
    title: str | None = None,
    worst: int = 5,
) -> Path:
    """`earmark report RUN_DIR`: the self-contained HTML report; returns its path."""
    args, _ = invoke("report", dict(locals()))
    return Path(args.out) if args.out is not None else Path(args.run_dir) / "report.html"


def leaderboard(
    run_dirs: Sequence[PathArg],
    *,
    out: PathArg,
    min_coverage: float = 1.0,
    self_reported: Sequence[PathArg] = (),
    contamination: Sequence[PathArg] = (),
    contamination_share: float = 0.0,
    system_type: Sequence[str] = (),
    quiet: bool = False,
) -> Path:
    """`earmark leaderboard RUN_DIR ... --out OUT`: returns the output folder (Markdown,
    CSV, JSON and HTML tables)."""
    args, _ = invoke("leaderboard", dict(locals()))
    return Path(args.out)


def multispeaker(
    references: PathArg,
    hypotheses: PathArg,
    *,
    normalizer: str,
    out: PathArg,
    metric: Sequence[str] = (),
    collar: float | None = None,
    format: str | None = None,
    bootstrap: int = 10_000,
    seed: int | None = None,
    exclude_unmatched: bool = False,
    quiet: bool = False,
) -> Path:
    """`earmark multispeaker REFERENCES HYPOTHESES --normalizer NAME --out OUT`: cpWER
    (and ORC-WER, tcpWER, DI-cpWER with `metric`) of whole recordings via meeteval.

    Returns OUT/multispeaker.json (the results model has no type for it yet).
    """
    args, _ = invoke("multispeaker", dict(locals()))
    return Path(args.out) / "multispeaker.json"


#: The function of each subcommand that has one (the signature test walks this).
FUNCTIONS = {
    "score": score_file,
    "run": run,
    "compare": compare,
    "verify": verify,
    "decide": decide,
    "report": report,
    "leaderboard": leaderboard,
    "multispeaker": multispeaker,
}
