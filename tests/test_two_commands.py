"""The README's first lines give the install-and-demo command and the test command, and
`.ci/run` runs exactly that test command (non-negotiable 1): a CI that ran another
command could pass while the README's fails."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text("utf-8"), re.S)
    assert block is not None, "the README opens with a sh block"
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_the_readme_opens_with_the_demo_and_the_test_command() -> None:
    demo, tests = _readme_commands()
    assert demo.endswith("earmark demo")
    assert tests.endswith("python -m pytest -q")


def test_ci_runs_the_readmes_test_command_exactly() -> None:
    _, tests = _readme_commands()
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()]
    commands = [line for line in lines if line and not line.startswith("#")]
    assert commands[-1] == tests
