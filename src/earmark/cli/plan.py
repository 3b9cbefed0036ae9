"""`earmark plan freeze|show`: freeze a TOML plan before any data is acquired (seed 001).

Freezing reads the plan only: no manifest, sidecar or audio needs to exist yet. A
`[postprocess]` table freezes a post-processor's settings too (`earmark.postprocess.plan`).
"""

from __future__ import annotations

import argparse

from earmark.cli.options import Subcommands, add_verbs


def register(sub: Subcommands) -> None:
    p = sub.add_parser("plan", help="freeze or show a run plan (TOML)")
    verbs = add_verbs(p, "plan_command", "VERB")
    freeze = verbs.add_parser(
        "freeze",
        help="check PLAN.toml's structure (no data needed) and write PLAN.toml.sha256 (its "
        "bytes' SHA-256, and a [postprocess] prompt file's, recorded in the plan)",
    )
    freeze.add_argument("plan")
    freeze.set_defaults(func=run_freeze)
    show = verbs.add_parser(
        "show",
        help="print the parsed plan, its canonical SHA-256 and the file's, and its "
        "[postprocess] table",
    )
    show.add_argument("plan")
    show.set_defaults(func=run_show)


def run_freeze(args: argparse.Namespace) -> int:
    from earmark.api.running import plan_freeze
    from earmark.rundir.plan_file import read_plan_toml

    frozen = plan_freeze(args.plan)
    data = read_plan_toml(args.plan)
    verbs = [v for v, key in (("run", "arms"), ("postprocess", "postprocess")) if key in data]
    digest = frozen.sha256
    if frozen.prompt_sha256_added:
        print(
            f"recorded prompt_sha256 = {frozen.prompt_sha256_added} in {args.plan}'s "
            "[postprocess] table (the prompt file's SHA-256)"
        )
    print(f"{digest}  {args.plan}")
    print(
        f"wrote {frozen.record}; use it with: earmark {'|'.join(verbs)} --plan {args.plan} "
        f"--expect-sha256 {digest}"
    )
    return 0


def run_show(args: argparse.Namespace) -> int:
    import json

    from earmark.api.running import plan_show

    print(json.dumps(plan_show(args.plan), indent=2, ensure_ascii=False))
    return 0
