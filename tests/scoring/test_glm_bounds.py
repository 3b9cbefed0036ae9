"""A GLM costs memory linear in its rules, and one pair's GLM alignment is bounded
(issue 24, item 8; item 10 for the GLM's own dynamic program).

Before: every word of a class held its own copy of the class, and every slot the whole
class as a tuple, so one 20,000-word rule passed 3.2 GB; now the class is one shared set
and a slot holds its word and the class's representative. The counts and the tallied
edits are pinned against the full-class slots (`Glm.slot` + `align_slots`) they replace.
"""

from __future__ import annotations

import json
import random
import tracemalloc
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.metrics.alignment import AlignmentTooLarge, EditTally
from earmark.metrics.slot_alignment import align_slots
from earmark.scoring.glm import MAX_SLOT_CELLS, Glm, parse_glm

BIG = 20_000


def _big_rule() -> tuple[str, list[str]]:
    words = [f"w{i}" for i in range(BIG)]
    return "{ " + " / ".join(words) + " }\n", words


def test_a_20k_word_class_is_one_shared_set() -> None:
    text, words = _big_rule()
    glm = parse_glm(text)
    assert len(glm.alternates) == BIG
    assert len({id(group) for group in glm.alternates.values()}) == 1
    assert glm.alternates["w7"] == frozenset(words)


def test_a_20k_word_class_scores_in_linear_memory() -> None:
    text, words = _big_rule()
    rng = random.Random(1)
    # 2,000 distinct class words in the references: the old slots would hold 2,000
    # tuples of 20,000 strings (320 MB of pointers alone).
    pairs = [
        (" ".join(words[10 * k : 10 * k + 10]), " ".join(rng.sample(words, 10))) for k in range(200)
    ]
    tracemalloc.start()
    try:
        glm = parse_glm(text)
        got = glm.count_pairs(pairs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Every hypothesis word is in the reference word's class: all hits.
    assert got.sum(axis=0).tolist() == [0, 0, 0, 2000]
    assert peak < 30_000_000, peak  # the rule's 20k strings and sets, a few MB each


def test_chained_rules_join_one_class() -> None:
    glm = parse_glm("a => b\nc => d\n{ b / c }\ne => f\n")
    assert glm.alternates["a"] is glm.alternates["d"]
    assert glm.alternates["a"] == {"a", "b", "c", "d"}
    assert glm.alternates["e"] == {"e", "f"} and "g" not in glm.alternates


def _full_slots(glm: Glm, ref: str, hyp: str, tally: EditTally) -> list[int]:
    """The alignment `count_pairs` replaced: every slot holds its whole class."""
    done = align_slots([glm.slot(t) for t in ref.split()], hyp.split())
    tally.add_alignment(done)
    c = done.counts
    return [c.substitutions, c.deletions, c.insertions, c.hits]


def test_counts_and_edits_equal_full_class_slots() -> None:
    rules = "{ ok / okay / o.k. }\ncolour => color\n{ um / @ }\n(uh)\nhmm =>\n{ a / b }\n"
    glm = parse_glm(rules)
    vocab = ["ok", "okay", "o.k.", "colour", "color", "um", "uh", "hmm", "a", "b", "c", "d"]
    rng = random.Random(7)
    pairs = [
        (
            " ".join(rng.choices(vocab, k=rng.randrange(0, 8))),
            " ".join(rng.choices(vocab, k=rng.randrange(0, 8))),
        )
        for _ in range(600)
    ]
    new_tally, old_tally = EditTally(), EditTally()
    got = glm.count_pairs(pairs, tallies=[new_tally] * len(pairs)).tolist()
    want = [_full_slots(glm, r, h, old_tally) for r, h in pairs]
    assert got == want
    assert new_tally == old_tally
    assert sum(old_tally.substitutions.values()) > 50  # the case exercises substitutions


def test_hand_computed_case_shows_the_words_as_written() -> None:
    glm = parse_glm("{ ok / okay / o.k. }\n(uh)\n")
    tally = EditTally()
    # ok~o.k. matches (0), uh is left out (2, correct), then cat -> dog (4) or cat matched
    # and extra inserted (3); the alternatives cost more (uh -> dog 4 + cat deleted 3 = 7).
    pairs = [("ok uh cat", "o.k. dog"), ("ok uh cat", "o.k. cat extra")]
    got = glm.count_pairs(pairs, tallies=[tally, tally]).tolist()
    assert got == [[1, 0, 0, 2], [0, 0, 1, 3]]
    assert dict(tally.substitutions) == {("cat", "dog"): 1}
    assert dict(tally.insertions) == {"extra": 1} and not tally.deletions


def test_one_pair_over_the_cell_limit_is_refused_up_front() -> None:
    glm = parse_glm("{ ok / okay }\n")
    side = int(MAX_SLOT_CELLS**0.5) + 1
    with pytest.raises(AlignmentTooLarge) as caught:
        glm.count_pairs([("a b", "a c"), ("x " * side, "y " * side)])
    assert caught.value.index == 1 and caught.value.n_ref == side


def test_score_with_glm_names_the_utterance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    side = int(MAX_SLOT_CELLS**0.5) + 1
    rows = [
        {"id": "fine", "reference": "ok cat", "hypothesis": "okay cat"},
        {"id": "runaway<b>", "reference": "x " * side, "hypothesis": "y " * side},
    ]
    preds = tmp_path / "p.jsonl"
    preds.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    rules = tmp_path / "rules.glm"
    rules.write_text("{ ok / okay }\n", "utf-8")
    args = ["score", str(preds), "--normalizer", "none", "--language", "en", "--bootstrap", "0"]
    rc = main([*args, "--glm", str(rules), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert len(err) == 1 and "'runaway<b>'" in err[0] and "limit of 16,000,000 cells" in err[0]


def test_align_equals_widened_slots_column_for_column() -> None:
    from earmark.formats.sclite_markup import markup_slots
    from earmark.metrics.slot_alignment import Slot

    glm = parse_glm("{ ok / okay / o.k. }\ncolour => color\n{ um / @ }\n(uh)\nhmm =>\n")
    vocab = ["ok", "okay", "o.k.", "colour", "color", "um", "uh", "hmm", "x", "y"]
    marks = ["{ ok / x }", "(uh)", "{ y / @ }", "(colour)", "{ okay / color }"]
    rng = random.Random(3)
    for _ in range(400):
        ref = " ".join(rng.choices(vocab + marks, k=rng.randrange(0, 7)))
        hyp = rng.choices(vocab, k=rng.randrange(0, 7))
        slots = markup_slots(ref)
        assert glm.align(slots, hyp) == align_slots([glm.widen(s) for s in slots], hyp), ref
        words = [Slot.word(t) for t in ref.replace("{", "").replace("}", "").split()]
        assert glm.align(words, hyp) == align_slots([glm.slot(w.accepts[0]) for w in words], hyp)


def test_align_is_bounded() -> None:
    glm = parse_glm("{ ok / okay }\n")
    side = int(MAX_SLOT_CELLS**0.5) + 1
    from earmark.metrics.slot_alignment import Slot

    with pytest.raises(AlignmentTooLarge):
        glm.align([Slot.word("x")] * side, ["y"] * side)
