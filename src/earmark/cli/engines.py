"""`earmark engines`: list every backend, whether it is installed, and what it records.

Plug-in backends (entry-point group `earmark.engines`) are listed after the built-in ones
with the distribution that installed them; a broken plug-in is listed with its error and
the listing still succeeds. `earmark engines --check SPEC` validates an arm spec
(settings, model reference) without loading anything.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping

from earmark.cli.options import Subcommands, add_json


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(
        "engines", help="list ASR backends: extra to install, formats, weight types, languages"
    )
    add_json(parser)
    parser.add_argument(
        "--check",
        metavar="SPEC",
        action="append",
        help="validate an arm spec such as faster-whisper:bundled:tiny.en?compute_type=int8 "
        "(repeatable); loads nothing",
    )
    parser.set_defaults(func=_engines)


def _engines(args: argparse.Namespace) -> int:
    from earmark.engines.registry import BACKENDS, discover_plugins, validate_arm
    from earmark.engines.spec import parse_arm_spec

    if args.check:
        for text in args.check:
            arm = parse_arm_spec(text)
            validate_arm(arm)
            print(f"ok  {arm.name}  {arm.canonical()}")
        return 0
    plugins, broken = discover_plugins()
    rows = [info.to_dict() for info in (*BACKENDS.values(), *plugins.values())]
    if args.json:
        rows += [failed.to_dict() for failed in broken]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    for row in rows:
        if row["plugin"] is not None:
            state = "" if row["installed"] else f", runtime {row['runtime_module']} not installed"
            extra = f"none (plug-in from {row['plugin']}{state})"
        elif row["extra"] is None:
            extra = "none (built in)"
        elif row["installed"]:
            extra = f"{row['extra']} (installed)"
        else:
            extra = f"{row['extra']} (not installed: pip install 'earmark[{row['extra']}]')"
        print(f"{row['name']}: {row['summary']}")
        print(f"  extra:        {extra}")
        print(f"  formats:      {row['formats']}")
        weights = ", ".join(row["weight_types"]) or _undeclared_weights(row)
        print(f"  weight types: {weights}")
        print(f"  languages:    {row['languages']}")
        print(f"  timestamps:   {row['timestamps']}")
        print(f"  provenance:   {row['provenance']}")
    for failed in broken:
        print(f"{failed.name}: BROKEN plug-in from {failed.plugin} ({failed.entry_point})")
        print(f"  error:        {failed.error}")
    return 0


def _undeclared_weights(row: Mapping[str, object]) -> str:
    """A backend without weight types of its own: either its arms declare theirs (stdio's
    program, which earmark cannot know) or sweeping does not apply."""
    from earmark.engines.registry import BACKENDS, declares_weight_types_per_arm

    name = row["name"]
    if isinstance(name, str) and name in BACKENDS and declares_weight_types_per_arm(name):
        return "declared by each arm (weight_types=A,B; docs/stdio_protocol.md)"
    return "not applicable"
