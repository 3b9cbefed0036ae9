"""`earmark plan freeze|show`: freeze a TOML plan before any data is acquired (seed 001)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("plan", help="freeze or show a run plan (TOML)")
    verbs = p.add_subparsers(dest="plan_command", metavar="VERB")
    freeze = verbs.add_parser(
        "freeze", help="validate PLAN.toml and write PLAN.toml.sha256 (its bytes' SHA-256)"
    )
    freeze.add_argument("plan")
    freeze.set_defaults(func=run_freeze)
    show = verbs.add_parser("show", help="print the parsed plan and its canonical SHA-256")
    show.add_argument("plan")
    show.set_defaults(func=run_show)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_freeze(args: argparse.Namespace) -> int:
    from earmark.run.plan import freeze_plan

    digest, path = freeze_plan(args.plan)
    print(f"{digest}  {args.plan}")
    print(f"wrote {path}; run it with: earmark run --plan {args.plan} --expect-sha256 {digest}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    import json

    from earmark.run.plan import load_plan

    plan = load_plan(args.plan)
    print(json.dumps({"sha256": plan.sha256(), "plan": plan.to_dict()}, indent=2))
    return 0
