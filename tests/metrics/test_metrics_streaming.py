"""Streaming figures (earmark.metrics.streaming): hand-computed clips, property laws,
numpy as the percentile oracle, and the bounded record that keeps its figures."""

from __future__ import annotations

import random

import numpy as np
import pytest

from earmark.metrics.streaming import (
    PartialResult,
    StreamFigures,
    StreamingTally,
    StreamTrace,
    kept,
    percentile,
    stream_figures,
    updates,
)


def trace(
    texts: list[str],
    final: str,
    *,
    chunk: float = 0.16,
    final_wall: float | None = None,
    last_chunk: float | None = None,
) -> StreamTrace:
    """Partial k (from 1) arrives after k chunks of audio, at wall time k * 10 ms."""
    partials = tuple(PartialResult(k * chunk, k * 0.01, t) for k, t in enumerate(texts, 1))
    end = len(texts) * 0.01
    return StreamTrace(
        partials=partials,
        final_text=final,
        final_wall_seconds=end + 0.05 if final_wall is None else final_wall,
        last_chunk_wall_seconds=end if last_chunk is None else last_chunk,
        audio_seconds=len(texts) * chunk,
        chunk_seconds=chunk,
    )


def test_hand_computed_revisions() -> None:
    # "the cat" -> "the hat sat" -> final "the hat sat down":
    # step 1 keeps "the" of "the cat" (1 revised); step 2 keeps all; final keeps all.
    t = trace(["", "the", "the cat", "the hat sat"], "the hat sat down")
    f = stream_figures(t)
    assert f.ttft_audio_seconds == pytest.approx(0.32)
    assert f.ttft_wall_seconds == pytest.approx(0.02)
    assert f.final_latency_seconds == pytest.approx(0.05)
    assert (f.revised_units, f.final_units) == (1, 4)
    assert f.churn == pytest.approx(0.25)
    # Non-empty updates: "the" (kept), "the cat" (not), "the hat sat" (kept): 2 of 3.
    assert (f.prefix_updates, f.nonempty_updates) == (2, 3)
    assert f.stability == pytest.approx(2 / 3)
    # against_final: "the" 0, "the cat" 1 ("cat"), "the hat sat" 0.
    assert stream_figures(t, churn="against_final").revised_units == 1


def test_modes_differ_when_a_wrong_word_lingers() -> None:
    # "a x" is shown twice with a new word in between: consecutive counts the rewrite
    # once (when it happens); against_final counts it in every update that showed it.
    t = trace(["a x", "a x b"], "a y b")
    assert stream_figures(t).revised_units == 2  # "x","b" of "a x b" lost to "a y b"
    assert stream_figures(t, churn="against_final").revised_units == 1 + 2


def test_a_word_cut_mid_way_and_completed_is_growth_not_churn() -> None:
    assert kept(["the", "hel"], ["the", "hello", "world"]) == 2
    assert kept(["the", "hel"], ["the", "help"]) == 2
    assert kept(["the", "hex"], ["the", "hello"]) == 1
    assert kept(["tha", "cat"], ["the", "cat"]) == 0  # only the last unit may be completed
    f = stream_figures(trace(["he", "hello wo", "hello world"], "hello world"))
    assert (f.revised_units, f.churn, f.stability) == (0, 0.0, 1.0)


def test_character_units_for_text_without_spaces() -> None:
    t = trace(["今天", "今天天", "今天天气"], "今天天气好")
    word = stream_figures(t, unit="word")
    char = stream_figures(t, unit="char")
    assert (char.revised_units, char.final_units, char.stability) == (0, 5, 1.0)
    assert word.final_units == 1 and word.revised_units == 0  # one growing "word"
    changed = stream_figures(trace(["今天", "金天气"], "今天天气"), unit="char")
    # "今天" -> "金天气" keeps nothing (2 revised); "金天气" -> final keeps nothing (3).
    assert (changed.revised_units, changed.final_units) == (5, 4)


def test_silence_and_a_final_only_stream() -> None:
    silent = stream_figures(trace(["", ""], ""))
    assert silent.ttft_wall_seconds is None and silent.ttft_audio_seconds is None
    assert (silent.churn, silent.stability) == (None, None)
    # No partial ever said anything: the first token came with the final, at its time.
    only_final = stream_figures(trace([""], "hi", final_wall=0.4))
    assert only_final.ttft_wall_seconds == pytest.approx(0.4)
    assert only_final.ttft_audio_seconds == pytest.approx(0.16)


def test_unknown_end_of_input_gives_no_final_latency() -> None:
    t = StreamTrace((), "x", final_wall_seconds=1.0, last_chunk_wall_seconds=None, audio_seconds=1)
    assert stream_figures(t).final_latency_seconds is None


def test_a_final_before_the_last_chunk_is_refused() -> None:
    with pytest.raises(ValueError, match="precedes"):
        StreamTrace((), "x", final_wall_seconds=0.1, last_chunk_wall_seconds=0.2, audio_seconds=1)


def test_bad_mode_or_unit_is_refused() -> None:
    t = trace(["a"], "a")
    with pytest.raises(ValueError, match="churn mode"):
        stream_figures(t, churn="later")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unit"):
        stream_figures(t, unit="token")  # type: ignore[arg-type]


WORDS = ("a", "b", "c", "d")


def random_texts(rng: random.Random) -> tuple[list[str], str]:
    final = [rng.choice(WORDS) for _ in range(rng.randint(0, 6))]
    texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 6))) for _ in range(5)]
    return texts, " ".join(final)


@pytest.mark.parametrize("seed", range(40))
def test_laws_on_random_streams(seed: int) -> None:
    rng = random.Random(seed)
    texts, final = random_texts(rng)
    f = stream_figures(trace(texts, final))
    # Repeating a partial (an engine polled more often) changes nothing.
    doubled = [t for t in texts for _ in range(2)]
    assert stream_figures(trace(doubled, final)).revised_units == f.revised_units
    assert stream_figures(trace(doubled, final)).stability == f.stability
    # Bounds: nothing revised is more than was shown; stability is a share.
    shown = sum(len(p.text.split()) for p in updates(trace(texts, final).partials))
    assert 0 <= f.revised_units <= shown
    assert 0 <= f.prefix_updates <= f.nonempty_updates
    # The final shown as the only partial: no churn, fully stable.
    if final:
        g = stream_figures(trace([final], final))
        assert (g.revised_units, g.stability) == (0, 1.0)


@pytest.mark.parametrize("seed", range(40))
def test_an_append_only_stream_has_no_churn_and_full_stability(seed: int) -> None:
    rng = random.Random(seed)
    final = [rng.choice(WORDS) for _ in range(rng.randint(1, 8))]
    cuts = sorted(rng.randint(0, len(final)) for _ in range(rng.randint(1, 6)))
    texts = [" ".join(final[:k]) for k in cuts]
    for mode in ("consecutive", "against_final"):
        f = stream_figures(trace(texts, " ".join(final)), churn=mode)  # type: ignore[arg-type]
        assert f.revised_units == 0 and f.churn == 0.0
        assert f.stability in (None, 1.0)


def test_no_revision_in_consecutive_mode_means_none_against_the_final() -> None:
    for seed in range(200):
        texts, final = random_texts(random.Random(seed))
        t = trace(texts, final)
        if stream_figures(t).revised_units == 0:
            assert stream_figures(t, churn="against_final").revised_units == 0


def test_percentile_matches_numpy() -> None:
    rng = random.Random(3)
    for n in (1, 2, 5, 17):
        values = [rng.random() for _ in range(n)]
        for q in (0, 50, 95, 100):
            assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)))
    assert percentile([], 50) is None


def test_tally_adds_and_rates_come_from_summed_counts() -> None:
    a = stream_figures(trace(["x y"], "x z"))  # 1 revised of 2
    b = stream_figures(trace(["p"], "p q r s t u v w"))  # 0 of 8
    tally = sum((StreamingTally.of(f) for f in (a, b)), StreamingTally.zero())
    assert (tally.clips, tally.revised_units, tally.final_units) == (2, 1, 10)
    assert tally.churn == pytest.approx(0.1)  # not the mean of 0.5 and 0.0
    assert StreamingTally.of(a) + StreamingTally.zero() == StreamingTally.of(a)
    assert (StreamingTally.of(a) + StreamingTally.of(b)).ttft_wall_seconds == (0.01, 0.01)
    out = tally.to_json()
    assert out["ttft_wall_p50_seconds"] == pytest.approx(0.01)
    assert out["final_latency_clips"] == 2 and out["stability"] == pytest.approx(0.5)


def test_record_round_trips_and_bounds_its_partials_but_not_its_figures() -> None:
    texts = [" ".join(["w"] * k) for k in range(1, 101)]  # 100 updates
    full = trace(texts, " ".join(["w"] * 100))
    bounded = StreamTrace(**{**full.__dict__, "max_recorded": 10})
    record = bounded.to_json()
    assert record["updates_total"] == 100
    assert len(record["partials"]) == 10
    assert record["updates_omitted"] == {"after": 5, "count": 90}
    assert [p[2] for p in record["partials"]][4:6] == [texts[4], texts[95]]
    # Times are kept to the microsecond; the figures are those of all 100 updates.
    assert record["figures"]["word"] == stream_figures(full).to_json()
    assert StreamFigures.from_json(record["figures"]["word"]).nonempty_updates == 100
    small = trace(["a", "a b"], "a b c").to_json()
    assert "updates_omitted" not in small
    back = StreamTrace.from_json(small)
    assert stream_figures(back).to_json() == small["figures"]["word"]
    assert back.partials == trace(["a", "a b"], "a b c").partials


def test_docstring_example() -> None:
    import doctest

    import earmark.metrics.streaming as module

    result = doctest.testmod(module, raise_on_error=False)
    assert result.attempted > 0 and result.failed == 0


def test_the_worked_example_of_docs_streaming_md() -> None:
    t = trace(["", "the", "the cat", "the cat is", "the hat sat"], "the hat sat down")
    assert stream_figures(t).revised_units == 2  # "cat", "is": one rewrite
    assert stream_figures(t, churn="against_final").revised_units == 3  # "cat" twice, "is"
