"""Weight-type sweeps over stdio arms (issue 23): the arm declares the types
(`weight_types=`), each swept arm's type reaches the program through `{compute_type}`,
the program's hello (protocol 2) must list it, and the type is in the arm's provenance.
The reference program (earmark.testing.stdio_echo_asr) declares two types."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from test_engines_stdio import ECHO, PROGRAM, expected_text, make_corpus, predictions
from test_engines_stdio import clips as clips  # noqa: F401 (a fixture)

from earmark.cli import main
from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.registry import arm_weight_types
from earmark.engines.stdio_process import PROTOCOLS, ProtocolError, check_hello
from earmark.errors import EarmarkError

#: The echo program declaring f16 and q8_0, loading the arm's `{compute_type}`.
DECLARING = f"{PROGRAM} --weight-types f16,q8_0 --weight-type {{compute_type}}"


def _run(tmp_path: Path, arm: str, weight_types: str) -> tuple[int, Path]:
    manifest = make_corpus(tmp_path / "corpus", 3)
    out = tmp_path / "run"
    args = ["run", "--manifest", str(manifest), "--normalizer", "none", "--bootstrap", "0"]
    args += ["--arm", arm, "--weight-types", weight_types, "--out", str(out), "--quiet"]
    return main(args), out


def test_a_sweep_of_two_declared_types_runs_two_arms_each_recorded(tmp_path: Path) -> None:
    arm = f"stdio:{DECLARING}?weight_types=f16,q8_0&name=echo"
    code, out = _run(tmp_path, arm, "f16,q8_0")
    assert code == 0
    rows = predictions(out)
    assert sorted({r["arm"] for r in rows}) == ["echo-f16", "echo-q8_0"]
    assert all(r["status"] == "ok" for r in rows)
    by_arm: dict[str, list[str]] = {}
    for row in rows:
        by_arm.setdefault(row["arm"], []).append(row["hypothesis"])
    assert by_arm["echo-f16"] == by_arm["echo-q8_0"]  # the echo's text ignores the type
    for weight in ("f16", "q8_0"):
        model = json.loads((out / "arms" / f"echo-{weight}" / "model.json").read_text("utf-8"))
        assert model["compute_type"] == weight
        assert model["extra"]["hello"]["protocol"] == 2
        assert model["extra"]["hello"]["weight_type"] == weight
        line = f"{sys.executable} {ECHO} --weight-types f16,q8_0 --weight-type {weight}"
        assert model["extra"]["weight_type"] == {
            "requested": weight,
            "command_line": line,
            "arm_declares": ["f16", "q8_0"],
            "program_declares": ["f16", "q8_0"],
            "program_loaded": weight,
        }
        assert "--weight-type {compute_type}" in model["extra"]["template"]


def test_an_undeclared_type_is_refused_naming_the_supported_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arm = f"stdio:{DECLARING}?weight_types=f16,q8_0&name=echo"
    code, out = _run(tmp_path, arm, "f16,bf16")
    assert code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "arm 'echo' (stdio) does not declare weight type(s) bf16" in line
    assert "supported: f16, q8_0" in line
    assert not (out / "predictions.jsonl").exists()


def test_an_arm_that_declares_nothing_is_refused_saying_how_to_declare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = _run(tmp_path, f"stdio:{DECLARING}?name=echo", "native,f16,bf16,q8_0")
    assert code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "does not declare weight type(s) native, f16, bf16, q8_0" in line
    assert "supported: none" in line and "weight_types=a,b" in line


def test_arm_weight_types_are_the_arms_declaration() -> None:
    spec = parse_arm_spec(f"stdio:{DECLARING}?weight_types=f16, q8_0,f16")
    assert arm_weight_types(spec) == ("f16", "q8_0")
    assert arm_weight_types(parse_arm_spec(f"stdio:{PROGRAM}")) == ()
    assert "q8_0" in arm_weight_types(parse_arm_spec("whisper-cpp:/m/ggml.bin"))


def _load_fails(spec: str) -> str:
    engine = build_engine(parse_arm_spec(spec))
    with pytest.raises(EarmarkError) as caught:
        engine.load()
    engine.close()
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_the_program_must_declare_the_type_it_was_given() -> None:
    # a protocol-1 program (declares nothing) given a weight type: never run as if typed
    message = _load_fails(f"stdio:{PROGRAM} --error-on {{compute_type}}?compute_type=f16")
    assert "weight type 'f16' was asked for, but the stdio program declares no weight types" in (
        message
    )
    # a program that declares others
    message = _load_fails(
        f"stdio:{PROGRAM} --weight-types f16,q8_0 --error-on {{compute_type}}?compute_type=bf16"
    )
    assert "declares f16, q8_0" in message
    # a program whose hello says it loaded another type than the one it was given
    message = _load_fails(
        f"stdio:{PROGRAM} --weight-types f16,q8_0 --weight-type f16 --error-on "
        "{compute_type}?compute_type=q8_0"
    )
    assert "says it loaded 'f16'" in message


def test_a_program_that_cannot_load_the_type_fails_the_arm() -> None:
    # declared by the arm, but the program has no such weights: it exits before its hello
    message = _load_fails(f"stdio:{DECLARING}?weight_types=f16,bf16&compute_type=bf16")
    assert "did not start" in message and "no bf16 weights to load" in message


def test_one_typed_arm_without_a_sweep(clips) -> None:  # noqa: F811
    engine = build_engine(parse_arm_spec(f"stdio:{DECLARING}?compute_type=q8_0"))
    info = engine.load()
    try:
        assert info.compute_type == "q8_0"
        (hyp,) = engine.transcribe(clips[:1], "en")
        assert hyp.text == expected_text(clips[0])
    finally:
        engine.close()


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ("weight_types=../../etc", "'../../etc' is not a weight type's name"),
        ("weight_types=a b", "'a b' is not a weight type's name"),
        ("weight_types=,", "is not a list of 1 to 64 names"),
        ("weight_types=" + ",".join(f"t{k}" for k in range(65)), "1 to 64 names"),
        ("compute_type=f16;rm", "'f16;rm' is not a weight type's name"),
        ("weight_types=f16&compute_type=q8_0", "'q8_0' is not one of the arm's weight_types"),
    ],
)
def test_hostile_arm_settings_are_refused_before_anything_starts(
    settings: str, message: str
) -> None:
    with pytest.raises(EarmarkError, match=message.replace("(", r"\(")):
        build_engine(parse_arm_spec(f"stdio:{DECLARING}?{settings}"))


def test_a_type_needs_the_placeholder_and_the_placeholder_a_type() -> None:
    with pytest.raises(EarmarkError, match=r"has no \{compute_type\}"):
        build_engine(parse_arm_spec(f"stdio:{PROGRAM}?compute_type=f16"))
    with pytest.raises(EarmarkError, match="sets no weight type"):
        build_engine(parse_arm_spec(f"stdio:{DECLARING}"))


HELLO = {"type": "hello", "name": "x"}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"protocol": 1, "weight_types": ["f16"]}, "came with protocol 2"),
        ({"protocol": 1, "weight_type": "f16"}, "came with protocol 2"),
        ({"protocol": 2, "weight_types": "f16"}, "not a list"),
        ({"protocol": 2, "weight_types": []}, "not a list"),
        ({"protocol": 2, "weight_types": [f"t{k}" for k in range(65)]}, "not a list"),
        ({"protocol": 2, "weight_types": ["f16", "../x"]}, 'holds "../x"'),
        ({"protocol": 2, "weight_types": ["f16", 16]}, "holds 16"),
        ({"protocol": 2, "weight_types": ["x" * 65]}, "holds"),
        ({"protocol": 2, "weight_types": ["f16"], "weight_type": None}, "weight_type is null"),
        ({"protocol": 2, "weight_types": ["f16"], "weight_type": "f 16"}, "weight_type is"),
        ({"protocol": True}, "speaks protocol True; earmark speaks 1 and 2"),
        ({"protocol": 3}, "speaks protocol 3"),
    ],
)
def test_hostile_hellos_are_protocol_errors(extra: dict[str, object], message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        check_hello({**HELLO, **extra})  # type: ignore[dict-item]


def test_both_protocol_versions_are_read() -> None:
    assert PROTOCOLS == (1, 2)
    assert check_hello({**HELLO, "protocol": 1})["protocol"] == 1
    typed = {**HELLO, "protocol": 2, "weight_types": ["f16", "q8_0"], "weight_type": "f16"}
    assert check_hello(typed) == typed  # type: ignore[arg-type]
