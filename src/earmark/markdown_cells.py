"""Markdown that renders to exactly the text it was given: every `.md` earmark writes goes
through these (`md_text`, `md_code`, `md_fence`, `md_table`); a rate's spelling is
`earmark.results.display.fmt_rate`.

Ids, transcripts, arm and corpus names come from files anyone can write, and a renderer that
allows HTML (markdown-it, many wikis) would run them as markup. Pure and low in the layers,
so scoring, compare and post-processing reports can use it without importing `report`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence

#: Every line break a Markdown renderer (or `str.splitlines`) might honour; inside one
#: cell, list item or heading a break would end the block and start a new one.
_LINE_BREAK = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
#: Escaped wherever they stand: HTML's three specials become entities (a backslash is not
#: enough for older renderers), Markdown's code, emphasis, strike and cell syntax get `\`.
_ALWAYS = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    "\\": "\\\\",
    "`": "\\`",
    "*": "\\*",
    "~": "\\~",
    "|": "\\|",
}
#: Block syntax that only counts at the start of a line: an ATX heading, a bullet, an
#: ordered-list number, a thematic break of dashes. Two dashes are escaped too: after a
#: list item's `- ` they make three (`- --` is a thematic break, not an item).
_BLOCK_START = re.compile(
    r"^()(?:(#)(?=#{0,5}(?:\s|$))|([-+])(?=\s|$)|(\d{1,9})([.)])(?=\s|$)|(-)(?=(?:\s*-){1,}\s*$))"
)
#: A heading's optional closing sequence: ` ##` at the end would be eaten.
_CLOSING_HASHES = re.compile(r"(\s)(#+\s*)$")
#: Every character `md_text` may rewrite wherever it stands (`_`, `#`, `-`, `+` by
#: context; `]` only before `(`, `[` or `:`): a text without any, not starting with a
#: numbered-list marker and not padded with whitespace, is its own Markdown.
_SPECIAL = frozenset([*_ALWAYS, "_", "#", "-", "+", *"\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"])
_DIGITS = "0123456789"


def md_text(value: object) -> str:
    """`value` as Markdown that renders to exactly its text (line breaks become spaces, the
    ends are trimmed: leading spaces would start a code block, and `** x**` is no bold).

    Safe in a table cell, a list item, a heading or running text. `[` stays readable
    (`[9.1, 17.5]`): a `]` that could close a link (`](`, `][`, `]:`) is escaped instead,
    so no link, image or reference definition can form. `_` between two letters or digits
    stays (it cannot start emphasis there), so ids like `utt_001` read as written.
    """
    text = value if type(value) is str else str(value)
    if _is_plain(text):
        return text  # a number, a rate, an id: 10,000 speaker rows of them
    return _escaped(text)


def _is_plain(text: str) -> bool:
    """Whether `_escaped(text)` is `text`, decided without a regex: no special character,
    no `]` that could close a link, no whitespace at either end, no `1.` / `1)` list
    marker at the start (`\\d` is any decimal digit: a text opening with a non-ASCII one
    is left to the regex)."""
    if not text:
        return True
    if text[0].isspace() or text[-1].isspace() or not _SPECIAL.isdisjoint(text):
        return False
    if "]" in text and ("](" in text or "][" in text or "]:" in text):
        return False
    if not text[0].isdecimal():
        return True
    rest = text.lstrip(_DIGITS)
    if text[0] not in _DIGITS or (rest and rest[0].isdecimal()):
        return False
    marker = rest[:1] in (".", ")") and (len(rest) == 1 or rest[1].isspace())
    return not marker or len(text) - len(rest) > 9


def _escaped(text: str) -> str:
    text = _LINE_BREAK.sub(" ", text).strip()
    out: list[str] = []
    last = len(text) - 1
    for i, ch in enumerate(text):
        if ch in _ALWAYS:
            out.append(_ALWAYS[ch])
        elif ch == "_":
            intraword = 0 < i < last and text[i - 1].isalnum() and text[i + 1].isalnum()
            out.append("_" if intraword else "\\_")
        elif ch == "]" and text[i + 1 : i + 2] in ("(", "[", ":"):
            out.append("\\]")
        else:
            out.append(ch)
    escaped = "".join(out)
    escaped = _BLOCK_START.sub(_escape_block_start, escaped, count=1)
    return _CLOSING_HASHES.sub(r"\1\\\2", escaped, count=1)


def _escape_block_start(match: re.Match[str]) -> str:
    lead, hashes, bullet, number, delimiter, dash = match.groups()
    if number is not None:
        return f"{lead}{number}\\{delimiter}"
    return f"{lead}\\{hashes or bullet or dash}"


def md_code(value: object) -> str:
    """`value` as a code span shown verbatim (a longer backtick fence than any run inside).

    Not for table cells: GFM splits a cell at `|` even inside a code span."""
    text = _LINE_BREAK.sub(" ", str(value))
    if not text:
        return "` `"
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    # The renderer drops one space from each end when both ends are spaces (not all of it).
    pad = " " if text.strip(" ") and (text[0] in " `" or text[-1] in " `") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_fence(text: str) -> list[str]:
    """A fenced code block holding `text` verbatim, fenced longer than any backtick run in it."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    fence = "`" * max(3, max(map(len, re.findall("`+", text)), default=0) + 1)
    return [fence, *lines, fence]


def md_table(
    header: Sequence[object],
    rows: Sequence[Sequence[object]],
    *,
    right: Collection[int] = (),
    cell: Callable[[object], str] = md_text,
) -> str:
    """A GFM table; every header and body cell is plain text, escaped with `md_text`.

    Columns whose index is in `right` are right-aligned (`---:`), as counts read best.
    `cell` writes the body cells instead, for a caller that remembers their spellings
    (10,000 speaker rows repeat a few hundred rates)."""
    rule = "".join("---:|" if k in right else "---|" for k in range(len(header)))
    lines = ["| " + " | ".join(md_text(h) for h in header) + " |", "|" + rule]
    lines += ["| " + " | ".join(map(cell, row)) + " |" for row in rows]
    return "\n".join(lines)
