"""`earmark examples DIR`: the files the documentation's examples use, in one folder."""

from __future__ import annotations

import argparse
import shlex

from earmark.cli.arguments import output_path
from earmark.cli.options import Subcommands


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "examples",
        help="write the files README.md and docs/*.md use into a folder",
        description="Writes, into DIR, the inputs every example of the documentation names: "
        "hypotheses in each input format, manifests with sidecars and demo clips, corpora in "
        "the importers' layouts and finished run folders (saved hypotheses, no model). "
        "Run the examples from there: earmark examples ex && cd ex",
    )
    p.add_argument("folder", metavar="DIR", type=output_path, help="folder to write (new or empty)")
    p.add_argument(
        "--force",
        action="store_true",
        help="write into a folder that is not empty, replacing the example files and run "
        "folders of the same names (never through a symbolic link)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from earmark.api.example_files import examples

    written = examples(args.folder, force=args.force)
    print(
        f"wrote {len(written.files)} files to {written.folder} "
        f"({len(written.runs)} run folders: {', '.join(written.runs)}); "
        "what each is for: README.md there"
    )
    print(f"next: cd {shlex.quote(str(written.folder))} && earmark verify runs/sweep")
    return 0
