"""Known-good / known-bad probes the scorer runs on itself before any result is written.

Seed 001 records such probes with every result; if one fails, the instrument is broken
and no number it produces may be published, so `write_results` refuses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from earmark.errors import EarmarkError
from earmark.metrics.alignment import count_errors
from earmark.metrics.counts import ErrorCounts
from earmark.metrics.tokens import chars, words
from earmark.text import get_normalizer

if TYPE_CHECKING:
    from earmark.metrics.punctuation import ProbeResult as PunctuationProbe
    from earmark.results.codec import JSONValue


@dataclass(frozen=True)
class ProbeResult:
    name: str
    passed: bool
    expected: str
    observed: str

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "name": self.name,
            "passed": self.passed,
            "expected": self.expected,
            "observed": self.observed,
        }


def _view_counts(normalizer: str, view: str, unit: str, ref: str, hyp: str) -> ErrorCounts:
    pair = get_normalizer(normalizer).normalize_pair(ref, hyp)[view]
    assert pair.reference is not None and pair.hypothesis is not None
    tok = words if unit == "word" else chars
    return count_errors(tok(pair.reference), tok(pair.hypothesis))


def _probe(name: str, expected: ErrorCounts, compute: Callable[[], ErrorCounts]) -> ProbeResult:
    try:
        observed = compute()
        text = repr(observed.as_dict())
        passed = observed == expected
    except Exception as exc:  # a probe that crashes is a failed probe, reported as such
        text = f"{type(exc).__name__}: {exc}"
        passed = False
    return ProbeResult(name, passed, repr(expected.as_dict()), text)


def run_scorer_probes() -> list[ProbeResult]:
    """The fixed probe set; each names what it checks."""
    en = "the cat sat on the mat"
    return [
        _probe(
            "identity scores zero (en-v1 words)",
            ErrorCounts(hits=6),
            lambda: _view_counts("en-v1", "normalized", "word", en, en),
        ),
        _probe(
            "a deleted word is one deletion (none words)",
            ErrorCounts(deletions=1, hits=5),
            lambda: _view_counts("none", "raw", "word", en, "the cat on the mat"),
        ),
        _probe(
            "an inserted word is one insertion (crude-v1 words)",
            ErrorCounts(insertions=1, hits=6),
            lambda: _view_counts("crude-v1", "normalized", "word", en, f"{en} now"),
        ),
        _probe(
            "a substituted character is one substitution (zh-eval-v1 normalized)",
            ErrorCounts(substitutions=1, hits=3),
            lambda: _view_counts("zh-eval-v1", "normalized", "char", "我爱北京", "我爱南京"),
        ),
        _probe(
            "punctuation-only difference vanishes in a normalised view (crude-v1)",
            ErrorCounts(hits=2),
            lambda: _view_counts("crude-v1", "normalized", "word", "Hello, world.", "hello world"),
        ),
        _probe(
            "punctuation-only difference stays in the raw view (none)",
            ErrorCounts(substitutions=2),
            lambda: _view_counts("none", "raw", "word", "Hello, world.", "hello world"),
        ),
        _probe(
            "ASCII vs full-width punctuation are equal in zh-eval-v1 punct",
            ErrorCounts(hits=5),
            lambda: _view_counts("zh-eval-v1", "punct", "char", "你好，世界", "你好,世界"),
        ),
        _probe(
            "punctuation counts in zh-eval-v1 raw",
            ErrorCounts(substitutions=1, hits=4),
            lambda: _view_counts("zh-eval-v1", "raw", "char", "你好，世界", "你好,世界"),
        ),
        _probe(
            "numerals are not converted (zh-eval-v1 normalized)",
            ErrorCounts(substitutions=4),
            lambda: _view_counts("zh-eval-v1", "normalized", "char", "2026", "二零二六"),
        ),
        _probe(
            "Irish fadas survive (ga-v1)",
            ErrorCounts(substitutions=1),
            lambda: _view_counts("ga-v1", "normalized", "word", "féar", "fear"),
        ),
        _probe(
            "Irish t-prefix forms agree (ga-v1)",
            ErrorCounts(hits=2),
            lambda: _view_counts("ga-v1", "normalized", "word", "an tAthair", "an t-athair"),
        ),
    ]


def failed(probes: list[ProbeResult]) -> list[ProbeResult]:
    return [p for p in probes if not p.passed]


def refuse_failed_punctuation_probes(probes: Sequence[PunctuationProbe], where: str) -> None:
    """Stop before any punctuation figure is written when a punctuation self-probe failed
    (seed 001's rule): an F1 of 1.000 from a broken mark mapping is no measurement."""
    bad = [p for p in probes if not p.passed]
    if not bad:
        return
    first = bad[0]
    raise EarmarkError(
        f"{where}: {len(bad)} of {len(probes)} punctuation self-probes failed "
        f"({', '.join(p.name for p in bad)}; {first.name}: expected {first.expected}, "
        f"observed {first.observed}), so no punctuation figure is written",
        field="punctuation",
        hint="the punctuation mark mapping (earmark.metrics.punctuation) is broken: "
        "reinstall earmark, or report the bug with this line",
    )
