"""Errors a user can fix, carrying where the problem is.

The CLI turns an EarmarkError into one line and exit code 2; an OS error into one line
naming the path and exit 1; anything else (a bug) into one line naming a file in the temp
folder that holds the full traceback, exit 1.
"""

from __future__ import annotations


class EarmarkError(Exception):
    """A problem with the user's input or setup, with its location and a hint."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        self.hint = hint

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = str(self.file)
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        field = f"field '{self.field}': " if self.field else ""
        hint = f" (hint: {self.hint})" if self.hint else ""
        return f"{where}{field}{self.message}{hint}"


class MissingExtraError(EarmarkError):
    """An optional backend or feature needs a pip extra that is not installed."""

    def __init__(self, feature: str, extra: str, module: str) -> None:
        super().__init__(
            f"{feature} needs the optional package '{module}', which is not installed",
            hint=f"pip install 'earmark[{extra}]'",
        )
        self.extra = extra


def json_type_name(value: object) -> str:
    """How an error names what a JSON value turned out to be ("a string", "null", ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
