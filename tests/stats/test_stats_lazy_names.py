"""`earmark.stats` names its public functions without importing numpy until one is used.

Every command's flags read `earmark.stats.settings`; the parser (and `earmark --help`)
should not pay for numpy. The names stay where the docs say (`from earmark.stats import
bootstrap_ci`), each the very object of the module it lives in.
"""

import subprocess
import sys

import pytest

import earmark.stats as stats
from earmark.stats import bootstrap, delta_method, paired_tests, settings


def _modules_after(code: str) -> set[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    import json

    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_settings_and_parser_do_not_import_numpy() -> None:
    mods = _modules_after(
        "import earmark.stats.settings\nfrom earmark.cli import build_parser\nbuild_parser()"
    )
    assert "earmark.stats.settings" in mods
    assert "numpy" not in mods
    assert "earmark.stats.bootstrap" not in mods


def test_every_public_name_is_its_home_modules_object() -> None:
    homes = (bootstrap, delta_method, paired_tests, settings)
    for name in stats.__all__:
        value = getattr(stats, name)
        owners = [m for m in homes if getattr(m, name, None) is value]
        assert owners, name
    assert stats.bootstrap_ci is bootstrap.bootstrap_ci
    assert stats.holm_adjust is paired_tests.holm_adjust
    assert stats.DEFAULT_SEED == 20260926


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'bootstrap_cj'"):
        stats.bootstrap_cj  # noqa: B018
    with pytest.raises(ImportError):
        exec("from earmark.stats import nothing_here", {})
