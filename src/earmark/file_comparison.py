"""`earmark compare` as a call: read the arms named on the command line (run folders,
`RUN#ARM`, prediction files), compare them, write `compare.json`/`compare.md`; and the
cross-corpus gap (`compare --gap`), written as `gap.json`/`gap.md`.

The comparison itself (`earmark.comparison.api.compare_arms`, `earmark.comparison.gap.corpus_gap`)
takes arms already read; reading and writing folders sits here, above the run directory.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from earmark.collector import collector_paused
from earmark.comparison.api import compare_arms
from earmark.comparison.gap import corpus_gap, render_gap_markdown
from earmark.comparison.loading import ArmData
from earmark.comparison.options import MAPSSWE_ALIGNMENTS, Aggregate, CompareOptions
from earmark.comparison.parallel import default_jobs
from earmark.errors import EarmarkError
from earmark.outputs import atomic_write_json, atomic_write_text, claim_output_folder
from earmark.results.codec import JSONValue
from earmark.results.comparison import Comparison
from earmark.rundir.arm_inputs import load_arm_specs, load_arms
from earmark.rundir.layout import COMPARE
from earmark.scoring.protocols import ScoringChoice, resolve
from earmark.stats.settings import DEFAULT_GENERATOR, DEFAULT_SEED, BootstrapSettings


def write_compare(out_dir: str | os.PathLike[str], result: Comparison) -> Path:
    """Write compare.json (the one place it becomes JSON) and compare.md; returns the
    JSON path."""
    from earmark.comparison.compare_report import render_compare_markdown

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    claim_output_folder(out, "compare")
    path = out / COMPARE
    result.to_path(path)
    atomic_write_text(out / "compare.md", render_compare_markdown(result))
    return path


def compare(
    specs: Sequence[str],
    *,
    normalizer: str | None = None,
    reference: str | None = None,
    aggregate: Aggregate | None = None,
    resamples: int | None = None,
    seed: int | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    protocol: str | None = None,
    mapsswe: str = "earmark",
    generator: str | None = None,
) -> Comparison:
    """Load arms from specs (see `earmark.rundir.arm_inputs`), compare, optionally write.

    `protocol` fixes normaliser, aggregation, resamples and seed (settings given with it
    must agree); without one: micro, 10,000 resamples, seed `DEFAULT_SEED`, `normalizer`
    required. `jobs` (default: the cores available) only changes the speed, never a
    number. `mapsswe` ("earmark" or "sclite") chooses the alignment MAPSSWE segments
    (`earmark.comparison.options.CompareOptions.mapsswe`). `generator` draws every
    interval (default `DEFAULT_GENERATOR`); a protocol fixes its own."""
    if mapsswe not in MAPSSWE_ALIGNMENTS:
        raise EarmarkError(
            f"unknown MAPSSWE alignment {mapsswe!r}", field="mapsswe", hint="earmark or sclite"
        )
    choice = resolve(
        protocol,
        normalizer=normalizer,
        aggregate=aggregate,
        resamples=resamples,
        seed=seed,
        flags={"normalizer": "normalizer", "resamples": "resamples"},
    )
    if generator is not None and protocol is not None:
        raise EarmarkError(
            f"protocol {protocol} fixes its own bootstrap generator",
            field="bootstrap_generator",
            hint="drop --bootstrap-generator, or drop --protocol",
        )
    bootstrap = BootstrapSettings(
        resamples=choice.resamples, seed=choice.seed, generator=generator or DEFAULT_GENERATOR
    )
    jobs = default_jobs() if jobs is None else jobs
    # Rows are read, counted and compared as many small objects in no reference cycle:
    # the cyclic collector's passes over them cost a tenth of the run (as in `score`).
    with collector_paused():
        return _compare(specs, choice, bootstrap, reference, out_dir, jobs, mapsswe == "sclite")


def _compare(
    specs: Sequence[str],
    choice: ScoringChoice,
    bootstrap: BootstrapSettings,
    reference: str | None,
    out_dir: str | os.PathLike[str] | None,
    jobs: int,
    sclite_mapsswe: bool = False,
) -> Comparison:
    arms = load_arm_specs(list(specs), jobs=jobs)
    if reference is not None and reference not in arms and reference in specs:
        # The reference may be given as one of the ARM specs (`RUN_DIR#ARM`, a file):
        # it names the arm that spec loaded, when it loaded exactly one.
        loaded = load_arm_specs([reference])
        if len(loaded) == 1:
            reference = next(iter(loaded))
    options = CompareOptions(
        normalizer=choice.normalizer,
        reference=reference,
        aggregate=choice.aggregate,
        bootstrap=bootstrap,
        protocol=choice.protocol,
        mapsswe="sclite" if sclite_mapsswe else "earmark",
    )
    result = compare_arms(arms, options, jobs=jobs, release_rows=True)
    if out_dir is not None:
        write_compare(out_dir, result)
    return result


def _pick_arm(spec: str, arm: str | None) -> ArmData:
    arms = load_arms(spec if arm is None or "#" in spec else f"{spec}#{arm}")
    if len(arms) != 1:
        raise EarmarkError(
            f"{spec} holds {len(arms)} arms ({', '.join(a.name for a in arms)})",
            hint="name the system with --arm NAME (or RUN_DIR#ARM)",
        )
    return arms[0]


def gap(
    run_a: str,
    run_b: str,
    *,
    normalizer: str,
    arm: str | None = None,
    aggregate: str = "micro",
    resamples: int = 10_000,
    seed: int = DEFAULT_SEED,
    out_dir: str | os.PathLike[str] | None = None,
) -> dict[str, JSONValue]:
    """Load the arm from both runs, compute the gap, optionally write gap.json/gap.md."""
    result = corpus_gap(
        _pick_arm(run_a, arm),
        _pick_arm(run_b, arm),
        normalizer=normalizer,
        aggregate=aggregate,
        resamples=resamples,
        seed=seed,
    )
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        claim_output_folder(out, "compare")
        atomic_write_json(out / "gap.json", result)
        atomic_write_text(out / "gap.md", render_gap_markdown(result))
    return result
