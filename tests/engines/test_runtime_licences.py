"""The licence each runtime distribution declares, in the footprint record (issue 23):
read from its metadata with the field it came from; none declared is null with a reason."""

from __future__ import annotations

import importlib.metadata as metadata
from email.message import Message
from pathlib import Path

import pytest

from earmark.engines.runtime_footprint import MAX_LICENCE_NAME, declared_licence, footprint


def _meta(*fields: tuple[str, str]) -> Message:
    message = Message()
    for key, value in fields:
        message[key] = value
    return message


MIT = "License :: OSI Approved :: MIT License"
APACHE = "License :: OSI Approved :: Apache Software License"


@pytest.mark.parametrize(
    ("fields", "licence", "source"),
    [
        ([("License-Expression", "MIT OR Apache-2.0"), ("License", "BSD")], "MIT OR Apache-2.0",
         "package metadata License-Expression"),
        ([("License", "BSD-3-Clause"), ("Classifier", MIT)], "BSD-3-Clause",
         "package metadata License"),
        ([("License", "UNKNOWN"), ("Classifier", MIT)], "MIT License",
         "package metadata classifiers"),
        ([("Classifier", "Programming Language :: Python"), ("Classifier", MIT),
          ("Classifier", APACHE)], "MIT License; Apache Software License",
         "package metadata classifiers (several, their relation not declared)"),
        ([("License-Expression", " "), ("License", "MIT")], "MIT", "package metadata License"),
    ],
    ids=["expression", "license", "unknown-then-classifier", "two-classifiers", "blank-expr"],
)  # fmt: skip
def test_declared_licence_by_field(fields: list, licence: str, source: str) -> None:
    got = declared_licence(_meta(*fields))
    assert (got.licence, got.source, got.null_reason) == (licence, source, None)


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ([], "no License-Expression, License or licence classifier"),
        ([("License", "none")], "no License-Expression, License or licence classifier"),
        ([("License", "Copyright (c) 2020\nPermission is hereby granted...")], "licence text"),
        ([("License", "x" * (MAX_LICENCE_NAME + 1))], "licence text"),
        ([("Classifier", "License :: OSI Approved")], "no License-Expression"),
    ],
    ids=["nothing", "none", "full-text", "too-long", "bare-classifier"],
)
def test_no_licence_is_null_with_the_reason(fields: list, reason: str) -> None:
    got = declared_licence(_meta(*fields))
    assert got.licence is None and got.source is None
    assert reason in (got.null_reason or "")


def test_no_metadata_at_all() -> None:
    assert declared_licence(None).null_reason == "the distribution has no metadata"


def test_the_footprint_lists_each_distributions_licence(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    for name, extra in (
        ("licroot", "License-Expression: Apache-2.0\nRequires-Dist: licdep\n"),
        ("licdep", "License: Copyright (c) nobody\n Permission is granted\n"),
    ):
        info = site / f"{name}-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.4\nName: {name}\nVersion: 1.0\n{extra}", "utf-8"
        )
        (info / "RECORD").write_text(f"{name}-1.0.dist-info/METADATA,,\n", "utf-8")
    record = footprint(["licroot"], path=[str(site)]).to_dict()
    distributions = record["distributions"]
    assert isinstance(distributions, dict)
    assert distributions["licroot"] == {
        "version": "1.0",
        "bytes": (site / "licroot-1.0.dist-info" / "METADATA").stat().st_size,
        "licence": "Apache-2.0",
        "licence_source": "package metadata License-Expression",
        "licence_null_reason": None,
    }
    dep = distributions["licdep"]
    assert isinstance(dep, dict) and dep["licence"] is None
    assert "licence text" in str(dep["licence_null_reason"])


def test_an_installed_distribution_agrees_with_its_own_metadata() -> None:
    # packaging declares `License-Expression` (PEP 639) or classifiers: the oracle is
    # importlib.metadata read directly.
    meta = metadata.metadata("packaging")
    got = declared_licence(meta)  # type: ignore[arg-type]
    expression = meta.get("License-Expression")
    if expression:
        assert got.licence == expression.strip()
    else:
        assert got.licence is not None
