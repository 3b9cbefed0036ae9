"""`earmark.postprocess`: a formatter or script converter evaluated on a run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from earmark.api.values import PathArg, check_count, check_out

if TYPE_CHECKING:
    from earmark.results import JSONValue


def postprocess(
    *,
    run: PathArg,
    out: PathArg,
    processor: str | None = None,
    repeats: int | None = None,
    plan: PathArg | None = None,
    expect_sha256: str | None = None,
    arm: str | None = None,
    allow_substitution: Sequence[str] = (),
    guard_marks: str = "",
    bootstrap: int | None = None,
    seed: int | None = None,
) -> dict[str, JSONValue]:
    """`earmark postprocess --run RUN --processor SPEC --out OUT`: every transcript sent
    through the processor `repeats` times, guarded, and measured (acceptance, punctuation
    F1 raw vs delivered, CER equality, determinism). Returns postprocess.json's content
    (the results model has no type for it yet), written into OUT with postprocess.md and
    the delivered predictions.jsonl."""
    from earmark.postprocess.api import postprocess_run

    check_out(out)
    check_count("repeats", repeats, 1)
    check_count("bootstrap", bootstrap, 0)
    document: dict[str, JSONValue] = postprocess_run(
        run,
        processor,
        repeats=repeats,
        out_dir=out,
        arm=arm,
        allow_substitutions=allow_substitution,
        guard_marks=guard_marks,
        resamples=bootstrap,
        seed=seed,
        plan=plan,
        expect_sha256=expect_sha256,
    )
    return document
