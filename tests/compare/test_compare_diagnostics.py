"""Diagnostics on constructed failures: truncation, hallucination, wrong script, ranking flip."""

from __future__ import annotations

from pathlib import Path

from compare_fixtures import write_rows

from earmark.comparison.diagnostics import char_script, dominant_script, spearman
from earmark.file_comparison import compare

WORDS = "one two three four five six seven eight nine ten eleven twelve".split()


def _rows(hyp_for, n: int = 30) -> list[dict]:
    rows = []
    for i in range(n):
        length = 2 + i // 3  # longer clips have longer references
        ref = " ".join(WORDS[:length])
        rows.append(
            {
                "id": f"c{i:02d}",
                "reference": ref,
                "hypothesis": hyp_for(i, ref),
                "language": "en",
                "audio_seconds": 1.0 + i,
            }
        )
    return rows


def test_truncating_system_is_flagged(tmp_path: Path) -> None:
    good = write_rows(tmp_path / "good.jsonl", _rows(lambda i, ref: ref))
    # Clips of 21 s and more lose the second half of their words.
    cut = write_rows(
        tmp_path / "cut.jsonl",
        _rows(lambda i, ref: " ".join(ref.split()[: len(ref.split()) // 2]) if i >= 20 else ref),
    )
    r = compare([good, cut], normalizer="crude-v1", resamples=20, jobs=1).to_dict()
    trunc = r["diagnostics"]["cut"]["truncation"]
    block = trunc["by_normalizer"]["crude-v1"]
    assert trunc["flagged"] and "truncation" in r["diagnostics"]["cut"]["flags"]
    assert block["tertiles"][0]["deletion_rate"] == 0.0
    assert block["tertiles"][-1]["deletion_rate"] > 0.4
    assert block["spearman_rho"] > 0.5
    assert not r["diagnostics"]["good"]["truncation"]["flagged"]
    assert "truncation" not in r["diagnostics"]["good"]["flags"]


def test_hallucinating_system_is_flagged(tmp_path: Path) -> None:
    rows = _rows(lambda i, ref: ref + " thank you thank you thank you thank you")
    rows += [
        {
            "id": f"silence{i}",
            "reference": "",
            "hypothesis": "thanks for watching",
            "language": "en",
        }
        for i in range(3)
    ]
    spec = write_rows(tmp_path / "whisper.jsonl", rows)
    r = compare([spec], normalizer="crude-v1", resamples=20, jobs=1).to_dict()
    ins = r["diagnostics"]["whisper"]["insertion"]["by_normalizer"]["crude-v1"]
    assert r["diagnostics"]["whisper"]["insertion"]["flagged"]
    assert ins["insertion_rate"] > 1.0
    assert ins["repetition_loop_rows"] == 30
    assert (ins["no_speech_rows"], ins["no_speech_with_output"]) == (3, 3)
    assert ins["no_speech_output_rate"] == 1.0


def test_latin_answer_to_mandarin(tmp_path: Path) -> None:
    rows = [
        {
            "id": "z1",
            "language": "zh",
            "reference": "我爱北京天安门",
            "hypothesis": "I love Beijing",
        },
        {"id": "z2", "language": "zh", "reference": "今天天气很好", "hypothesis": "今天天气很好"},
        {
            "id": "e1",
            "language": "en",
            "reference": "good morning",
            "hypothesis": "good morning",
            "language_mismatch": True,
        },
    ]
    spec = write_rows(tmp_path / "en_only.jsonl", rows)
    r = compare([spec], normalizer="auto", resamples=20, jobs=1).to_dict()
    script = r["diagnostics"]["en_only"]["script_mismatch"]
    assert script["flagged"]
    assert script["examples"] == ["z1"]
    assert script["by_language"]["zh"]["share"] == 0.5
    assert script["by_language"]["zh"]["hypothesis_scripts"] == {"Han": 1, "Latin": 1}
    assert script["by_language"]["en"]["rows"] == 0
    assert script["engine_language_mismatch_rows"] == 1


def test_empty_outputs(tmp_path: Path) -> None:
    rows = [{"id": f"u{i}", "reference": "a b", "hypothesis": "a b"} for i in range(8)]
    rows += [
        {"id": "x1", "reference": "a b", "hypothesis": None},
        {"id": "x2", "reference": "a b", "hypothesis": " ... "},
    ]
    spec = write_rows(tmp_path / "s.jsonl", rows)
    r = compare([spec], normalizer="crude-v1", resamples=20, jobs=1).to_dict()
    empty = r["diagnostics"]["s"]["empty_outputs"]
    assert (empty["rows"], empty["missing_hypothesis_rows"], empty["speech_rows"]) == (2, 1, 10)
    assert empty["flagged"] and empty["examples"] == ["x1", "x2"]


def test_normaliser_ranking_flip(tmp_path: Path) -> None:
    refs = [f"hello world foo bar{i}" for i in range(5)]
    shouty = [
        {"id": f"u{i}", "reference": r, "hypothesis": r.title().replace(" ", ", ") + "."}
        for i, r in enumerate(refs)
    ]
    sloppy = [
        {"id": f"u{i}", "reference": r, "hypothesis": r.replace("foo", "fu")}
        for i, r in enumerate(refs)
    ]
    a = write_rows(tmp_path / "shouty.jsonl", shouty)
    b = write_rows(tmp_path / "sloppy.jsonl", sloppy)
    r = compare([a, b], normalizer="crude-v1", resamples=20, jobs=1).to_dict()
    flip = r["diagnostics"]["shouty"]["normalizer_ranking_flip"]
    assert flip["flagged"]
    (entry,) = flip["flips"]
    assert entry["with"] == "sloppy"
    assert entry["raw"] == [1.0, 0.25]  # raw: shouty is worse
    assert entry["normalized"] == [0.0, 0.25]  # normalised: shouty is better
    assert "normalizer_ranking_flip" in r["diagnostics"]["sloppy"]["flags"]
    # The none normaliser's primary view is raw: it cannot flip anything.
    r2 = compare([a, b], normalizer="none", resamples=20, jobs=1).to_dict()
    assert not r2["diagnostics"]["shouty"]["normalizer_ranking_flip"]["flagged"]


def test_scripts_and_spearman() -> None:
    import numpy as np

    assert char_script("Ａ") == "Latin"  # full-width Latin
    assert char_script("か") == "Han"  # kana count with Han (Japanese mixes them)
    assert dominant_script("Привет мир") == "Cyrillic"
    assert dominant_script("") is None
    x = np.array([1.0, 2.0, 3.0, 4.0])
    assert spearman(x, x**2) == 1.0
    assert spearman(x, -x) == -1.0
    assert spearman(x, np.ones(4)) is None
