"""The `earmark` command line: parses, calls the library, prints. No logic of its own.

Each subcommand lives in `earmark.commands.<name>` and exposes `register(subparsers)`,
which adds its parser and sets `func(args) -> int`. Command modules keep their top-level
imports light; the library is imported inside `func`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from earmark import __version__
from earmark.errors import EarmarkError

#: Subcommand modules, in help order. A module missing here is simply not offered.
COMMAND_MODULES = (
    "demo",
    "score",
    "run",
    "manifest",
    "importers",
    "fetch",
    "plan",
    "compare",
    "leaderboard",
    "decide",
    "verify",
    "report",
    "postprocess",
    "engines",
    "normalizers",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="earmark",
        description="Open, reproducible, language-aware evaluation of speech recognition.",
    )
    parser.add_argument("--version", action="version", version=f"earmark {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"earmark.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"earmark.commands.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except EarmarkError as exc:
        print(f"earmark: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("earmark: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
