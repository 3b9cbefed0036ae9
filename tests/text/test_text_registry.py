"""The registry: names, the contract every normaliser keeps, lazy imports, `none`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from earmark.errors import EarmarkError
from earmark.text import (
    Normalizer,
    ViewPair,
    available_normalizers,
    get_normalizer,
    normalize_text,
    register,
)

BUILT_IN = [
    "blasbench-ga-v1",
    "crude-char-v1",
    "crude-delete-v1",
    "crude-v1",
    "en-v1",
    "ga-v1",
    "mmv-cer-v1",
    "none",
    "zh-eval-v1",
    "zh-itn-v1",
]


def test_available_normalizers() -> None:
    assert available_normalizers() == BUILT_IN


@pytest.mark.parametrize("name", BUILT_IN)
def test_contract(name: str) -> None:
    normalizer = get_normalizer(name)
    assert isinstance(normalizer, Normalizer)
    assert normalizer.name == name
    assert normalizer.views[0] == "raw"
    assert normalizer.primary_view in normalizer.views
    assert set(normalizer.units) <= {"word", "char"}
    pair = normalizer.normalize_pair("Ａ b,  C。", "x")
    assert tuple(pair) == normalizer.views
    assert pair["raw"] == ViewPair("Ａ b,  C。", "x")
    assert get_normalizer(name) is normalizer  # one immutable instance


@pytest.mark.parametrize("name", BUILT_IN)
def test_instances_are_immutable(name: str) -> None:
    with pytest.raises(AttributeError):
        get_normalizer(name).name = "other"  # type: ignore[misc]


def test_unknown_name_lists_known_names() -> None:
    with pytest.raises(EarmarkError) as info:
        get_normalizer("zh-eval-v9")
    message = str(info.value)
    assert "zh-eval-v9" in message
    for name in BUILT_IN:
        assert name in message


def test_a_taken_name_cannot_be_reused() -> None:
    class Impostor:
        __slots__ = ()
        name = "ga-v1"
        description = "not the real one"
        views = ("raw",)
        primary_view = "raw"
        units = ("word",)
        comparison_only = False

        def normalize_pair(self, reference: str, hypothesis: str) -> dict[str, ViewPair]:
            return {"raw": ViewPair(reference, hypothesis)}

    with pytest.raises(EarmarkError, match="already taken"):
        register(Impostor)
    assert get_normalizer("ga-v1").description != "not the real one"


def test_a_malformed_normaliser_is_refused() -> None:
    class NoRawFirst:
        name = "bad-v1"
        description = ""
        views = ("normalized", "raw")
        primary_view = "raw"
        units = ("word",)
        comparison_only = False

        def normalize_pair(self, reference: str, hypothesis: str) -> dict[str, ViewPair]:
            return {}

    with pytest.raises(EarmarkError, match="first view must be 'raw'"):
        register(NoRawFirst)
    assert "bad-v1" not in available_normalizers()


def test_none_is_the_identity() -> None:
    assert normalize_text("none", "  Ａ,b ") == {"raw": "  Ａ,b "}


def test_normalize_text_gives_every_view() -> None:
    assert normalize_text("ga-v1", "An tAthair!") == {
        "raw": "An tAthair!",
        "normalized": "an t-athair",
    }


_PROBE = """
import json, sys
import earmark.text
from earmark.text import available_normalizers, get_normalizer
available_normalizers()
before = sorted(m for m in ("opencc", "whisper_normalizer") if m in sys.modules)
get_normalizer("zh-eval-v1").normalize_pair("头发", "頭髮")
get_normalizer("en-v1").normalize_pair("colour", "color")
after = sorted(m for m in ("opencc", "whisper_normalizer") if m in sys.modules)
print(json.dumps([before, after]))
"""


def test_engines_are_imported_only_when_used() -> None:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True)
    before, after = json.loads(out.stdout)
    assert before == []
    assert after == ["opencc"]  # en-v1 is earmark's own code: no engine at all


_ONE_LOOKUP = """
import json, sys
from earmark.text import get_normalizer
get_normalizer("en-v1")
print(json.dumps(sorted(m for m in sys.modules if m.startswith("earmark.text."))))
"""

_EARLY_IMPOSTOR = """
from earmark.errors import EarmarkError
from earmark.text import ViewPair, get_normalizer, register
class Impostor:
    __slots__ = ()
    name = "en-v1"
    description = "not the real one"
    views = ("raw",)
    primary_view = "raw"
    units = ("word",)
    comparison_only = False
    def normalize_pair(self, reference, hypothesis):
        return {"raw": ViewPair(reference, hypothesis)}
try:
    register(Impostor)
except EarmarkError as exc:
    assert "already taken" in str(exc), exc
else:
    raise SystemExit("registered")
assert get_normalizer("en-v1").description != "not the real one"
"""


def test_a_lookup_imports_only_its_own_module() -> None:
    """`get_normalizer("en-v1")` imports `earmark.text.en_v1` (and what it imports), not the
    other nine: each built-in's module is named after it."""
    out = subprocess.run(
        [sys.executable, "-c", _ONE_LOOKUP], capture_output=True, text=True, check=True
    )
    loaded = set(json.loads(out.stdout))
    assert "earmark.text.en_v1" in loaded
    others = {f"earmark.text.{name.replace('-', '_')}" for name in BUILT_IN} - {
        "earmark.text.en_v1",
        "earmark.text.none",
    }
    assert not loaded & others
    for name in BUILT_IN:  # the name -> module rule the lazy lookup relies on
        module = type(get_normalizer(name)).__module__
        assert module == f"earmark.text.{name.replace('-', '_')}"


def test_a_built_in_name_is_taken_before_its_module_is_loaded() -> None:
    subprocess.run([sys.executable, "-c", _EARLY_IMPOSTOR], check=True)
