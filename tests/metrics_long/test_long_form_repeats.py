"""Long-form figures with `--repeats`: the repeats of one recording are one bootstrap cluster.

Three one-interval recordings of four reference words, with 0, 2 and 4 word errors,
each decoded twice (identical decodes, as a deterministic engine gives). Pooled interval
WER = 12 / 24 = 0.5 whatever the clustering; the interval around it must come from
resampling 3 recordings, not 6 rows as if each repeat were new audio.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from earmark.corpus.model import Utterance
from earmark.execution.timing_sections import long_form
from earmark.scoring.long_form_section import SegmentedRecording, long_form_section
from earmark.scoring.policy import NormalizerPolicy
from earmark.stats.bootstrap import bootstrap_ci
from earmark.stats.settings import BootstrapSettings

AUTO = NormalizerPolicy.parse("auto")
REFERENCE = "red green blue white"
#: Hypothesis per recording and the word errors it makes against REFERENCE.
HYPOTHESES = {"a": ("red green blue white", 0), "b": ("red green pink gold", 2), "c": ("", 4)}
RESAMPLES = 500
SEED = 7


def _segments(text: str) -> list[list[object]]:
    return [[0.0, 10.0, text]] if text else []


def _recordings(*, clustered: bool) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for rec, (hyp, _) in HYPOTHESES.items():
        for repeat in range(2):
            row: dict[str, object] = {
                "id": f"{rec}#{repeat}",
                "language": "en",
                "reference_segments": _segments(REFERENCE),
                "hypothesis_segments": _segments(hyp),
            }
            if clustered:
                row["cluster"] = rec
            rows.append(row)
    return rows


def _columns() -> tuple[list[int], list[int]]:
    errors = [e for _, e in HYPOTHESES.values() for _ in range(2)]
    return errors, [4] * len(errors)


def _rate(section: dict[str, object]) -> dict[str, object]:
    return section["by_language"]["en"]["interval_error_rate"]  # type: ignore[index]


def test_repeats_ci_is_the_clustered_bootstrap() -> None:
    section = long_form_section(_recordings(clustered=True), AUTO, resamples=RESAMPLES, seed=SEED)
    assert section is not None
    rate = _rate(section)
    assert rate["value"] == pytest.approx(0.5)
    counts = section["by_language"]["en"]["counts"]
    assert (counts["substitutions"], counts["deletions"], counts["ref_units"]) == (4, 8, 24)
    errors, refs = _columns()
    clustered = bootstrap_ci(
        errors, refs, clusters=["a", "a", "b", "b", "c", "c"], resamples=RESAMPLES, seed=SEED
    )
    unclustered = bootstrap_ci(errors, refs, resamples=RESAMPLES, seed=SEED)
    assert rate["ci95"] == [clustered.low, clustered.high]
    assert rate["n_clusters"] == clustered.n_clusters == 3
    assert unclustered.n_clusters == 6
    assert [unclustered.low, unclustered.high] != [clustered.low, clustered.high]
    # Two identical decodes add no information: the interval is that of one decode each.
    once = bootstrap_ci([0, 2, 4], [4, 4, 4], resamples=RESAMPLES, seed=SEED)
    assert rate["ci95"] == pytest.approx([once.low, once.high])


def test_without_cluster_each_recording_is_its_own_cluster() -> None:
    section = long_form_section(_recordings(clustered=False), AUTO, resamples=RESAMPLES, seed=SEED)
    assert section is not None
    errors, refs = _columns()
    unclustered = bootstrap_ci(errors, refs, resamples=RESAMPLES, seed=SEED)
    assert _rate(section)["ci95"] == [unclustered.low, unclustered.high]
    assert _rate(section)["n_clusters"] == 6


def test_segmented_recording_cluster_id() -> None:
    assert SegmentedRecording("a#1", "en", [], [], cluster="a").cluster_id == "a"
    assert SegmentedRecording("a", "en", [], []).cluster_id == "a"
    assert SegmentedRecording.from_mapping({"id": "x#0", "cluster": 5}).cluster == "5"


def test_runner_long_form_clusters_repeats_by_utterance() -> None:
    """`long_form` (what `earmark run --repeats 2` calls) passes the utterance id as cluster."""
    utterances = [
        Utterance(rec, f"{rec}.wav", REFERENCE, "en", custom={"segments": _segments(REFERENCE)})
        for rec in HYPOTHESES
    ]
    raw_rows = [
        {
            "id": rec,
            "repeat": repeat,
            "status": "ok",
            "hypothesis": hyp,
            "segments": _segments(hyp),
        }
        for rec, (hyp, _) in HYPOTHESES.items()
        for repeat in range(2)
    ]
    plan = SimpleNamespace(repeats=2, bootstrap=RESAMPLES, seed=SEED)
    scoring = SimpleNamespace(policy=AUTO, bootstrap=BootstrapSettings(RESAMPLES, SEED, 0.95))
    section = long_form(utterances, raw_rows, plan, scoring)  # type: ignore[arg-type]
    assert section is not None
    assert section["n_recordings"] == 6
    errors, refs = _columns()
    clustered = bootstrap_ci(
        errors, refs, clusters=["a", "a", "b", "b", "c", "c"], resamples=RESAMPLES, seed=SEED
    )
    assert _rate(section)["ci95"] == [clustered.low, clustered.high]
    assert _rate(section)["n_clusters"] == 3
