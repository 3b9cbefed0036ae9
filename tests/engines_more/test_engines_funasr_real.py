"""The FunASR adapter on funasr's real loading and decoding code, with a tiny random model.

The model is a BiCifParaformer (the Paraformer family with the timestamp predictor, as
Paraformer-zh is) built from funasr's own registered classes and saved the way a
ModelScope folder is laid out (`config.yaml`, `model.pt`, `tokens.json`), so
`AutoModel` reads it exactly as it would a downloaded folder. Nothing is fetched.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from earmark.engines.base import Clip
from earmark.engines.extras import is_installed
from earmark.engines.spec import parse_arm_spec
from earmark.errors import EarmarkError, MissingExtraError

pytest.importorskip("torch", reason="torch is not installed (pip install torch==2.13.0)")
pytest.importorskip(
    "funasr", reason="funasr is not installed (pip install 'earmark[funasr]' torch==2.13.0)"
)
if not any(is_installed(module) for module in ("torchaudio", "kaldi_native_fbank")):
    pytest.skip(
        "FunASR needs an fbank backend: pip install kaldi-native-fbank", allow_module_level=True
    )

from earmark.engines import funasr as funasr_engine  # noqa: E402
from earmark.engines.funasr import FunAsrEngine, funasr_text  # noqa: E402
from earmark.testing.tiny_torch_models import build_tiny_paraformer  # noqa: E402


@pytest.fixture(scope="module")
def tiny_paraformer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_paraformer(tmp_path_factory.mktemp("tiny-paraformer"))


@pytest.fixture(scope="module")
def two_clips() -> list[Clip]:
    """One second of seeded noise and one second of a 440 Hz tone."""
    noise = (0.1 * np.random.default_rng(7).standard_normal(16000)).astype(np.float32)
    tone = (0.3 * np.sin(2 * np.pi * 440 * np.arange(16000) / 16000)).astype(np.float32)
    return [Clip("noise", noise, 16000), Clip("tone", tone, 16000)]


def _engine(spec: str) -> FunAsrEngine:
    return FunAsrEngine.from_spec(parse_arm_spec(spec))


def test_tiny_paraformer_loads_and_transcribes_deterministically(
    tiny_paraformer: Path, two_clips: list[Clip], capsys: pytest.CaptureFixture[str]
) -> None:
    engine = _engine(f"funasr:{tiny_paraformer}?threads=1&model_language=zh")
    info = engine.load()
    assert "funasr version" not in capsys.readouterr().out  # banners kept off stdout
    expected = {
        name: hashlib.sha256((tiny_paraformer / name).read_bytes()).hexdigest()
        for name in ("config.yaml", "model.pt", "tokens.json")
    }
    assert info.file_sha256 == expected
    assert info.backend == "funasr" and info.runtime_version is not None
    assert info.size_bytes == sum((tiny_paraformer / n).stat().st_size for n in expected)
    assert info.revision is not None and info.revision.startswith("sha256:")
    assert info.extra["device"] == "cpu" and info.extra["weights_file"] == "model.pt"
    assert info.languages == ("zh",)

    first = engine.transcribe(two_clips, "zh")
    again = engine.transcribe(two_clips, "zh")
    assert [(h.text, h.segments) for h in first] == [(h.text, h.segments) for h in again]
    assert all(h.error is None and h.language_used == "zh" for h in first)
    assert first[0].text != first[1].text  # the model does listen to the audio

    # Oracle: funasr's own output for the same audio, through its public API.
    raw = [engine._model.generate(input=c.audio, disable_pbar=True)[0] for c in two_clips]
    for hyp, result in zip(first, raw, strict=True):
        chars = result["text"].split()
        assert len(chars) == len(result["timestamp"]) > 0  # spaced: one token per stamp
        assert hyp.text == "".join(chars) == funasr_text(result["text"])
        assert hyp.extra == {"funasr_text": result["text"]}
        assert [(s.start, s.end, s.text) for s in hyp.segments] == [
            (a / 1000, b / 1000, c) for c, (a, b) in zip(chars, result["timestamp"], strict=True)
        ]
        ends = [s.end for s in hyp.segments]
        assert ends == sorted(ends) and 0 <= hyp.segments[0].start and ends[-1] <= 1.1
    engine.close()


def test_funasr_text_joins_only_cjk_neighbours() -> None:
    assert funasr_text("你 好 世 界") == "你好世界"
    assert funasr_text("你 好 hello world 世 界") == "你好 hello world 世界"
    assert funasr_text("hello world") == "hello world" and funasr_text("") == ""


def test_empty_folder_is_one_clear_line(tmp_path: Path) -> None:
    engine = _engine(f"funasr:{tmp_path}")
    with pytest.raises(EarmarkError, match="FunASR could not load .* is not registered") as err:
        engine.load()
    assert "Registered model keys" not in str(err.value)  # funasr's 50-line list cut


def test_config_without_weights_is_refused(tiny_paraformer: Path, tmp_path: Path) -> None:
    for name in ("config.yaml", "tokens.json"):
        (tmp_path / name).write_bytes((tiny_paraformer / name).read_bytes())
    with pytest.raises(EarmarkError, match="init_param does not exist"):
        _engine(f"funasr:{tmp_path}").load()


def test_configuration_json_without_weights_never_runs_random_weights(
    tiny_paraformer: Path, tmp_path: Path
) -> None:
    """funasr itself only prints a line here and builds the model with random weights."""
    for name in ("config.yaml", "tokens.json"):
        (tmp_path / name).write_bytes((tiny_paraformer / name).read_bytes())
    metas = {"init_param": "model.pt", "config": "config.yaml",
             "tokenizer_conf": {"token_list": "tokens.json"}}  # fmt: skip
    (tmp_path / "configuration.json").write_text(
        json.dumps({"framework": "pytorch", "file_path_metas": metas}), "utf-8"
    )
    with pytest.raises(EarmarkError, match="found no weights file .* random weights"):
        _engine(f"funasr:{tmp_path}").load()


def test_missing_fbank_backend_names_the_package(
    tiny_paraformer: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(funasr_engine, "is_installed", lambda module: False)
    with pytest.raises(MissingExtraError, match="kaldi_native_fbank"):
        _engine(f"funasr:{tiny_paraformer}").load()
