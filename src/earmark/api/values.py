"""The checks a value passes whether it came from a flag or a keyword, defined once.

`earmark.cli.arguments` turns a problem into argparse's one-line refusal (exit 2); the
verbs of `earmark.api` turn it into an `EarmarkError` naming the flag. Each function
returns what is wrong, or None.
"""

from __future__ import annotations

import os

from earmark.errors import EarmarkError

#: A path argument: a string or anything `os.fspath` takes.
PathArg = str | os.PathLike[str]


def below(value: float, floor: float, *, strict: bool = False) -> str | None:
    """Why `value` is under `floor` (or at it, when `strict`), or None; the caller adds
    the value as it was given."""
    if strict and value <= floor:
        return f"must be above {floor:g}"
    if not strict and value < floor:
        return f"must be {floor:g} or more"
    return None


def outside_share(value: float) -> str | None:
    """Why `value` is not a share within [0, 1], or None."""
    return None if 0.0 <= value <= 1.0 else "must be within [0, 1]"


def path_problem(text: str) -> str | None:
    """Why `text` cannot name a file or folder to write, or None: never empty, never `-`.

    Many tools read `-` as standard output; earmark writes several files per command, so it
    would create a folder literally named `-` instead. Refuse it rather than surprise.
    """
    if not text.strip():
        return "must name a path, got an empty string"
    if text.strip() == "-":
        return "'-' (standard output) is not supported: name a folder or file"
    if "\x00" in text:
        return "the path contains a NUL character"
    return None


def check_out(out: PathArg | None, flag: str = "out") -> None:
    """Refuse an output path the CLI's `--out` would refuse."""
    if out is not None and (problem := path_problem(os.fspath(out))) is not None:
        raise EarmarkError(f"--{flag}: {problem}", field=flag)


def check_count(name: str, value: int | None, floor: int) -> None:
    """Refuse a count the CLI's flag would refuse (a bool or a fraction is not one)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise EarmarkError(
            f"--{name.replace('_', '-')}: expected a whole number, got {value!r}", field=name
        )
    if (problem := below(value, floor)) is not None:
        raise EarmarkError(f"--{name.replace('_', '-')}: {problem}, got {value}", field=name)


def check_share(name: str, value: float | None) -> None:
    """Refuse a share outside [0, 1], as `--min-coverage` would."""
    if value is not None and (problem := outside_share(value)) is not None:
        raise EarmarkError(f"--{name.replace('_', '-')}: {problem}, got {value}", field=name)


def check_choice(name: str, value: str | None, choices: tuple[str, ...]) -> None:
    """Refuse a value outside the flag's choices, naming them."""
    if value is not None and value not in choices:
        raise EarmarkError(
            f"--{name.replace('_', '-')}: invalid choice {value!r}",
            field=name,
            hint="choose from " + ", ".join(choices),
        )
