"""Scoring lists of strings from Python: `earmark.wer`, `earmark.cer`, `earmark.score`.

The pairs go through the very path `earmark score` takes (`ScoringRow`s into
`score_rows`, the same normaliser policy, counting and bootstrap), so a list scored here
and the same list written to JSONL and scored by the CLI give identical figures (a test
holds both to it). Only the reading of a file is skipped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from earmark.errors import EarmarkError
from earmark.metrics.counts import ErrorCounts
from earmark.results import Estimate, JSONValue, MetricResult
from earmark.stats.settings import DEFAULT_SEED as DEFAULT_SEED
from earmark.stats.settings import BootstrapSettings

#: `earmark score`'s defaults (`earmark.scoring.protocols.resolve` without a protocol).
DEFAULT_BOOTSTRAP = 10_000
#: Per-view metric keys of results.json that are error rates over counted units.
_RATE_METRICS = ("wer", "cer", "mixed_er")
_METRIC_OF_UNIT = {"word": "wer", "char": "cer"}


@dataclass(frozen=True)
class CorpusScore:
    """What `earmark.score` returns: the corpus's rates in the normaliser's primary view.

    Rates are micro (summed errors over summed reference units), never a mean of
    per-utterance rates; `headline` names the metric results.json leads with (`cer` for
    normalisers that count characters first, such as zh-eval-v1). Each metric is the
    typed `earmark.results.MetricResult` that results.json holds for it.
    """

    normalizer: str
    view: str
    headline: str
    n_utterances: int
    bootstrap: int
    seed: int
    level: float
    metrics: Mapping[str, MetricResult]

    @property
    def wer(self) -> float | None:
        """Word error rate; None when the normaliser counts no words or N_ref is 0."""
        return self._value("wer")

    @property
    def cer(self) -> float | None:
        """Character error rate; None when the normaliser counts no characters or N_ref is 0."""
        return self._value("cer")

    @property
    def wip(self) -> float | None:
        """Word information preserved of the headline metric, (C / N_ref) * (C / N_hyp) as
        jiwer defines it; None unless asked for (`metrics=("wip",)`) or the rate is null."""
        return self.metrics[self.headline].wip

    @property
    def ci(self) -> tuple[float, float] | None:
        """The headline metric's percentile bootstrap interval at `level`."""
        return self.metrics[self.headline].ci

    @property
    def estimate(self) -> Estimate:
        """The headline metric's value and interval with the interval's level and method."""
        return self.metrics[self.headline].estimate(level=self.level)

    @property
    def counts(self) -> ErrorCounts:
        """The headline metric's summed substitutions, deletions, insertions and hits."""
        return self.metrics[self.headline].counts

    def _value(self, metric: str) -> float | None:
        estimate = self.metrics.get(metric)
        return None if estimate is None else estimate.value

    def to_dict(self) -> dict[str, JSONValue]:
        """Plain JSON-ready data; each metric in results.json's own shape (`ci95`)."""
        return {
            "normalizer": self.normalizer,
            "view": self.view,
            "headline": self.headline,
            "n_utterances": self.n_utterances,
            "bootstrap": {"resamples": self.bootstrap, "seed": self.seed, "level": self.level},
            "metrics": {name: m.to_dict() for name, m in self.metrics.items()},
        }


def score(
    references: str | Sequence[str],
    hypotheses: str | Sequence[str],
    *,
    normalizer: str = "none",
    language: str | None = None,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    metrics: Sequence[str] = (),
    ids: Sequence[str] | None = None,
    languages: Sequence[str | None] | None = None,
) -> CorpusScore:
    """Score hypotheses against references, pair by pair, as `earmark score` would.

    `references` and `hypotheses` are one string each or equally long lists of strings.
    `normalizer` is any `earmark score --normalizer` value (a name such as en-v1, `auto`,
    or `LANG=NAME,...`); `language` is every pair's language (it chooses the normaliser
    under `auto`), `languages` one per pair; `bootstrap` resamples (0: no intervals) with
    `seed`; `metrics` names optional figures (`"wip"`, as `earmark score --metrics wip`).
    Pair i is the utterance with id `str(i)`, counting from 1, as in a JSONL file scored
    by the CLI, or `ids[i - 1]`. Ids and languages are checked as a file's are (a
    repeated id, a non-string, a lone surrogate or a NUL names its index).
    `earmark.score_rows` takes the same rows and returns the whole typed results (every
    language's block, the folder with `out`).

    >>> s = score(["a b c", "hello world", "the cat"], ["a x c", "hello", "the cat sat"],
    ...           bootstrap=1000)
    >>> s.wer, s.ci
    (0.42857142857142855, (0.3333333333333333, 0.5))
    >>> s.counts
    ErrorCounts(substitutions=1, deletions=1, insertions=1, hits=5)
    >>> round(s.cer, 4)
    0.4783
    >>> s.estimate.high, s.estimate.level, s.estimate.method
    (0.5, 0.95, 'percentile')
    >>> score("the cat sat", "the cat sat on", bootstrap=0, metrics=["wip"]).wip  # (3/3)*(3/4)
    0.75
    """
    from earmark.formats.memory import MemoryRows
    from earmark.scoring.options import ScoringOptions
    from earmark.scoring.policy import NormalizerPolicy
    from earmark.scoring.scorer import score_rows

    refs, hyps = _pairs(references, hypotheses)
    if language is not None and languages is not None:
        raise EarmarkError(
            "give language (every pair's) or languages (one per pair), not both",
            field="languages",
        )
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 0:
        raise EarmarkError(
            f"bootstrap must be a whole number of resamples, 0 or more, not {bootstrap!r}",
            field="bootstrap",
            hint="0 skips the confidence intervals",
        )
    given = MemoryRows(
        references=refs,
        hypotheses=hyps,
        ids=ids,
        languages=language or None if languages is None else languages,
    )
    rows = given.scoring_rows()
    settings = BootstrapSettings(resamples=bootstrap, seed=seed)
    options = ScoringOptions(
        policy=NormalizerPolicy.parse(normalizer),
        bootstrap=settings,
        extra_metrics=(metrics,) if isinstance(metrics, str) else tuple(metrics),
    )
    arm = score_rows(rows, options).arm
    block = arm.overall
    if block is None:
        raise EarmarkError(
            f"no single corpus figure: {arm.overall_null_reason or 'languages differ'}",
            field="languages",
            hint="earmark.score_rows gives each language's figures, or name one normaliser",
        )
    view = block.primary_view
    figures = block.views[view].metrics
    rates = {name: figures[name] for name in _RATE_METRICS if name in figures}
    return CorpusScore(
        normalizer=block.normalizer.name,
        view=view,
        headline=_METRIC_OF_UNIT[block.normalizer.headline_unit or block.normalizer.units[0]],
        n_utterances=block.n_utterances,
        bootstrap=settings.resamples,
        seed=settings.seed,
        level=settings.level,
        metrics=MappingProxyType(rates),
    )


def wer(
    references: str | Sequence[str],
    hypotheses: str | Sequence[str],
    normalizer: str = "none",
    *,
    language: str | None = None,
) -> float:
    """Word error rate of the pairs: summed word errors over summed reference words.

    >>> wer(["a b c", "hello world"], ["a x c", "hello"])
    0.4
    >>> wer("the cat sat", "the cat sat on")
    0.3333333333333333
    """
    return _rate(
        score(references, hypotheses, normalizer=normalizer, language=language, bootstrap=0), "wer"
    )


def cer(
    references: str | Sequence[str],
    hypotheses: str | Sequence[str],
    normalizer: str = "none",
    *,
    language: str | None = None,
) -> float:
    """Character error rate of the pairs (a space between words counts as one character).

    >>> cer("kitten", "sitting")
    0.5
    >>> cer(["我爱北京"], ["我爱南京"], normalizer="zh-eval-v1")
    0.25
    """
    return _rate(
        score(references, hypotheses, normalizer=normalizer, language=language, bootstrap=0), "cer"
    )


def _rate(result: CorpusScore, metric: str) -> float:
    """The metric's value, or an error saying why there is none (a float is promised)."""
    estimate = result.metrics.get(metric)
    if estimate is None:
        other = next(iter(result.metrics))
        raise EarmarkError(
            f"normaliser {result.normalizer} does not count the units of {metric}",
            field="normalizer",
            hint=f"use earmark.{other}, or a normaliser that counts them",
        )
    if estimate.value is None:
        raise EarmarkError(
            f"{metric} is undefined: the references hold no unit to count",
            field="references",
            hint="give at least one non-empty reference",
        )
    return estimate.value


def _pairs(
    references: str | Sequence[str], hypotheses: str | Sequence[str]
) -> tuple[list[str], list[str]]:
    """Both sides as equally long, non-empty lists of strings (a string is one pair)."""
    refs = _texts(references, "references")
    hyps = _texts(hypotheses, "hypotheses")
    if len(refs) != len(hyps):
        raise EarmarkError(
            f"{len(refs)} reference(s) but {len(hyps)} hypothesis(es)",
            field="hypotheses",
            hint="give one hypothesis per reference, in the same order",
        )
    if not refs:
        raise EarmarkError(
            "no pairs to score", field="references", hint="give at least one reference"
        )
    return refs, hyps


def _texts(value: str | Sequence[str], name: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (bytes, bytearray)) or not isinstance(value, Sequence):
        raise EarmarkError(
            f"{name} must be a string or a list of strings, not {type(value).__name__}",
            field=name,
        )
    texts = list(value)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise EarmarkError(
                f"{name}[{i}] is a {type(text).__name__}, not a string",
                field=f"{name}[{i}]",
                hint="decode bytes and replace None with '' (an empty hypothesis counts "
                "every reference unit as deleted)",
            )
    return texts
