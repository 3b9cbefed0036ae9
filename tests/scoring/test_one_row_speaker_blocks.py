"""A one-row speaker block takes shortcuts (its row's hallucination flags as the block's,
the run's metric settings made once): its figures are those of the hand-computed row.

Rows chosen to raise every flag: output on no-speech, an empty output, a runaway output
(more than 2x the reference's words and 3 more) and a repetition loop.
"""

from __future__ import annotations

from earmark.formats.rows import ScoringRow
from earmark.scoring.blocks import _metric_settings
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import BootstrapSettings

_LOOP = " ".join(["again"] * 12)
#: id, reference, hypothesis, the speaker's expected hallucination counters.
_ROWS = [
    ("u1", "", "hello there", {"no_speech_rows": 1, "no_speech_with_output": 1}),
    ("u2", "a b c", "", {"empty_outputs": 1}),
    ("u3", "a b", "a b c d e f", {"runaway_outputs": 1}),
    ("u4", "again", _LOOP, {"runaway_outputs": 1, "repetition_loops": 1}),
    ("u5", "a b c", "a x c", {}),
]
_ZERO = {
    "rows": 1,
    "no_speech_rows": 0,
    "no_speech_with_output": 0,
    "empty_outputs": 0,
    "repetition_loops": 0,
    "runaway_outputs": 0,
}


def _options() -> ScoringOptions:
    return ScoringOptions(
        policy=NormalizerPolicy.parse("none"), bootstrap=BootstrapSettings(resamples=50, seed=3)
    )


def test_each_one_row_speaker_has_its_rows_flags() -> None:
    rows = [ScoringRow(i, r, h, "en", (), extra={"speaker": i}) for i, r, h, _ in _ROWS]
    by_speaker = score_rows(rows, _options()).arm.by_language["en"].by_speaker or {}
    assert sorted(by_speaker) == [i for i, *_ in _ROWS]
    for i, _ref, _hyp, flags in _ROWS:
        h = by_speaker[i].hallucination
        got = {k: getattr(h, k) for k in _ZERO}
        assert got == {**_ZERO, **flags}, i
    wer = by_speaker["u5"].views["raw"].metrics["wer"]
    assert (wer.value, wer.ci, wer.substitutions) == (1 / 3, (1 / 3, 1 / 3), 1)


def test_metric_settings_follow_the_options_object() -> None:
    """Two options objects never share settings, however the cache was left."""
    first, second = (
        _options(),
        ScoringOptions(
            policy=NormalizerPolicy.parse("none"), bootstrap=BootstrapSettings(resamples=7, seed=9)
        ),
    )
    assert _metric_settings(first) == first.metric_settings
    assert _metric_settings(first) is _metric_settings(first)
    assert (_metric_settings(second).resamples, _metric_settings(second).seed) == (7, 9)
    assert _metric_settings(first).resamples == 50
