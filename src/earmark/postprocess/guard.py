"""The lexical guard: a formatter may change punctuation and spacing, never the words.

Seed 001 delivers a formatter's output only when it keeps the transcript's lexical
content; otherwise the source text is delivered unchanged. Here "lexical content" is
`earmark.metrics.punctuation.content_characters`: the text without punctuation marks
(Unicode ``P*``) and whitespace, NFKC-normalised and lower-cased. So adding ``，``,
changing ``,`` to ``，`` or ``、`` to ``·`` (both are marks) passes; changing ``普`` to
``谱``, dropping a character, or adding a word fails with reason `content_changed`.

Two options make the guard stricter or looser, and both are recorded:

- `content_marks`: marks the guard treats as content, i.e. as if they were words (to
  reproduce a stricter shipped validator: seed 001's guard rejected ``、`` → ``·``).
- `substitutions`: pairs ``a=b`` the guard treats as the same text on both sides (``b`` is
  rewritten to ``a`` in source and candidate before comparing), e.g. ``、=·``.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from earmark.errors import EarmarkError
from earmark.metrics.punctuation import content_characters, is_mark
from earmark.results.codec import JSONValue

CONTENT_CHANGED = "content_changed"

#: Private-use code points that stand in for marks treated as content (category Co:
#: neither a mark nor a space, unchanged by NFKC and lower-casing).
_PLACEHOLDER_BASE = 0xF0000


def parse_substitution(text: str) -> tuple[str, str]:
    """`'、=·'` → ('、', '·'). Both sides must be non-empty and different."""
    left, sep, right = text.partition("=")
    if not sep or not left or not right or left == right:
        raise EarmarkError(
            f"allowed substitution {text!r} is not A=B with two different non-empty sides",
            field="allow_substitution",
            hint="e.g. --allow-substitution '、=·'",
        )
    return left, right


@dataclass(frozen=True)
class GuardVerdict:
    """Whether a candidate passed, and where its content first differs when it did not."""

    accepted: bool
    reason: str | None = None
    detail: dict[str, JSONValue] = field(default_factory=dict)


@dataclass(frozen=True)
class LexicalGuard:
    """Accept a candidate only when its content equals the source's (see module docs)."""

    substitutions: tuple[tuple[str, str], ...] = ()
    content_marks: str = ""

    def __post_init__(self) -> None:
        for left, right in self.substitutions:
            if not left or not right or left == right:
                raise EarmarkError(
                    f"bad allowed substitution {left!r}={right!r}", field="allow_substitution"
                )
        for char in self.content_marks:
            if not is_mark(char):
                raise EarmarkError(
                    f"{char!r} is not a punctuation mark; only marks can be kept as content",
                    field="guard_marks",
                )

    @classmethod
    def from_options(
        cls, substitutions: Iterable[str] = (), content_marks: str = ""
    ) -> LexicalGuard:
        return cls(
            tuple(parse_substitution(s) for s in substitutions),
            "".join(sorted(set(content_marks))),
        )

    @property
    def changes_content(self) -> bool:
        """True when a substitution touches content characters, so the delivered CER may
        differ from the raw CER even for accepted outputs."""
        return any(content_characters(a) != content_characters(b) for a, b in self.substitutions)

    def content(self, text: str) -> str:
        """What the guard compares: substitutions applied, then `content_characters`
        with `content_marks` kept (shown as themselves)."""
        for left, right in self.substitutions:
            text = text.replace(right, left)
        if not self.content_marks:
            return content_characters(text)
        to_placeholder = {
            ord(c): chr(_PLACEHOLDER_BASE + i) for i, c in enumerate(self.content_marks)
        }
        back = {ord(chr(_PLACEHOLDER_BASE + i)): c for i, c in enumerate(self.content_marks)}
        return content_characters(text.translate(to_placeholder)).translate(back)

    def check(self, source: str, candidate: str) -> GuardVerdict:
        want, got = self.content(source), self.content(candidate)
        if want == got:
            return GuardVerdict(True)
        return GuardVerdict(False, CONTENT_CHANGED, _first_difference(want, got))

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "rule": "content_characters(candidate) == content_characters(source)",
            "content": "text without punctuation (Unicode P*) and whitespace, NFKC, lower-cased",
            "substitutions": [f"{a}={b}" for a, b in self.substitutions],
            "content_marks": self.content_marks,
            "substitutions_change_content": self.changes_content,
            "on_reject": "the source text is delivered unchanged",
        }


def _first_difference(want: str, got: str, context: int = 8) -> dict[str, JSONValue]:
    index = next(
        (i for i, (a, b) in enumerate(zip(want, got, strict=False)) if a != b),
        min(len(want), len(got)),
    )
    start = max(0, index - context)
    return {
        "first_difference": index,
        "source_content_length": len(want),
        "candidate_content_length": len(got),
        "source_excerpt": want[start : index + context],
        "candidate_excerpt": got[start : index + context],
    }
