"""sclite's reference markup, `{ a / b }` alternations and `(uh)` optional words, as slots.

The grammar is shared by trn references (`formats.trn`) and GLM rules files
(`scoring.glm`): `{ a / b / @ }` names alternate spellings (`@`, the empty one, makes the
word skippable) and `(word)` a word the hypothesis may leave out. Both become
`metrics.slot_alignment.Slot`s, so they score the same way as `sctk sclite -D`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TypedDict

from earmark.errors import EarmarkError
from earmark.metrics.slot_alignment import Slot

#: The empty alternative: `{ um / @ }` may be nothing at all.
EMPTY = "@"
#: One `{ ... }` alternation (no nesting).
GROUP = re.compile(r"\{([^{}]*)\}")


class Where(TypedDict):
    """Where markup was read, as an `EarmarkError` names it (a file's line and field)."""

    file: str | None
    line: int | None
    field: str


def single_word(term: str, where: Where, what: str) -> str:
    """`term` when it is one word; a multi-word term is refused at `where`."""
    words = term.split()
    if len(words) != 1:
        raise EarmarkError(
            f"{what} {term.strip()!r} is not one word",
            **where,
            hint="this GLM subset maps single words; split the rule or drop it",
        )
    return words[0]


def alternatives(body: str, where: Where) -> tuple[tuple[str, ...], bool]:
    """`a / b / @` -> (("a", "b"), optional=True)."""
    words: list[str] = []
    optional = False
    for part in body.split("/"):
        if part.strip() in ("", EMPTY):
            optional = True
            continue
        words.append(single_word(part, where, "alternative"))
    if not words:
        raise EarmarkError(
            "an alternation with no words",
            **where,
            hint="e.g. { ok / okay }",
        )
    return tuple(words), optional


def optional_word(token: str) -> str | None:
    """`uh` for the token `(uh)`; None for any other token."""
    if len(token) > 2 and token.startswith("(") and token.endswith(")"):
        return token[1:-1]
    return None


def has_markup(words: list[str] | tuple[str, ...]) -> bool:
    """Whether trn words carry sclite markup (`{`, `}` or a `(word)`)."""
    return any("{" in w or "}" in w or optional_word(w) is not None for w in words)


def markup_slots(text: str, *, source: str | None = None, line: int | None = None) -> list[Slot]:
    """sclite reference markup -> slots: `{ a / b }` alternates (`{ uh / @ }` skippable),
    `(uh)` optional words, every other word a slot of its own."""
    where = Where(file=source, line=line, field="text")
    slots: list[Slot] = []
    at = 0
    for match in [*GROUP.finditer(text), None]:
        end = match.start() if match else len(text)
        for token in text[at:end].split():
            if "{" in token or "}" in token:
                raise EarmarkError(
                    "unbalanced `{ }` in sclite markup", **where, hint="write `{ a / b }`"
                )
            word = optional_word(token)
            slots.append(Slot((word,), optional=True) if word else Slot.word(token))
        if match is None:
            break
        words, opt = alternatives(match.group(1), where)
        slots.append(Slot(words, skippable=opt))
        at = match.end()
    return slots


def plain_text(slots: list[Slot]) -> str:
    """A markup reference's plain text, the row's `reference` (the markup itself is
    scored by `scoring.word_counter`): each slot's first spelling, optional words
    without their parentheses."""
    return " ".join(s.accepts[0] for s in slots)


def refuse_markup(words: list[str], path: Path, line: int) -> tuple[str, ...]:
    """`words` as they are, unless they hold an alternation: markup is read in trn
    references only, never scored as words."""
    for w in words:
        if w in ("{", "}", "/") or w.startswith("{") or w.endswith("}"):
            raise EarmarkError(
                "sclite alternation markup `{ a / b }` is not read as words",
                file=str(path),
                line=line,
                field="text",
                hint="markup is read in trn references only; use a --glm rules file elsewhere",
            )
    return tuple(words)
