"""`earmark.api.postprocessing.postprocess`: a formatter or script converter evaluated on
a run (not named by `import earmark`, where `earmark.postprocess` is the package)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from earmark.api.values import PathArg, check_choice, check_count, check_out

if TYPE_CHECKING:
    from earmark.postprocess.report import PostprocessReport


def postprocess(
    *,
    run: PathArg,
    out: PathArg | None = None,
    processor: str | None = None,
    repeats: int | None = None,
    plan: PathArg | None = None,
    expect_sha256: str | None = None,
    arm: str | None = None,
    allow_substitution: Sequence[str] = (),
    guard_marks: str = "",
    bootstrap: int | None = None,
    seed: int | None = None,
    bootstrap_generator: str | None = None,
) -> PostprocessReport:
    """`earmark postprocess --run RUN --processor SPEC --out OUT`: every transcript sent
    through the processor `repeats` times, guarded, and measured (acceptance, punctuation
    F1 raw vs delivered, CER equality, determinism; `bootstrap_generator` draws the
    intervals, None: the default). Returns the typed report; with
    `out`, postprocess.json, postprocess.md and the delivered predictions.jsonl are
    written there."""
    from earmark.postprocess.api import PostprocessOptions, postprocess_transcripts
    from earmark.stats.settings import DEFAULT_GENERATOR, GENERATORS

    check_out(out)
    check_count("repeats", repeats, 1)
    check_count("bootstrap", bootstrap, 0)
    check_choice("bootstrap_generator", bootstrap_generator, GENERATORS)
    options = PostprocessOptions(
        run,
        processor,
        repeats=repeats,
        out=out,
        arm=arm,
        allow_substitutions=tuple(allow_substitution),
        guard_marks=guard_marks,
        resamples=bootstrap,
        seed=seed,
        generator=bootstrap_generator or DEFAULT_GENERATOR,
        plan=plan,
        expect_sha256=expect_sha256,
    )
    return postprocess_transcripts(options)
