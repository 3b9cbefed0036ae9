"""Arm spec parsing, settings validation before load, weight types, registry errors."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from earmark.engines import (
    BACKENDS,
    ArmSpec,
    build_engine,
    parse_arm_spec,
    supported_weight_types,
    validate_arm,
)
from earmark.errors import EarmarkError, MissingExtraError


def test_compact_form_with_settings() -> None:
    arm = parse_arm_spec("faster-whisper:/models/tiny?compute_type=int8&beam_size=5")
    assert arm.backend == "faster-whisper"
    assert arm.model == "/models/tiny"
    assert arm.settings == (("beam_size", "5"), ("compute_type", "int8"))
    assert arm.settings_dict == {"beam_size": "5", "compute_type": "int8"}
    assert re.fullmatch(r"faster-whisper-tiny-int8-[0-9a-f]{8}", arm.name)


def test_bundled_model_keeps_its_colon() -> None:
    arm = parse_arm_spec("faster-whisper:bundled:tiny.en")
    assert (arm.backend, arm.model, arm.settings) == ("faster-whisper", "bundled:tiny.en", ())


def test_http_url_with_settings() -> None:
    arm = parse_arm_spec("http:http://127.0.0.1:8000/v1?model=whisper-1&api_key_env=OPENAI_API_KEY")
    assert arm.model == "http://127.0.0.1:8000/v1"
    assert arm.settings_dict == {"api_key_env": "OPENAI_API_KEY", "model": "whisper-1"}
    assert arm.name.startswith("http-127.0.0.1-")


def test_command_keeps_spaces_and_question_marks() -> None:
    arm = parse_arm_spec("command:./asr.sh {audio} {language}")
    assert arm.model == "./asr.sh {audio} {language}" and arm.settings == ()
    # A '?' not followed by key=value pairs stays in the model.
    odd = parse_arm_spec("command:./asr.sh {audio} what?")
    assert odd.model == "./asr.sh {audio} what?"
    timed = parse_arm_spec("command:./asr.sh {audio}?timeout=5")
    assert timed.model == "./asr.sh {audio}" and timed.settings_dict == {"timeout": "5"}


def test_name_setting_labels_the_arm_and_is_not_a_setting() -> None:
    arm = parse_arm_spec("precomputed:hyps.jsonl?name=baseline")
    assert arm.name == "baseline" and arm.settings == ()
    assert arm.to_dict() == {
        "name": "baseline",
        "backend": "precomputed",
        "model": "hyps.jsonl",
        "settings": {},
    }


def test_percent_decoding() -> None:
    arm = parse_arm_spec("faster-whisper:/m?temperature=0%2C0.2")
    assert arm.settings_dict["temperature"] == "0,0.2"


def test_canonical_is_order_independent_and_ignores_the_label() -> None:
    a = parse_arm_spec("faster-whisper:/m?beam_size=5&compute_type=int8&name=a")
    b = parse_arm_spec("faster-whisper:/m?compute_type=int8&beam_size=5&name=b")
    assert a.canonical() == b.canonical()
    assert a.digest() == b.digest()
    assert (
        a.canonical() == '{"backend":"faster-whisper","model":"/m",'
        '"settings":{"beam_size":"5","compute_type":"int8"}}'
    )
    assert parse_arm_spec("faster-whisper:/m?beam_size=1").canonical() != a.canonical()


def test_from_mapping_matches_compact_form() -> None:
    table = {
        "backend": "faster-whisper",
        "model": "/m",
        "settings": {
            "beam_size": 5,
            "compute_type": "int8",
            "vad_filter": True,
            "temperature": [0.0, 0.2],
        },
    }
    arm = ArmSpec.from_mapping(table)
    compact = parse_arm_spec(
        "faster-whisper:/m?beam_size=5&compute_type=int8&vad_filter=true&temperature=0.0,0.2"
    )
    assert arm == compact
    assert ArmSpec.from_mapping({**table, "name": "x"}).name == "x"
    assert ArmSpec.from_mapping(compact.to_dict()) == compact


@given(
    st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(lambda k: k != "name"),
        st.text(alphabet="abcxyz0123456789.,-_/&=?% ", max_size=8),
        max_size=4,
    )
)
def test_compact_round_trip(settings: dict[str, str]) -> None:
    arm = ArmSpec("faster-whisper", "/models/x", tuple(settings.items()))
    assert parse_arm_spec(arm.compact()) == arm
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", arm.name)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tiny.en", "not BACKEND:MODEL"),
        (":model", "not BACKEND:MODEL"),
        ("faster-whisper:", "not BACKEND:MODEL"),
        ("faster-whisper:?beam_size=5", "has no model"),
        ("faster-whisper:/m?beam_size=5&beam_size=4", "twice"),
        ("faster-whisper:/m?name=../etc", "not filesystem-safe"),
    ],
)
def test_invalid_specs(text: str, message: str) -> None:
    with pytest.raises(EarmarkError, match=re.escape(message)):
        parse_arm_spec(text)


@pytest.mark.parametrize(
    ("table", "field"),
    [
        ({"model": "/m"}, "backend"),
        ({"backend": "faster-whisper"}, "model"),
        ({"backend": "faster-whisper", "model": "/m", "weights": "x"}, "weights"),
        ({"backend": "faster-whisper", "model": "/m", "settings": {"a": {"b": 1}}}, "a"),
    ],
)
def test_invalid_tables(table: dict[str, object], field: str) -> None:
    with pytest.raises(EarmarkError) as caught:
        ArmSpec.from_mapping(table, file="plan.toml")
    assert caught.value.field == field and caught.value.file == "plan.toml"


@pytest.mark.parametrize(
    ("spec", "key", "message"),
    [
        ("faster-whisper:bundled:tiny.en?beamsize=5", "beamsize", "unknown setting"),
        ("faster-whisper:bundled:tiny.en?beam_size=0", "beam_size", "below the minimum 1"),
        ("faster-whisper:bundled:tiny.en?beam_size=five", "beam_size", "not an integer"),
        ("faster-whisper:bundled:tiny.en?temperature=hot", "temperature", "not a number"),
        ("faster-whisper:bundled:tiny.en?vad_filter=maybe", "vad_filter", "not a boolean"),
        ("faster-whisper:bundled:tiny.en?language_policy=guess", "language_policy", "not one of"),
        ("faster-whisper:bundled:tiny.en?licence=MIT", "licence", "needs licence_source"),
        ("http:http://h/v1?timeout=-1", "timeout", "below the minimum"),
        ("command:echo {audio}?shell=perhaps", "shell", "not a boolean"),
    ],
)
def test_bad_settings_fail_before_any_load(spec: str, key: str, message: str) -> None:
    arm = parse_arm_spec(spec)
    with pytest.raises(EarmarkError) as caught:
        validate_arm(arm)
    assert caught.value.field == key
    assert f"arm '{arm.name}'" in str(caught.value) and f"setting '{key}'" in str(caught.value)
    assert message in str(caught.value)


def test_weight_types() -> None:
    types = supported_weight_types("faster-whisper")
    assert {"int8", "int8_float32", "float16", "bfloat16", "float32", "default"} <= set(types)
    assert supported_weight_types("http") == ()
    with pytest.raises(EarmarkError, match="'int4' is not one of"):
        validate_arm(parse_arm_spec("faster-whisper:bundled:tiny.en?compute_type=int4"))
    # Backends without weight types do not accept one at all.
    with pytest.raises(EarmarkError, match="unknown setting"):
        validate_arm(parse_arm_spec("http:http://h/v1?compute_type=int8"))


def test_unknown_backend() -> None:
    with pytest.raises(EarmarkError, match="unknown backend 'whisperx'") as caught:
        build_engine(parse_arm_spec("whisperx:/m"))
    assert "faster-whisper" in str(caught.value)
    with pytest.raises(EarmarkError):
        supported_weight_types("whisperx")


def test_missing_extra_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "faster_whisper", None)  # makes `import faster_whisper` fail
    with pytest.raises(MissingExtraError) as caught:
        build_engine(parse_arm_spec("faster-whisper:bundled:tiny.en"))
    text = str(caught.value)
    assert "\n" not in text
    assert "faster-whisper backend needs the optional package 'faster_whisper'" in text
    assert "pip install 'earmark[faster-whisper]'" in text
    assert caught.value.extra == "faster-whisper"


def test_metadata_covers_every_backend() -> None:
    assert set(BACKENDS) == {
        "faster-whisper",
        "http",
        "azure-speech",
        "command",
        "stdio",
        "precomputed",
        "transformers-ctc",
        "transformers-seq2seq",
        "whisper-cpp",
        "sherpa-onnx",
        "vosk",
        "funasr",
        "qwen3-asr",
    }
    for info in BACKENDS.values():
        row = info.to_dict()
        assert row["name"] == info.name and isinstance(row["installed"], bool)
        assert info.languages and info.timestamps and info.provenance and info.formats
