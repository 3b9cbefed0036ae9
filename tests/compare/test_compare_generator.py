"""`compare --bootstrap-generator`: every interval drawn by the named generator, recorded;
point values never depend on it; a protocol fixes its own generator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from compare_fixtures import write_rows

from earmark.api import comparing as api
from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.file_comparison import compare
from earmark.stats.bootstrap import bootstrap_statistic, paired_bootstrap, ratio_of_sums

POISSON = "numpy-pcg64-poisson"
EXACT = "numpy-pcg64"

#: (id, human reference, reference arm's hypothesis, challenger's hypothesis)
ROWS = [
    (f"u{i:02d}", ref, hyp, alt)
    for i, (ref, hyp, alt) in enumerate(
        [
            ("the cat sat on the mat", "the cat sat on a mat", "the cat sat on the mat"),
            ("hello world", "hello world", "hello word"),
            ("one two three four", "one two three", "one two three four"),
            ("a b c d e", "a b c d e", "a b c d"),
            ("go home now", "go home", "go home"),
            ("red green blue", "red green blue", "red grin blue"),
        ]
        * 4
    )
]


def _arms(folder: Path) -> list[str]:
    def rows(pick: int) -> list[dict[str, Any]]:
        return [{"id": r[0], "reference": r[1], "hypothesis": r[pick]} for r in ROWS]

    return [write_rows(folder / "base.jsonl", rows(2)), write_rows(folder / "alt.jsonl", rows(3))]


def _strip_intervals(value: Any) -> Any:
    """The compare.json content without intervals, shares of resamples and the record."""
    if isinstance(value, dict):
        skip = {"ci95", "share_challenger_better", "share_tied", "created", "bootstrap"}
        return {k: _strip_intervals(v) for k, v in value.items() if k not in skip}
    if isinstance(value, list):
        return [_strip_intervals(v) for v in value]
    return value


def test_the_generator_draws_every_interval_and_is_recorded(tmp_path: Path) -> None:
    specs = _arms(tmp_path)
    kwargs: dict[str, Any] = {"normalizer": "none", "resamples": 300, "seed": 7, "jobs": 1}
    exact = compare(specs, generator=EXACT, **kwargs).to_dict()
    poisson = compare(specs, generator=POISSON, **kwargs).to_dict()
    assert poisson["bootstrap"]["generator"] == POISSON
    assert _strip_intervals(poisson) == _strip_intervals(exact)

    # Each interval is the generator's own draw on the same columns (oracles: stats).
    errors_base = np.array([1, 0, 1, 0, 1, 0] * 4)
    errors_alt = np.array([0, 1, 0, 1, 1, 1] * 4)
    words = np.array([6, 2, 4, 5, 3, 3] * 4)
    for generator, result in ((EXACT, exact), (POISSON, poisson)):
        wer = bootstrap_statistic(
            (errors_alt, words), ratio_of_sums, resamples=300, seed=7, generator=generator
        )
        assert result["arms"]["alt"]["vs_human"]["wer"]["ci95"] == [wer.low, wer.high]
        matches = np.array([0, 0, 0, 0, 1, 0] * 4)
        share = bootstrap_statistic(
            (matches, np.ones(matches.size)),
            ratio_of_sums,
            resamples=300,
            seed=7,
            generator=generator,
        )
        got = result["arms"]["alt"]["exact_match_vs_reference"]
        assert got["value"] == pytest.approx(1 / 6)
        assert got["ci95"] == [share.low, share.high]
        paired = paired_bootstrap(
            errors_base, errors_alt, words, resamples=300, seed=7, generator=generator
        )
        (pair,) = [p for p in result["pairs"] if p["metric"] == "wer" and p["language"] is None]
        assert pair["difference"] == pytest.approx(4 / 23 - 3 / 23)
        assert pair["ci95"] == [paired.low, paired.high]
        assert pair["share_challenger_better"] == paired.share_b_better
    assert (
        exact["arms"]["alt"]["vs_human"]["wer"]["ci95"]
        != poisson["arms"]["alt"]["vs_human"]["wer"]["ci95"]
    )


def test_the_cli_passes_the_flag_and_writes_what_the_api_gives(tmp_path: Path) -> None:
    specs = _arms(tmp_path)
    out = tmp_path / "out"
    argv = ["compare", *specs, "--normalizer", "none", "--bootstrap", "200"]
    assert main([*argv, "--bootstrap-generator", POISSON, "--out", str(out), "--quiet"]) == 0
    written = json.loads((out / "compare.json").read_text("utf-8"))
    direct = api.compare(specs, normalizer="none", bootstrap=200, bootstrap_generator=POISSON)
    assert written["bootstrap"]["generator"] == POISSON
    assert _strip_intervals(written) == _strip_intervals(direct.to_dict())
    assert written["pairs"][0]["ci95"] == direct.to_dict()["pairs"][0]["ci95"]


def test_bad_generators_and_protocols_are_refused(tmp_path: Path) -> None:
    specs = _arms(tmp_path)
    with pytest.raises(EarmarkError, match="invalid choice 'mt19937'"):
        api.compare(specs, normalizer="none", bootstrap_generator="mt19937")
    with pytest.raises(EarmarkError, match="fixes its own bootstrap generator"):
        compare(specs, protocol="blasbench-v1", generator=EXACT)
    with pytest.raises(SystemExit):
        main(["compare", *specs, "--normalizer", "none", "--bootstrap-generator", "x\x00"])
    code = main(
        ["compare", "--gap", specs[0], specs[1], "--normalizer", "none"]
        + ["--bootstrap-generator", POISSON, "--out", str(tmp_path / "g")]
    )
    assert code != 0
