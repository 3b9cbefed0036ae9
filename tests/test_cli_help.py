"""Every option of every subcommand says what it does and what it defaults to."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from earmark.cli import build_parser


def _parsers(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _parsers(child, (*path, name))


ALL = list(_parsers(build_parser()))


def _options(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    for action in parser._actions:
        if action.option_strings and not isinstance(
            action, (argparse._HelpAction, argparse._VersionAction)
        ):
            yield action


def test_the_tree_is_walked() -> None:
    """The walk reaches nested subcommands, so the laws below cover the whole CLI."""
    paths = {path for path, _ in ALL}
    assert {("score",), ("run",), ("manifest", "validate"), ("manifest", "init-sidecar")} <= (paths)
    assert {("plan", "freeze"), ("normalizers", "show"), ("decide",)} <= paths
    assert sum(1 for _, p in ALL for _ in _options(p)) > 100


@pytest.mark.parametrize("path,parser", ALL, ids=[" ".join(p) or "earmark" for p, _ in ALL])
def test_every_option_has_help_naming_its_default(
    path: tuple[str, ...], parser: argparse.ArgumentParser
) -> None:
    missing = []
    for action in _options(parser):
        flag = action.option_strings[-1]
        text = action.help or ""
        if not text.strip() or text == argparse.SUPPRESS:
            missing.append(f"{flag}: no help")
            continue
        default = action.default
        if default is None or default is False or default == []:
            continue
        expanded = parser._get_formatter()._expand_help(action)
        shown = str(default)
        if isinstance(default, float) and default.is_integer():
            shown_forms = {shown, str(int(default))}
        else:
            shown_forms = {shown, f"{default:,}" if isinstance(default, int) else shown}
        if not any(form in expanded for form in shown_forms) or "default" not in expanded:
            missing.append(f"{flag}: default {default!r} not stated in {expanded!r}")
    assert not missing, f"earmark {' '.join(path)}: " + "; ".join(missing)


@pytest.mark.parametrize("path,parser", ALL, ids=[" ".join(p) or "earmark" for p, _ in ALL])
def test_help_output_has_no_doubled_percent(
    path: tuple[str, ...], parser: argparse.ArgumentParser
) -> None:
    text = parser.format_help()
    assert "%%" not in text
    assert "%(" not in text


def test_decide_help_prints_single_percent_signs(capsys: pytest.CaptureFixture[str]) -> None:
    from earmark.cli import main

    with pytest.raises(SystemExit) as info:
        main(["decide", "--help"])
    assert info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ">= 20% relative error reduction" in out
    assert ">= 30% lower latency" in out
