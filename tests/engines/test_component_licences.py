"""Licences of what an arm loads besides its weights (issue 23): the tokenizer and any
separate model (`aligner=`), each from its own model card; unknown is null with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from earmark.engines.model_metadata import component_licences, model_card_licence


def _card(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(text, "utf-8")
    return folder


@pytest.mark.parametrize(
    ("card", "licence"),
    [
        ("---\nlicense: apache-2.0\nlanguage: ga\n---\n# model\n", "apache-2.0"),
        ("---\r\nlanguage: en\r\nlicense: 'mit'\r\n---\r\n", "mit"),
        ("---\nlicense: other\nlicense_name: gemma\n---\n", "gemma"),
    ],
)
def test_a_model_cards_licence(tmp_path: Path, card: str, licence: str) -> None:
    got = model_card_licence(_card(tmp_path / "m", card))
    assert got == {
        "licence": licence,
        "licence_source": "model card README.md front matter",
        "licence_null_reason": None,
    }


@pytest.mark.parametrize(
    ("card", "reason"),
    [
        (None, "no model card (README.md) in the folder"),
        ("# just a title\nlicense: mit\n", "the model card has no front matter"),
        ("---\nlanguage: en\n---\n", "declares no licence"),
        ("---\nlicense:\n---\n", "declares no licence"),
        ("---\nlicense: " + "x" * 200 + "\n---\n", "declares no licence"),
        ("---\nlicense: mi\x00t\n---\n", "declares no licence"),
    ],
    ids=["no-card", "no-front-matter", "no-key", "empty", "huge", "nul"],
)
def test_no_licence_is_null_with_the_reason(tmp_path: Path, card: str | None, reason: str) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    if card is not None:
        _card(folder, card)
    got = model_card_licence(folder)
    assert got["licence"] is None and got["licence_source"] is None
    assert reason in str(got["licence_null_reason"])


def test_tokenizer_in_the_model_folder_and_a_separate_aligner(tmp_path: Path) -> None:
    model = _card(tmp_path / "asr", "---\nlicense: apache-2.0\n---\n")
    aligner = _card(tmp_path / "aligner", "---\nlicense: cc-by-nc-4.0\n---\n")
    files = {"model.bin": "a" * 64, "tokenizer.json": "b" * 64, "config.json": "c" * 64}
    got = component_licences(str(model), {"aligner": str(aligner)}, files)
    assert got == {
        "tokenizer": {
            "files": ["tokenizer.json"],
            "licence": "apache-2.0",
            "licence_source": "model card README.md front matter",
            "licence_null_reason": None,
        },
        "aligner": {
            "path": str(aligner),
            "licence": "cc-by-nc-4.0",
            "licence_source": "model card README.md front matter",
            "licence_null_reason": None,
        },
    }


def test_parts_earmark_cannot_locate_are_null(tmp_path: Path) -> None:
    files = {"tokenizer.model": "a" * 64}
    got = component_licences("openai/whisper-tiny", {"aligner": "org/aligner"}, files)
    assert got["tokenizer"]["licence"] is None  # type: ignore[index]
    assert "not a local folder" in got["tokenizer"]["licence_null_reason"]  # type: ignore[index]
    assert got["aligner"]["licence_null_reason"] == "aligner= is not a local folder"  # type: ignore[index]


@pytest.mark.parametrize("model", ["x" * 5000, "a\x00b", "", None, "python fake.py {audio}"])
def test_hostile_model_strings_are_no_folder(model: str | None) -> None:
    assert component_licences(model, {"aligner": "\x00"}, {}) == {
        "aligner": {
            "path": "\x00",
            "licence": None,
            "licence_source": None,
            "licence_null_reason": "aligner= is not a local folder",
        }
    }


def test_nothing_to_say_without_parts() -> None:
    assert component_licences("python fake.py", {}, {"fake.py": "a" * 64}) == {}
