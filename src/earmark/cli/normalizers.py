"""`earmark normalizers`: list the versioned normalisers, or show every view of a text.

Usage: `earmark normalizers` (a table of names, units, views, descriptions);
`earmark normalizers show ga-v1` (what it does, and how it differs from a publication's
rule for the same language, e.g. BlasBench's);
`earmark normalizers show zh-eval-v1 "ＡＢＣ，你好"` (every view of a text);
`earmark normalizers show zh-eval-v1 "这里" --reference "這裡"` (the views of a pair).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from earmark.cli.options import Subcommands, add_json


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(
        "normalizers",
        help="list text normalisers, or show the views of a text",
        description="List the registered text normalisers, or show every view of a text.",
    )
    add_json(parser)
    parser.set_defaults(func=_list)
    actions = parser.add_subparsers(dest="normalizers_action", metavar="ACTION")
    listing = actions.add_parser("list", help="list normalisers (the default)")
    add_json(listing)
    listing.set_defaults(func=_list)
    show = actions.add_parser(
        "show",
        help="describe normaliser NAME (and how it differs from a publication's rule), or "
        "print every view of TEXT under it",
    )
    show.add_argument("name", metavar="NAME", help="normaliser name, e.g. zh-eval-v1")
    show.add_argument(
        "text", metavar="TEXT", nargs="?", help="the text (the hypothesis with --reference)"
    )
    show.add_argument(
        "--reference",
        metavar="REF",
        help="show the pair (REF, TEXT): pair-dependent views use REF's script",
    )
    add_json(show, "the views")
    show.set_defaults(func=_show)


def _list(args: argparse.Namespace) -> int:
    from earmark.text import available_normalizers, get_normalizer

    normalizers = [get_normalizer(name) for name in available_normalizers()]
    if args.json:
        rows = [
            {
                "name": n.name,
                "description": n.description,
                "views": list(n.views),
                "primary_view": n.primary_view,
                "units": list(n.units),
                "comparison_only": n.comparison_only,
            }
            for n in normalizers
        ]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0

    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title="Text normalisers (primary view marked *)", show_lines=True)
    for column in ("name", "units", "views", "description"):
        table.add_column(column, overflow="fold")
    for n in normalizers:
        name = f"{n.name}\n(comparison only)" if n.comparison_only else n.name
        views = ", ".join(f"{v}*" if v == n.primary_view else v for v in n.views)
        table.add_row(Text(name), Text(", ".join(n.units)), Text(views), Text(n.description))
    Console(file=sys.stdout, highlight=False).print(table)
    return 0


def _describe(normalizer: Any, as_json: bool) -> int:
    """What a normaliser is, and every documented difference from a publication's rule."""
    from earmark.text import get_normalizer
    from earmark.text.base import published_differences

    differences = published_differences(normalizer)
    if as_json:
        out = {
            "name": normalizer.name,
            "description": normalizer.description,
            "views": list(normalizer.views),
            "primary_view": normalizer.primary_view,
            "units": list(normalizer.units),
            "comparison_only": normalizer.comparison_only,
            "differs_from_publication": [d.to_dict() for d in differences],
        }
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    print(f"{normalizer.name}: {normalizer.description}")
    print(
        f"views: {', '.join(normalizer.views)} (primary: {normalizer.primary_view}); "
        f"units: {', '.join(normalizer.units)}"
    )
    if normalizer.comparison_only:
        print("comparison only: do not publish its absolute figures")
    for d in differences:
        print()
        print(f"Differs from {d.publication} (normaliser {d.normalizer}):")
        for line in d.differences:
            print(f"  - {line}")
        if d.example is not None:
            reference, hypothesis = d.example
            ours = _example_wer(normalizer, reference, hypothesis)
            theirs = _example_wer(get_normalizer(d.normalizer), reference, hypothesis)
            print(
                f"  e.g. reference {reference!r}, hypothesis {hypothesis!r}: WER {ours} "
                f"under {normalizer.name}, {theirs} under {d.normalizer}"
            )
        if d.protocol:
            print(f"  To reproduce the publication's figures: --protocol {d.protocol}")
    return 0


def _example_wer(normalizer: Any, reference: str, hypothesis: str) -> str:
    from earmark.metrics.alignment import count_errors_array

    pair = normalizer.normalize_pair(reference, hypothesis)[normalizer.primary_view]
    s, d, i, h = count_errors_array([(pair.reference, pair.hypothesis)], units="words")[0]
    return f"{100 * (s + d + i) / (s + d + h):.0f}% ({s + d + i}/{s + d + h} words)"


def _show(args: argparse.Namespace) -> int:
    from earmark.text import get_normalizer

    normalizer = get_normalizer(args.name)
    if args.text is None:
        if args.reference is not None:
            from earmark.errors import EarmarkError

            raise EarmarkError("--reference needs a TEXT (the hypothesis)", field="reference")
        return _describe(normalizer, args.json)
    reference = args.text if args.reference is None else args.reference
    pair = normalizer.normalize_pair(reference, args.text)
    if args.json:
        if args.reference is None:
            out: dict[str, object] = {
                view: {"text": p.reference, "null_reason": p.null_reason}
                for view, p in pair.items()
            }
        else:
            out = {
                view: {
                    "reference": p.reference,
                    "hypothesis": p.hypothesis,
                    "null_reason": p.null_reason,
                }
                for view, p in pair.items()
            }
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    width = max(len(view) for view in pair)
    for view, p in pair.items():
        label = f"{view}*" if view == normalizer.primary_view else view
        if not p.available:
            print(f"{label:<{width + 1}}  null ({p.null_reason})")
        elif args.reference is None:
            print(f"{label:<{width + 1}}  {p.reference}")
        else:
            print(f"{label:<{width + 1}}  ref: {p.reference}")
            print(f"{'':<{width + 1}}  hyp: {p.hypothesis}")
    return 0
