"""The typed results `score_predictions` returns are the results.json it writes, read back:
value for value and type for type (key order aside), though the arm is the scorer's own
record and not a decoding of its JSON.

The oracle is `Results.from_path` of the folder written; the corpus carries languages
(word and character ones), speakers (the ids' prefixes), slices, a no-speech clip, an empty hypothesis and
a repetition loop, and the settings reach every optional section.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.results.results_file import Results

_ROWS = [
    ("alice-1", "en", "alice", ["news"], "The quick brown fox jumps.", "The quick brown fox jumps"),
    ("bob-1", "en", "bob", ["news"], "Please call me, tomorrow!", "please call me tomorrow"),
    ("alice-2", "en", "alice", [], "She sells fresh bread.", ""),
    ("carol-1", "en", "carol", ["chat"], "", "thank you"),
    ("bob-2", "en", "bob", ["chat"], "go on", " ".join(["go on"] * 8)),
    ("dan-1", "zh", "dan", [], "今天天气很好。", "今天天气不错"),
    ("dan-2", "zh", "dan", [], "我们明天见", "我们明天见"),
    ("eve-1", "ga", "eve", [], "Tá an aimsir go maith.", "Tá an aimsir go deas"),
]

_FIGURES = [
    ScoreFigures(resamples=200),
    ScoreFigures(normalizer="none", resamples=0),
    ScoreFigures(resamples=100, aggregate="macro", min_per_slice=2, punctuation=True),
    ScoreFigures(
        resamples=100,
        cluster="speaker",
        min_speakers=2,
        critical_tokens=True,
        extra_metrics=("wip",),
    ),
]


def _corpus(folder: Path) -> Path:
    path = folder / "hyps.jsonl"
    lines = [
        json.dumps(
            {
                "id": i,
                "language": lang,
                "slices": sl,
                "reference": r,
                "hypothesis": h,
            },
            ensure_ascii=False,
        )
        for i, lang, _speaker, sl, r, h in _ROWS
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _trn(folder: Path) -> ScoreInputs:
    """The English rows as sclite trn files, where the ids' prefixes are speakers."""
    english = [row for row in _ROWS if row[1] == "en"]
    for name, column in (("ref.trn", 4), ("hyp.trn", 5)):
        lines = [f"{row[column]} ({row[0]})" for row in english]
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ScoreInputs(folder / "hyp.trn", refs=folder / "ref.trn", format="trn", language="en")


def _same(a: object, b: object, path: str = "$") -> None:
    """Equal and of the same types all the way down; `key_order` aside (order is checked
    on the bytes), and an `extra` may be any empty-or-equal mapping."""
    if path.endswith(".extra") and isinstance(a, dict) and isinstance(b, dict):
        assert a == b, path
        return
    assert type(a) is type(b), (path, type(a), type(b))
    if dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            if f.name != "key_order":
                _same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), path
        for k in a:
            _same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, list | tuple):
        assert isinstance(b, list | tuple) and len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{k}]")
    else:
        assert a == b, (path, a, b)


@pytest.mark.parametrize("trn", [False, True], ids=["jsonl", "trn"])
@pytest.mark.parametrize("figures", _FIGURES, ids=range(len(_FIGURES)))
def test_returned_results_are_the_file_read_back(
    tmp_path: Path, figures: ScoreFigures, trn: bool
) -> None:
    out = tmp_path / "out"
    inputs = _trn(tmp_path) if trn else ScoreInputs(_corpus(tmp_path))
    typed = score_predictions(inputs, figures, out_dir=out)
    read = Results.from_path(out)
    _same(typed, read)
    assert typed.to_json() == (out / "results.json").read_text("utf-8")
    arm = typed.arm()
    assert sorted(arm.by_language) == (["en"] if trn else ["en", "ga", "zh"])
    if trn:
        assert sorted(arm.by_language["en"].by_speaker or {}) == ["alice", "bob", "carol"]


def test_results_without_a_folder_are_typed_alike(tmp_path: Path) -> None:
    """Without `out_dir` the same results (all but the file-only `predictions` entry)."""
    figures = ScoreFigures(resamples=50)
    typed = score_predictions(ScoreInputs(_corpus(tmp_path)), figures)
    read = Results.from_dict(json.loads(typed.to_json()))
    _same(typed, read)
    written = score_predictions(ScoreInputs(_corpus(tmp_path)), figures, out_dir=tmp_path / "o")
    _same(typed.arm(), written.arm())
    assert typed.predictions is None and written.predictions is not None
