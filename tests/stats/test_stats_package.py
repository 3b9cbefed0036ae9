"""Reading the bootstrap's settings imports no numpy, and `earmark.stats` re-exports nothing.

Every command's flags read `earmark.stats.settings`; the parser (and `earmark --help`)
should not pay for numpy. Each statistics name is imported from the module it lives in.
"""

import subprocess
import sys

import pytest

import earmark.stats


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


def test_the_package_reexports_nothing() -> None:
    names = {n for n in vars(earmark.stats) if not n.startswith("__")}
    # Only submodules that something has imported appear as attributes.
    assert names <= {
        "bootstrap",
        "cores",
        "delta_method",
        "paired_tests",
        "settings",
        "resampling",
        "poisson_resampling",
        "protocol_bootstrap",
    }
    with pytest.raises(ImportError):
        exec("from earmark.stats import bootstrap_ci", {})
