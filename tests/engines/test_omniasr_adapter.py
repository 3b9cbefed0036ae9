"""The omniASR recipe (issue 23): examples/stdio/omniasr_adapter.py run for real through
`earmark run --arm stdio:...`, with a fake `omnilingual_asr` package on PYTHONPATH that
returns fixed transcripts. The adapter's protocol loop, language mapping, dtype handling
and error path are the shipped code; only the model is faked."""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import soundfile

from earmark.cli import main
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.writer import write_manifest

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "examples" / "stdio" / "omniasr_adapter.py"

#: The fake pipeline: the constructor and `transcribe` of omnilingual_asr's
#: ASRInferencePipeline, each call logged, the text fixed by the language code.
FAKE_PIPELINE = """
import json, os, wave

FIXED = {"eng_Latn": "the quick brown fox", "gle_Latn": "dia duit"}


def _log(**event):
    with open(os.environ["FAKE_OMNI_LOG"], "a", encoding="utf-8") as handle:
        handle.write(json.dumps(event) + "\\n")


class ASRInferencePipeline:
    def __init__(self, model_card, *, device=None, dtype=None):
        self.model_card = model_card
        _log(event="load", model_card=model_card, device=device, dtype=str(dtype))

    def transcribe(self, inp, *, lang=None, batch_size=2):
        texts = []
        for path, code in zip(inp, lang):
            with wave.open(str(path), "rb") as wav:
                rate, frames = wav.getframerate(), wav.getnframes()
            _log(event="transcribe", lang=code, rate=rate, frames=frames, batch_size=batch_size)
            if frames == 0:
                raise ValueError("empty audio")
            texts.append(FIXED.get(code, "no language"))
        if os.environ.get("FAKE_OMNI_TUPLE"):
            return texts, [[] for _ in texts]
        return texts
"""


def fake_omnilingual_asr(root: Path) -> Path:
    """A package `omnilingual_asr.models.inference.pipeline` under `root`."""
    package = root / "omnilingual_asr" / "models" / "inference"
    package.mkdir(parents=True)
    for folder in (package, package.parent, package.parent.parent):
        (folder / "__init__.py").write_text("", "utf-8")
    (package / "pipeline.py").write_text(textwrap.dedent(FAKE_PIPELINE), "utf-8")
    return root


def corpus(root: Path) -> Path:
    """Two English clips, one Irish, one Welsh (no omniASR code in the adapter's table)."""
    audio = root / "audio"
    audio.mkdir(parents=True)
    rows = []
    for i, (language, text) in enumerate(
        [("en", "the quick brown fox"), ("en", "the quick brown dog"), ("ga", "dia duit")]
        + [("cy", "bore da")]
    ):
        samples = (np.sin(np.arange(4000 + 800 * i) * 0.02) * 0.3).astype(np.float32)
        soundfile.write(audio / f"c{i}.wav", samples, 22050, subtype="PCM_16")
        rows.append(Utterance(id=f"c{i}", audio=f"audio/c{i}.wav", text=text, language=language))
    manifest = root / "manifest.jsonl"
    meta = CorpusMeta(
        dataset="omni-fake",
        licence="CC0-1.0",
        consent_basis="synthetic",
        redistribute_audio=True,
        redistribute_transcripts=True,
    )
    write_manifest(manifest, rows, meta)
    return manifest


@pytest.fixture()
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake package first on the adapter's PYTHONPATH; returns the call log."""
    site = fake_omnilingual_asr(tmp_path / "fake")
    paths = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_OMNI_LOG", str(log))
    return log


def _run(tmp_path: Path, arm: str, *extra: str) -> Path:
    out = tmp_path / "run"
    args = ["run", "--manifest", str(corpus(tmp_path / "corpus")), "--normalizer", "none"]
    assert main([*args, "--bootstrap", "0", "--arm", arm, *extra, "--out", str(out)]) == 0
    return out


def _rows(out: Path) -> list[dict]:
    lines = (out / "predictions.jsonl").read_text("utf-8").splitlines()
    return [json.loads(x) for x in lines]


def _calls(log: Path) -> list[dict]:
    return [json.loads(x) for x in log.read_text("utf-8").splitlines()]


@pytest.mark.parametrize("returns", ["list", "tuple"])
def test_earmark_run_through_the_adapter_with_a_fake_model(
    tmp_path: Path, fake: Path, returns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if returns == "tuple":  # newer omnilingual_asr returns (texts, timestamps)
        monkeypatch.setenv("FAKE_OMNI_TUPLE", "1")
    arm = f"stdio:{sys.executable} {ADAPTER} --model-card omniASR_CTC_300M?name=omni"
    out = _run(tmp_path, arm)
    rows = {r["id"]: r for r in _rows(out)}
    assert {k: (r["status"], r["hypothesis"]) for k, r in rows.items()} == {
        "c0": ("ok", "the quick brown fox"),
        "c1": ("ok", "the quick brown fox"),
        "c2": ("ok", "dia duit"),
        "c3": ("ok", "no language"),  # Welsh: no code in the table, no conditioning
    }
    assert rows["c2"]["language_used"] == "ga" and rows["c3"]["language_used"] is None
    calls = _calls(fake)
    # the model was loaded once for the arm, every clip went through that one pipeline
    assert [c["event"] for c in calls] == ["load"] + ["transcribe"] * 4
    assert calls[0] == {
        "event": "load",
        "model_card": "omniASR_CTC_300M",
        "device": None,
        "dtype": "None",
    }
    # earmark resampled the 22.05 kHz clips: the adapter passed 16 kHz WAV paths on
    assert {c["rate"] for c in calls[1:]} == {16000}
    assert [c["lang"] for c in calls[1:]] == ["eng_Latn", "eng_Latn", "gle_Latn", None]
    model = json.loads((out / "arms" / "omni" / "model.json").read_text("utf-8"))
    hello = model["extra"]["hello"]
    assert hello["name"] == "omniasr-stdio" and hello["model"] == "omniASR_CTC_300M"
    assert hello["protocol"] == 2 and hello["weight_types"] == ["bfloat16", "float16", "float32"]
    # by hand: English 1 substitution ("dog" heard as "fox") in 8 words, Irish 0 in 2,
    # Welsh 2 in 2 ("bore da" / "no language"): 3 in 12 overall
    arm_results = json.loads((out / "results.json").read_text("utf-8"))["arms"]["omni"]
    expected = {"en": (1, 8, 0.125), "ga": (0, 2, 0.0), "cy": (2, 2, 1.0)}
    for language, (subs, words, rate) in expected.items():
        wer = arm_results["by_language"][language]["views"]["raw"]["wer"]
        assert (wer["substitutions"], wer["ref_units"], wer["value"]) == (subs, words, rate)
    overall = arm_results["overall"]["views"]["raw"]["wer"]
    assert (overall["substitutions"], overall["ref_units"], overall["value"]) == (3, 12, 0.25)


def test_set_lang_overrides_the_table(tmp_path: Path, fake: Path) -> None:
    arm = f"stdio:{sys.executable} {ADAPTER} --model-card m?name=omni&set_lang=gle_Latn"
    rows = _rows(_run(tmp_path, arm))
    assert {r["hypothesis"] for r in rows} == {"dia duit"}
    assert {c["lang"] for c in _calls(fake) if c["event"] == "transcribe"} == {"gle_Latn"}


def test_a_dtype_sweep_runs_one_arm_per_weight_type(tmp_path: Path, fake: Path) -> None:
    pytest.importorskip(
        "torch", reason="the adapter's --dtype path imports torch (installed by .ci/run)"
    )
    arm = (
        f"stdio:{sys.executable} {ADAPTER} --model-card m --device cpu --dtype {{compute_type}}"
        "?weight_types=float32,bfloat16&name=omni"
    )
    out = _run(tmp_path, arm, "--weight-types", "float32,bfloat16")
    assert sorted({r["arm"] for r in _rows(out)}) == ["omni-bfloat16", "omni-float32"]
    loads = [c for c in _calls(fake) if c["event"] == "load"]
    assert [(c["dtype"], c["device"]) for c in loads] == [
        ("torch.float32", "cpu"),
        ("torch.bfloat16", "cpu"),
    ]
    for weight in ("float32", "bfloat16"):
        model = json.loads((out / "arms" / f"omni-{weight}" / "model.json").read_text("utf-8"))
        assert model["compute_type"] == weight
        assert model["extra"]["weight_type"]["program_loaded"] == weight


def test_without_omnilingual_asr_the_arm_fails_naming_the_package(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "nothing-here"))
    arm = f"stdio:{sys.executable} {ADAPTER} --model-card m?name=omni"
    args = ["run", "--manifest", str(corpus(tmp_path / "corpus")), "--normalizer", "none"]
    code = main([*args, "--arm", arm, "--out", str(tmp_path / "run"), "--quiet"])
    assert code != 0
    err = capfd.readouterr().err
    (line,) = [x for x in err.splitlines() if "did not start" in x]
    assert "No module named 'omnilingual_asr' (pip install omnilingual-asr)" in line
    rows = _rows(tmp_path / "run")
    assert len(rows) == 4 and {r["status"] for r in rows} == {"arm_failed"}


def test_the_doc_shows_the_shipped_program() -> None:
    doc = (ROOT / "docs" / "omniasr.md").read_text("utf-8")
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    assert ADAPTER.read_text("utf-8") in blocks
