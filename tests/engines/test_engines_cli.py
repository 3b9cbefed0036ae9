"""`earmark engines`: the listing and `--check`, through the real CLI entry point."""

from __future__ import annotations

import json

import pytest

from earmark.cli import main
from earmark.engines import BACKENDS


def test_listing_names_every_backend(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["engines"]) == 0
    out = capsys.readouterr().out
    for name in BACKENDS:
        assert f"{name}: " in out
    assert "int8_float32" in out and "faster-whisper (installed)" in out


def test_listing_says_who_declares_weight_types(capsys: pytest.CaptureFixture[str]) -> None:
    """stdio's program declares its weight types per arm; http's cannot be swept."""
    assert main(["engines"]) == 0
    out = capsys.readouterr().out
    stdio = out[out.index("stdio: ") :].split("\n")
    http = out[out.index("http: ") :].split("\n")
    assert (
        "  weight types: declared by each arm (weight_types=A,B; docs/stdio_protocol.md)"
        in stdio[:8]
    )
    assert "  weight types: not applicable" in http[:8]


def test_json_listing_mirrors_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["engines", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == list(BACKENDS)
    assert rows[0]["extra"] == "faster-whisper" and rows[0]["installed"] is True
    assert {r["name"]: r["weight_types"] for r in rows}["http"] == []


def test_check_validates_without_loading(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["engines", "--check", "faster-whisper:bundled:tiny.en?compute_type=int8&name=base"])
        == 0
    )
    assert capsys.readouterr().out.startswith("ok  base  {")
    assert main(["engines", "--check", "faster-whisper:bundled:tiny.en?compute_type=int3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "setting 'compute_type'" in err
