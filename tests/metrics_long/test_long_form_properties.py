"""Property laws of interval attribution (hypothesis)."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from earmark.metrics.hallucination import repetition_loop
from earmark.metrics.long_form import assign_to_intervals, interval_counts
from earmark.text import get_normalizer

# Words the English normaliser leaves as one word each (no numerals, which it merges).
EN_WORDS = ["red", "green", "blue", "cat", "dog", "sat", "ran", "hello", "world", "tree"]
ZH_CHARS = list("你好世界今天气很谢们我他是的，。、？！")

en_text = st.lists(st.sampled_from(EN_WORDS), min_size=0, max_size=6).map(" ".join)
zh_text = st.lists(st.sampled_from(ZH_CHARS), min_size=0, max_size=8).map("".join)
FAST = settings(max_examples=60, deadline=None)


@st.composite
def timed(draw: st.DrawFn, text: st.SearchStrategy[str], max_size: int = 6) -> list[list[object]]:
    """Sorted, non-overlapping segments with gaps of zero or more seconds between them."""
    texts = draw(st.lists(text, min_size=0, max_size=max_size))
    segments: list[list[object]] = []
    t = 0.0
    for piece in texts:
        t += draw(st.sampled_from([0.0, 0.5, 2.0]))
        length = draw(st.sampled_from([0.5, 1.0, 3.0, 7.5]))
        segments.append([t, t + length, piece])
        t += length
    return segments


def _units(name: str, text: str) -> int:
    norm = get_normalizer(name)
    view = norm.normalize_pair(text, text)[norm.primary_view].reference or ""
    return len(view.split()) if norm.units[0] == "word" else len(view)


@FAST
@given(ref=timed(en_text), hyp=timed(en_text), gaps=st.sampled_from(["nearest", "separate"]))
def test_en_units_are_conserved(
    ref: list[list[object]], hyp: list[list[object]], gaps: str
) -> None:
    r = interval_counts(ref, hyp, "en-v1", gaps=gaps)  # type: ignore[arg-type]
    whole_ref = " ".join(str(s[2]) for s in ref)
    whole_hyp = " ".join(str(s[2]) for s in hyp)
    assert sum(i.counts.ref_units for i in r.intervals) == _units("en-v1", whole_ref)
    assert r.total.hyp_units == _units("en-v1", whole_hyp)
    assert r.whole is not None and r.whole.ref_units == r.total.ref_units
    # Attribution cannot beat the whole-text minimum edit distance.
    assert r.total.errors >= r.whole.errors


@FAST
@given(ref=timed(zh_text), hyp=timed(zh_text), rule=st.sampled_from(["midpoint", "overlap"]))
def test_zh_units_are_conserved(
    ref: list[list[object]], hyp: list[list[object]], rule: str
) -> None:
    r = interval_counts(ref, hyp, "zh-eval-v1", rule=rule, gaps="separate")  # type: ignore[arg-type]
    whole_ref = "".join(str(s[2]) for s in ref)
    whole_hyp = "".join(str(s[2]) for s in hyp)
    assert sum(i.counts.ref_units for i in r.intervals) == _units("zh-eval-v1", whole_ref)
    assert r.total.hyp_units == _units("zh-eval-v1", whole_hyp)
    assert r.whole is not None and r.total.errors >= r.whole.errors


@FAST
@given(
    ref=timed(st.one_of(en_text, zh_text)),
    name=st.sampled_from(["en-v1", "zh-eval-v1", "crude-v1"]),
    rule=st.sampled_from(["midpoint", "overlap"]),
)
def test_perfect_hypothesis_scores_zero(ref: list[list[object]], name: str, rule: str) -> None:
    norm = get_normalizer(name)
    keys = [norm.normalize_pair(str(s[2]), "")[norm.primary_view].reference or "" for s in ref]
    # A perfect transcript of a recording that itself repeats would (rightly) show repeats.
    assume(all(not a.split() or a.split() != b.split() for a, b in zip(keys, keys[1:])))
    unit = norm.units[0]
    assume(not any(repetition_loop(k.split() if unit == "word" else list(k)) for k in keys))
    r = interval_counts(ref, ref, name, rule=rule)  # type: ignore[arg-type]
    assert r.total.errors == 0
    assert r.omitted_intervals == 0
    assert r.repeats == ()
    assert r.gap_outputs == ()
    assert r.whole is not None and r.whole.errors == 0


@FAST
@given(ref=timed(en_text), hyp=timed(en_text))
def test_every_segment_lands_once(ref: list[list[object]], hyp: list[list[object]]) -> None:
    a = assign_to_intervals(ref, hyp, gaps="separate")
    assert len(a.texts) == len(ref)
    assigned = [j for j, owner in enumerate(a.owner) if owner is not None]
    assert sorted(assigned + list(a.unassigned)) == list(range(len(hyp)))
    if ref:
        near = assign_to_intervals(ref, hyp, gaps="nearest")
        assert all(owner is not None for owner in near.owner)
