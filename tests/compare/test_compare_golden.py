"""`earmark compare` and `--gap` write the golden compare.json/compare.md, byte for byte.

The golden files were written by the code before compare's counting moved to
`earmark.scoring.row_counts` (issue 13); any later change of a compare figure shows here.
Only the creation time varies between runs: it is replaced by a placeholder before
comparing. Specs are relative paths inside the temporary folder, so `source` fields do not
vary. Regenerate with `EARMARK_REGEN_GOLDEN=1` only when a change of output is intended.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from compare_fixtures import write_rows

from earmark.file_comparison import compare, gap, write_compare

HERE = Path(__file__).parent
GOLDEN = HERE / "data" / "golden"
EXAMPLE_RUN = HERE / "data" / "example-run"

#: (id, language, slices, seconds, human reference, base arm's hypothesis)
CORPUS: list[tuple[str, str, list[str], float, str, str | None]] = [
    ("e1", "en", ["read"], 2.0, "The cat sat on the mat.", "the cat sat on a mat"),
    ("e2", "en", ["read"], 3.5, "Hello world, how are you?", "hello, world! how are you"),
    ("e3", "en", [], 6.0, "It's twenty past two in the afternoon", "its twenty past to"),
    ("e4", "en", ["read"], 1.5, "Please call me", None),
    ("e5", "en", ["spontaneous"], 8.0, "we went went to the shop shop", "we went to the shop"),
    ("e6", "en", ["spontaneous"], 4.0, "", ""),
    ("z1", "zh", ["read"], 2.5, "我爱北京天安门。", "我爱北京天安门"),
    ("z2", "zh", [], 3.0, "今天天气很好", "今天天气不好吧"),
    ("z3", "zh", ["spontaneous"], 5.0, "我用 iPhone 15 拍照", "我用 iphone十五 拍照"),
    ("z4", "zh", ["read"], 2.0, "打开github和vs code", "打开 git hub 和 vscode"),
    ("g1", "ga", [], 2.2, "An tAthair agus an mháthair", "an t-athair agus an mhathair"),
    ("g2", "ga", ["read"], 1.8, "Tá sé go maith", "ta se go maith"),
]

#: Challenger arms: the base arm's rows with these hypotheses replaced.
CHALLENGERS: dict[str, dict[str, str | None]] = {
    "q8": {"e1": "the cat sat on the mat", "z2": "今天天气很好", "g2": "the sea go my"},
    "q4": {
        "e2": "hello word how are you you you you you",
        "e4": "please call",
        "z3": "I use iPhone to take photos",
        "z4": None,
        "g1": "an athair agus an mhathair",
    },
}


def _arm_rows(name: str, repeats: int) -> list[dict[str, Any]]:
    changed = CHALLENGERS.get(name, {})
    rows = []
    for ident, lang, slices, seconds, ref, hyp in CORPUS:
        for repeat in range(repeats):
            text = changed.get(ident, hyp)
            if repeat and text:  # a second sample of a clip differs by its last letter
                text = text[:-1]
            row: dict[str, Any] = {
                "id": ident,
                "reference": ref,
                "hypothesis": text,
                "language": lang,
                "slices": slices,
                "audio_seconds": seconds,
            }
            if repeats > 1:
                row["repeat"] = repeat
            if name == "q4" and ident == "z3":
                row["language_mismatch"] = True
            rows.append(row)
    return rows


def _write_arms(folder: Path, repeats: int = 1, language: str | None = None) -> list[str]:
    """The three arms' files (with `language`, only that language's rows)."""
    for name in ("base", "q8", "q4"):
        rows = [r for r in _arm_rows(name, repeats) if language in (None, r["language"])]
        write_rows(folder / f"{name}.jsonl", rows)
    return ["base.jsonl", "q8.jsonl", "q4.jsonl"]


CASES: dict[str, dict[str, Any]] = {
    "example-auto": {"specs": "example", "normalizer": "auto", "resamples": 300, "seed": 5},
    "example-crude": {"specs": "example", "normalizer": "crude-v1", "resamples": 300},
    "three-auto": {"specs": "three", "normalizer": "auto", "resamples": 300, "seed": 11},
    "three-en-macro": {
        "specs": "three",
        "normalizer": "en-v1",
        "aggregate": "macro",
        "resamples": 250,
        "reference": "q8",
    },
    "three-repeats": {"specs": "repeats", "normalizer": "auto", "resamples": 200, "seed": 3},
    "three-policy-no-bootstrap": {
        "specs": "three",
        "normalizer": "zh=zh-itn-v1,ga=ga-v1,*=crude-v1",
        "resamples": 0,
    },
    "three-blasbench": {"specs": "three-ga", "protocol": "blasbench-v1"},
    "three-parakeet": {"specs": "repeats", "protocol": "parakeet-weight-types-v1"},
}


def _specs(kind: str, folder: Path) -> list[str]:
    if kind == "example":  # copied, so its `source` is the same relative path everywhere
        shutil.copytree(EXAMPLE_RUN, folder / "example-run")
        return ["example-run"]
    if kind == "three-ga":  # blasbench-v1 scores Irish rows only
        return _write_arms(folder, language="ga")
    return _write_arms(folder, repeats=2 if kind == "repeats" else 1)


def _stable(text: str) -> str:
    """compare.json/gap.json with its creation time replaced (the one time-like field)."""
    data = json.loads(text)
    assert isinstance(data.get("created"), str)
    data["created"] = "<created>"
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _check(name: str, produced: str) -> None:
    path = GOLDEN / name
    if os.environ.get("EARMARK_REGEN_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(produced, "utf-8")
        return
    assert produced == path.read_text("utf-8"), f"{name} differs from its golden file"


@pytest.mark.parametrize("case", sorted(CASES))
def test_compare_writes_the_golden_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    settings = dict(CASES[case])
    monkeypatch.chdir(tmp_path)
    specs = _specs(settings.pop("specs"), tmp_path)
    result = compare(specs, jobs=1, out_dir="out", **settings)
    write_compare(tmp_path / "out", result)
    _check(f"{case}/compare.json", _stable((tmp_path / "out" / "compare.json").read_text("utf-8")))
    _check(f"{case}/compare.md", (tmp_path / "out" / "compare.md").read_text("utf-8"))


def test_compare_with_two_workers_writes_the_same_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    specs = _write_arms(tmp_path)
    compare(specs, normalizer="auto", resamples=300, seed=11, jobs=2, out_dir="out")
    _check("three-auto/compare.json", _stable(Path("out/compare.json").read_text("utf-8")))
    _check("three-auto/compare.md", Path("out/compare.md").read_text("utf-8"))


@pytest.mark.parametrize("normalizer", ["auto", "crude-v1"])
def test_gap_writes_the_golden_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, normalizer: str
) -> None:
    monkeypatch.chdir(tmp_path)
    _write_arms(tmp_path)
    gap("base.jsonl", "q4.jsonl", normalizer=normalizer, resamples=300, seed=9, out_dir="out")
    name = f"gap-{normalizer}"
    _check(f"{name}/gap.json", _stable(Path("out/gap.json").read_text("utf-8")))
    _check(f"{name}/gap.md", Path("out/gap.md").read_text("utf-8"))
