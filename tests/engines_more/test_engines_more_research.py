"""FunASR and Qwen3-ASR research adapters, plus the shared model-source rules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from earmark.engines import BACKENDS, build_engine, parse_arm_spec, validate_arm
from earmark.engines.funasr import funasr_segments
from earmark.engines.model_source import hub_snapshot
from earmark.engines.qwen3_asr import language_code, qwen_language
from earmark.errors import EarmarkError, MissingExtraError

COMMIT = "a" * 40


@pytest.mark.parametrize(
    ("backend", "module", "extra"),
    [("funasr", "funasr", "funasr"), ("qwen3-asr", "qwen_asr", "qwen3-asr")],
)
def test_missing_extra_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str, module: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(MissingExtraError) as caught:
        build_engine(parse_arm_spec(f"{backend}:{tmp_path}"))
    assert caught.value.extra == extra
    assert f"pip install 'earmark[{extra}]'" in str(caught.value)
    assert BACKENDS[backend].extra == extra and "research adapter" in BACKENDS[backend].summary


def test_research_specs_are_validated_without_importing_them(tmp_path: Path) -> None:
    validate_arm(
        parse_arm_spec(
            f"funasr:{tmp_path}?threads=2&licence=Apache-2.0&licence_source=https://huggingface.co/funasr/paraformer-zh"
        )
    )
    validate_arm(parse_arm_spec(f"qwen3-asr:{tmp_path}?compute_type=bfloat16&batch_size=4"))
    validate_arm(parse_arm_spec(f"qwen3-asr:Qwen/Qwen3-ASR-0.6B?download=true&revision={COMMIT}"))
    with pytest.raises(EarmarkError, match="needs licence_source"):
        validate_arm(parse_arm_spec(f"funasr:{tmp_path}?licence=Apache-2.0"))
    with pytest.raises(EarmarkError, match="model not found at funasr/paraformer-zh"):
        validate_arm(parse_arm_spec("funasr:funasr/paraformer-zh"))
    with pytest.raises(EarmarkError, match="no model folder at"):
        validate_arm(parse_arm_spec(f"funasr:{tmp_path}?vad_model={tmp_path}/missing"))
    with pytest.raises(EarmarkError, match="no forced-aligner folder"):
        validate_arm(parse_arm_spec(f"qwen3-asr:{tmp_path}?aligner={tmp_path}/missing"))
    with pytest.raises(EarmarkError, match="is not one of float32"):
        validate_arm(parse_arm_spec(f"funasr:{tmp_path}?compute_type=int8"))
    with pytest.raises(EarmarkError, match="is not one of forced, detect"):
        validate_arm(parse_arm_spec(f"qwen3-asr:{tmp_path}?language_policy=refuse"))


def test_funasr_timestamps_become_segments() -> None:
    chars = funasr_segments({"timestamp": [[100, 300], [300, 620]]}, "你好")
    assert [(s.start, s.end, s.text) for s in chars] == [(0.1, 0.3, "你"), (0.3, 0.62, "好")]
    sentences = funasr_segments(
        {"sentence_info": [{"text": "你好。", "start": 0, "end": 900}]}, "你好。"
    )
    assert [(s.start, s.end, s.text) for s in sentences] == [(0.0, 0.9, "你好。")]
    # Counts disagree: one segment spanning them all, never an invented alignment.
    spanning = funasr_segments({"timestamp": [[0, 200], [200, 500]]}, "你好吗")
    assert [(s.start, s.end, s.text) for s in spanning] == [(0.0, 0.5, "你好吗")]
    assert funasr_segments({}, "") == ()


def test_qwen_language_names_round_trip() -> None:
    assert qwen_language("zh-CN") == "Chinese" and qwen_language("yue") == "Cantonese"
    assert qwen_language("ga") is None and qwen_language(None) is None
    assert language_code("Chinese") == "zh" and language_code("cantonese") == "yue"
    assert language_code("Klingon") == "Klingon" and language_code("") is None


def test_hub_snapshot_commit_and_repo_are_read_from_the_cache_path() -> None:
    path = Path(f"/cache/hub/models--Qwen--Qwen3-ASR-0.6B/snapshots/{COMMIT}")
    assert hub_snapshot(path) == ("Qwen/Qwen3-ASR-0.6B", COMMIT)
    assert hub_snapshot(path / "model.safetensors") == ("Qwen/Qwen3-ASR-0.6B", COMMIT)
    assert hub_snapshot(Path("/models/snapshots/not-a-commit")) is None
    assert hub_snapshot(Path("/models/tiny")) is None


def test_importing_the_backends_stays_light() -> None:
    code = (
        "import sys, earmark.engines as e\n"
        "from earmark.engines import funasr, qwen3_asr, sherpa_onnx, transformers_ctc,"
        " transformers_seq2seq, vosk, whisper_cpp\n"
        "heavy = {'torch', 'transformers', 'funasr', 'qwen_asr', 'sherpa_onnx', 'vosk',"
        " 'pywhispercpp', '_pywhispercpp'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_qwen_chunked_languages_map_part_by_part() -> None:
    """A long clip is cut into chunks and qwen-asr joins their languages with commas."""
    assert language_code("Chinese,English") == "zh,en"
    assert language_code("Chinese, Klingon") == "zh,Klingon" and language_code(" ") is None
