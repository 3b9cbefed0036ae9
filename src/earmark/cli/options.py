"""The flags several subcommands share, each defined once: its name, type, check and help.

A subcommand adds the flags it takes with these functions instead of spelling them out,
so `--out`, `--bootstrap` or `--protocol` cannot mean or validate one thing in `score`
and another in `compare`. What differs by command (what `--out` receives, what
`--quiet` still prints) is the one argument each function takes.
"""

from __future__ import annotations

import argparse
from typing import TypeAlias

from earmark.cli.arguments import non_negative_int, output_path, positive_int
from earmark.stats.settings import DEFAULT_GENERATOR, DEFAULT_SEED, GENERATORS, UNNAMED_GENERATOR

#: The published protocols `--protocol` names (`earmark.scoring.protocols`; a test pins
#: the list against the registry, which is not imported while parsing).
PROTOCOLS = ("blasbench-v1", "parakeet-weight-types-v1", "mmv-punct-v024")

#: How a normaliser policy is written, as every policy-taking command reads it.
POLICY_HELP = (
    "NAME (e.g. en-v1, zh-eval-v1, zh-itn-v1, ga-v1, crude-v1, crude-char-v1, none), "
    "'auto' (per language), or LANG=NAME,...,*=NAME (*=auto keeps auto for the rest)"
)

Parser = argparse.ArgumentParser
#: What `register(sub)` of every command module adds its parser to.
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_out(
    p: Parser,
    help: str,
    *,
    required: bool = True,
    metavar: str | None = None,
    default: str | None = None,
) -> None:
    """`--out`: where the command writes; never empty, never `-` (`output_path`)."""
    p.add_argument(
        "--out",
        required=required,
        default=default,
        type=output_path,
        metavar=metavar,
        help=help,
    )


def add_quiet(p: Parser, help: str = "print nothing; write the files only") -> None:
    """`--quiet`: what the command leaves out of the terminal (it writes the same files)."""
    p.add_argument("--quiet", action="store_true", help=help)


def add_normalizer_policy(p: Parser, *, default: str | None = None, when: str = "") -> None:
    """`--normalizer POLICY`: one name, `auto`, or one per language, as `earmark score`
    reads it; `when` says when it may be left out."""
    tail = f" ({when})" if when else f" (default {default})" if default else ""
    p.add_argument("--normalizer", default=default, help=POLICY_HELP + tail)


def add_protocol(p: Parser, tail: str = "") -> None:
    """`--protocol NAME`: a published protocol fixes normaliser, aggregation and CIs."""
    p.add_argument(
        "--protocol",
        metavar="NAME",
        help=f"a published protocol ({', '.join(PROTOCOLS)}): its normaliser, aggregation, "
        "bootstrap generator, resamples, seed and quantile rule in one word; flags that "
        "contradict it are refused (see docs/protocols.md)" + tail,
    )


def add_aggregate(p: Parser) -> None:
    """`--aggregate micro|macro`: micro unless asked, and macro says what it is."""
    p.add_argument(
        "--aggregate",
        choices=("micro", "macro"),
        help="micro (default): summed errors / summed reference units; macro: mean of "
        "per-utterance rates (labelled as such)",
    )


def add_bootstrap(
    p: Parser, *, default: int | None = None, of: str = "", plan: bool = False
) -> None:
    """`--bootstrap B`: resamples (`of` what, when not clips), 0 for no intervals."""
    unit = f" of {of}" if of else ""
    source = ", or the plan's" if plan else ""
    p.add_argument(
        "--bootstrap",
        type=non_negative_int,
        default=default,
        metavar="B",
        help=f"resamples{unit} (default 10000{source}; 0: no confidence intervals)",
    )


def add_bootstrap_generator(p: Parser, *, protocol: bool = False) -> None:
    """`--bootstrap-generator`: which recorded generator draws every interval."""
    fixed = "; a protocol fixes its own" if protocol else ""
    p.add_argument(
        "--bootstrap-generator",
        choices=GENERATORS,
        default=None,
        help=f"the bootstrap's generator, recorded in results (default {DEFAULT_GENERATOR}"
        f"{fixed}; {UNNAMED_GENERATOR}: the same law, other numbers for a seed, the "
        "generator of every result that names none; docs/statistics.md)",
    )


def add_seed(p: Parser, *, samplers: bool = False, plan: bool = False) -> None:
    """`--seed`: the bootstrap's seed (and, for a run, every clip's sampler's)."""
    what = "seed of the bootstrap and of every clip's sampler" if samplers else "bootstrap seed"
    source = ", or the plan's" if plan else ""
    p.add_argument("--seed", type=int, help=f"{what} (default {DEFAULT_SEED}{source})")


def add_statistics(p: Parser, *, when: str = "") -> None:
    """The figures' settings `score` and `compare` share: policy, protocol, aggregation,
    resamples and seed."""
    add_normalizer_policy(p, when=when)
    add_protocol(p)
    add_aggregate(p)
    add_bootstrap(p)
    add_seed(p)


def add_exclude_unmatched(p: Parser, what: str) -> None:
    """`--exclude-unmatched`: list and skip hypotheses without a reference, not refuse."""
    p.add_argument(
        "--exclude-unmatched",
        action="store_true",
        help=f"list and skip {what} (default: error)",
    )


def add_csv(p: Parser, row: str) -> None:
    """`--csv`: predictions.csv beside predictions.jsonl, one row per `row`."""
    p.add_argument(
        "--csv",
        action="store_true",
        help="also write predictions.csv beside predictions.jsonl: one row per "
        f"{row}, for spreadsheets (UTF-8 with BOM)",
    )


def add_json(p: Parser, what: str = "the table") -> None:
    """`--json`: print `what` as JSON instead of text."""
    p.add_argument("--json", action="store_true", help=f"print {what} as JSON")


def add_expect_sha256(p: Parser) -> None:
    """`--expect-sha256 H`: the plan file must be the frozen one."""
    p.add_argument(
        "--expect-sha256",
        metavar="H",
        help="refuse unless the plan file has this SHA-256 (printed by `earmark plan freeze`)",
    )


def add_speaker_options(p: Parser) -> None:
    """`--cluster`, `--min-per-slice`, `--min-speakers`: the bootstrap unit and the
    pre-registered minimums, shared by `score` and `run`."""
    p.add_argument(
        "--cluster",
        choices=("clip", "speaker"),
        default=None,
        help="bootstrap unit: clip (the default; repeats of a clip go together) or speaker "
        "(every row of one speaker goes together; needs speakers in the rows)",
    )
    p.add_argument(
        "--min-per-slice",
        type=positive_int,
        metavar="N",
        help="a language, slice or speaker block with fewer than N rows reports null "
        "figures with a reason (pre-registered minimum)",
    )
    p.add_argument(
        "--min-speakers",
        type=positive_int,
        metavar="N",
        help="a language or slice block with fewer than N distinct speakers reports null "
        "figures with a reason",
    )


def add_verbs(p: Parser, dest: str, metavar: str) -> Subcommands:
    """The verbs of a command with several (`manifest ACTION`, `plan VERB`); the command
    alone prints its help and exits 2."""

    def usage(args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p.set_defaults(func=usage)
    return p.add_subparsers(dest=dest, metavar=metavar)
