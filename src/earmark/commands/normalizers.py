"""`earmark normalizers`: list the versioned normalisers, or show every view of a text.

Usage: `earmark normalizers` (a table of names, units, views, descriptions);
`earmark normalizers show zh-eval-v1 "ＡＢＣ，你好"` (every view of a text);
`earmark normalizers show zh-eval-v1 "这里" --reference "這裡"` (the views of a pair).
"""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "normalizers",
        help="list text normalisers, or show the views of a text",
        description="List the registered text normalisers, or show every view of a text.",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=_list)
    actions = parser.add_subparsers(dest="normalizers_action", metavar="ACTION")
    listing = actions.add_parser("list", help="list normalisers (the default)")
    listing.add_argument("--json", action="store_true", help="print JSON instead of a table")
    listing.set_defaults(func=_list)
    show = actions.add_parser("show", help="print every view of TEXT under normaliser NAME")
    show.add_argument("name", metavar="NAME", help="normaliser name, e.g. zh-eval-v1")
    show.add_argument("text", metavar="TEXT", help="the text (the hypothesis with --reference)")
    show.add_argument(
        "--reference",
        metavar="REF",
        help="show the pair (REF, TEXT): pair-dependent views use REF's script",
    )
    show.add_argument("--json", action="store_true", help="print JSON instead of lines")
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


def _show(args: argparse.Namespace) -> int:
    from earmark.text import get_normalizer

    normalizer = get_normalizer(args.name)
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
