"""One `BootstrapSettings` (the three numbers that draw an interval) and one
`BootstrapRecord` (the results file's `bootstrap` block that records them)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

import earmark.results
from earmark.errors import EarmarkError
from earmark.formats.rows import ScoringRow
from earmark.results import BootstrapRecord
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.protocols import get_protocol
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import DEFAULT_SEED, UNNAMED_GENERATOR, BootstrapSettings

SRC = Path(earmark.__file__).parent
EXAMPLE_RUNS = [
    Path(__file__).parents[1] / "report" / "data" / "example-run" / "results.json",
    Path(__file__).parents[1] / "compare" / "data" / "example-run" / "results.json",
]


def test_one_class_is_named_bootstrap_settings() -> None:
    defined = [
        str(path.relative_to(SRC))
        for path in sorted(SRC.rglob("*.py"))
        if re.search(r"^class BootstrapSettings\b", path.read_text("utf-8"), re.M)
    ]
    assert defined == ["stats/settings.py"]
    assert not hasattr(earmark.results, "BootstrapSettings")


def test_scoring_options_hold_the_settings_not_three_loose_fields() -> None:
    names = {f.name for f in dataclasses.fields(ScoringOptions)}
    assert "bootstrap" in names and not names & {"resamples", "seed", "level"}
    options = ScoringOptions(NormalizerPolicy.parse("none"))
    assert options.bootstrap == BootstrapSettings(10_000, DEFAULT_SEED, 0.95)


def test_the_written_block_starts_with_the_settings_and_reads_back_as_the_record() -> None:
    settings = BootstrapSettings(resamples=40, seed=11, level=0.9)
    rows = [ScoringRow(str(i), "a b c", "a x c" if i % 2 else "a b c") for i in range(6)]
    block = score_rows(
        rows, ScoringOptions(NormalizerPolicy.parse("none"), bootstrap=settings)
    ).to_dict()["bootstrap"]
    assert list(block)[:3] == ["resamples", "seed", "level"]
    keys = ("resamples", "seed", "level", "generator")  # the generator after the unit
    assert {k: block[k] for k in keys} == settings.to_dict()
    record = BootstrapRecord.from_dict(block, "bootstrap")
    assert (record.resamples, record.seed, record.level, record.method) == (
        40,
        11,
        0.9,
        "percentile",
    )
    assert record.to_dict() == block


@pytest.mark.parametrize("path", EXAMPLE_RUNS, ids=["report", "compare"])
def test_every_checked_in_block_rebuilds_from_the_settings(path: Path) -> None:
    """The checked-in runs were written before the settings object, and before results
    named their generator (numpy-pcg64 then): the options built from their recorded numbers
    write the same block, key for key and in order, and name that generator after `level`."""
    for name, arm in json.loads(path.read_text("utf-8"))["arms"].items():
        recorded = arm["bootstrap"]
        assert "generator" not in recorded
        settings = BootstrapSettings(
            recorded["resamples"], recorded["seed"], recorded["level"], UNNAMED_GENERATOR
        )
        options = ScoringOptions(
            NormalizerPolicy.parse("none"),
            bootstrap=settings,
            cluster=recorded.get("cluster", "clip"),
        )
        written = dict(options.to_dict()["bootstrap"])  # type: ignore[arg-type]
        assert written.pop("generator") == UNNAMED_GENERATOR
        assert written == recorded, name
        assert list(written) == list(recorded), name


def test_a_protocol_still_fixes_seed_and_level_and_allows_zero_resamples() -> None:
    p = get_protocol("blasbench-v1")
    policy = NormalizerPolicy.parse(p.normalizer)
    ok = BootstrapSettings(p.resamples, p.seed, p.level, UNNAMED_GENERATOR)
    ScoringOptions(policy, aggregate=p.aggregate, bootstrap=ok, protocol=p)
    with pytest.raises(EarmarkError, match="draws its intervals with numpy-pcg64"):
        ScoringOptions(
            policy,
            aggregate=p.aggregate,
            bootstrap=dataclasses.replace(ok, generator="numpy-pcg64-poisson"),
            protocol=p,
        )
    ScoringOptions(
        policy, aggregate=p.aggregate, bootstrap=dataclasses.replace(ok, resamples=0), protocol=p
    )
    for wrong in ({"seed": p.seed + 1}, {"level": 0.9}, {"resamples": p.resamples + 1}):
        with pytest.raises(EarmarkError, match="contradict protocol blasbench-v1"):
            ScoringOptions(
                policy,
                aggregate=p.aggregate,
                bootstrap=dataclasses.replace(ok, **wrong),  # type: ignore[arg-type]
                protocol=p,
            )
