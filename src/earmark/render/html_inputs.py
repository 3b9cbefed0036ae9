"""What the page is rendered from: results.json typed once, beside the run's other files.

Section renderers read figures from `earmark.results` objects (`Results`, `ArmResult`,
`ScopeResult`, `ViewResult`, `MetricResult`) instead of walking nested dictionaries.
Prediction rows, provenance.json and compare.json are still read as the run directory
holds them. Typing every row (`PredictionRow.from_dict`, ~5x faster than it was) still
costs about ten times the worst-utterances section that reads them (31,000 rows: 0.46 s
as dicts, ~0.6 s to type them with the garbage collector paused and ~4.7 s with it on,
the run directory's parsed rows being on the heap it walks). provenance.json has no typed
model, and compare.json is read as-is because a partial one (hand-written in tests)
still renders.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from earmark.render.run_directory import RunDirectory
from earmark.results import ModelInfo, Results, ScopeResult, ViewResult
from earmark.results.display import fmt_rate, fmt_sdi


@dataclass(frozen=True)
class ReportInputs:
    """One run, its results typed (`results`) and its raw files (`run`)."""

    run: RunDirectory
    results: Results

    @classmethod
    def of(cls, run: RunDirectory) -> ReportInputs:
        return cls(run, Results.from_dict(run.results))

    def blocks(self) -> Iterator[tuple[str, str, ScopeResult]]:
        """(arm, language, block) for every per-language block, in file order."""
        for arm_name, arm in self.results.arms.items():
            for lang, block in arm.by_language.items():
                yield arm_name, lang, block

    def model(self, arm: str) -> ModelInfo:
        """The arm's model record: results.json's, else provenance.json's (empty when
        neither recorded one, as for `earmark score`)."""
        model = self.results.arm(arm).model
        return model if model is not None else ModelInfo.from_dict(self.run.model(arm))

    def arm_rows(self, arm: str) -> list[dict[str, Any]]:
        """The arm's prediction rows, as predictions.jsonl holds them."""
        return self.run.arm_rows(arm)


def primary_metric(block: ScopeResult) -> str:
    """`wer` when the normaliser scores words first, `cer` for character-scored languages
    (as `run_directory.primary_metric_name` decides for a block read as a dict)."""
    units = block.normalizer.units or ("word",)
    return "wer" if units[0] == "word" else "cer"


def primary_view(block: ScopeResult) -> ViewResult:
    """The metrics of the block's primary view."""
    return block.view()


#: `13.20% [9.10, 17.50]`, or `null (reason)`: the page prints a rate with the function
#: results.md uses, so the page and the file agree to the digit.
rate = fmt_rate
#: `S/D/I of N_ref` of a metric's summed counts.
sdi = fmt_sdi
