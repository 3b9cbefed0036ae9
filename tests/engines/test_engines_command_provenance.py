"""A command arm records what it ran: executable, template files and the declared model;
without `model=` it is unverifiable, with the reason (issue 11 item 7)."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.file_hashes import content_revision
from earmark.errors import EarmarkError
from earmark.execution.arm_loop import model_info_dict
from earmark.rundir.provenance import is_verifiable


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _provenance(info_dict: dict) -> dict:
    return {
        "corpus": {"manifest_sha256": "a" * 64},
        "host": {"cpu_model": "test", "arch": "x86_64"},
        "arms": {"asr": {"model": info_dict}},
    }


def test_interpreter_script_and_model_folder_are_hashed(tmp_path: Path) -> None:
    script = tmp_path / "asr.py"
    script.write_text("import sys; print('hello')\n", "utf-8")
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a b c\n", "utf-8")
    model = tmp_path / "weights"
    (model / "sub").mkdir(parents=True)
    (model / "model.bin").write_bytes(b"\x00\x01weights")
    (model / "sub" / "config.json").write_text("{}", "utf-8")
    spec = parse_arm_spec(
        f"command:{sys.executable} {script} --vocab={vocab} {{audio}}?model={model}&name=asr"
    )
    info = build_engine(spec).load()
    python = Path(sys.executable).resolve()
    expected = {
        python.as_posix(): _sha(python),
        script.resolve().as_posix(): _sha(script),
        vocab.resolve().as_posix(): _sha(vocab),
        (model.resolve() / "model.bin").as_posix(): _sha(model / "model.bin"),
        (model.resolve() / "sub/config.json").as_posix(): _sha(model / "sub" / "config.json"),
    }
    assert info.file_sha256 == expected
    assert info.revision == content_revision(expected)
    # The revision is no longer just the interpreter's hash.
    assert info.revision != f"sha256:{_sha(python)}"
    assert info.extra["model"] == str(model.resolve())
    assert "verifiable" not in info.extra
    assert is_verifiable(_provenance(model_info_dict(info))) == (True, [])


def test_changing_the_script_or_the_model_changes_the_revision(tmp_path: Path) -> None:
    script = tmp_path / "asr.py"
    script.write_text("print('one')\n", "utf-8")
    weights = tmp_path / "model.bin"
    weights.write_bytes(b"v1")
    text = f"command:{sys.executable} {script} {{audio}}?model={weights}"
    first = build_engine(parse_arm_spec(text)).load().revision
    script.write_text("print('two')\n", "utf-8")
    second = build_engine(parse_arm_spec(text)).load().revision
    weights.write_bytes(b"v2")
    third = build_engine(parse_arm_spec(text)).load().revision
    assert len({first, second, third}) == 3


def test_without_a_declared_model_the_arm_is_unverifiable(tmp_path: Path) -> None:
    script = tmp_path / "asr.py"
    script.write_text("print('x')\n", "utf-8")
    info = build_engine(
        parse_arm_spec(f"command:{sys.executable} {script} {{audio}}?name=asr")
    ).load()
    assert script.resolve().as_posix() in info.file_sha256
    assert info.extra["verifiable"] is False
    ok, missing = is_verifiable(_provenance(model_info_dict(info)))
    assert not ok
    assert missing == [
        "command arm 'asr' declares no model= file or folder: the weights the program loads "
        "are not hashed"
    ]


def test_a_declared_model_that_does_not_exist_is_a_spec_error(tmp_path: Path) -> None:
    with pytest.raises(EarmarkError, match="setting 'model': .*not found"):
        build_engine(parse_arm_spec(f"command:cat {{audio}}?model={tmp_path / 'nope.bin'}"))
