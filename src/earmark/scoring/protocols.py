"""Published protocols by name: one word for a paper's normaliser, aggregation and CIs.

`--protocol blasbench-v1` on `earmark score`, `run` and `compare` selects everything that
changes a published number (normaliser, micro or macro aggregation, bootstrap generator,
resample count, seed, quantile rule, extra sections), so a figure can be reproduced
exactly instead of approximated, and results name the protocol they followed
(`"protocol": {"name": ..., "settings": {...}}`).

Override rule: a flag given together with `--protocol` must agree with it. A flag that
contradicts the protocol (`--protocol blasbench-v1 --bootstrap 10000`) is refused (exit
2): a result cannot both follow a publication and not. Flags the protocol leaves open
(`--punctuation` where the protocol does not add it, output options) combine freely. To
change one setting, drop `--protocol` and give every flag explicitly.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue
from earmark.stats.protocol_bootstrap import GENERATOR as PYTHON_RANDOM
from earmark.stats.protocol_bootstrap import QUANTILE_RULE as PYTHON_RANDOM_QUANTILES
from earmark.stats.settings import DEFAULT_GENERATOR, UNNAMED_GENERATOR
from earmark.stats.settings import DEFAULT_SEED as DEFAULT_SEED

Aggregate = Literal["micro", "macro"]
Generator = Literal["numpy-pcg64", "python-random"]

#: earmark's own bootstrap (`earmark.stats.bootstrap`).
NUMPY_PCG64: Generator = "numpy-pcg64"
NUMPY_QUANTILES = "numpy.quantile (linear) of the kept replicates at (1-level)/2, (1+level)/2"
QUANTILE_RULES: dict[str, str] = {
    NUMPY_PCG64: NUMPY_QUANTILES,
    PYTHON_RANDOM: PYTHON_RANDOM_QUANTILES,
}

#: The defaults without a protocol (the CLI's documented defaults).
DEFAULT_AGGREGATE: Aggregate = "micro"
DEFAULT_RESAMPLES = 10_000


@dataclass(frozen=True)
class Protocol:
    """A published protocol's scoring settings, frozen under its name."""

    name: str
    #: Where it is published and what it reproduces, in words.
    source: str
    #: A normaliser policy (`earmark.scoring.policy.NormalizerPolicy` syntax).
    normalizer: str
    aggregate: Aggregate
    resamples: int
    seed: int
    generator: Generator
    level: float = 0.95
    #: Add the punctuation F1 section (seed 001).
    punctuation: bool = False
    #: Which characters are punctuation marks (`earmark.metrics.punctuation.MARK_RULES`).
    punctuation_marks: str = "word-internal"
    #: What the protocol does *not* reproduce, or chose where the publication was silent.
    notes: tuple[str, ...] = ()
    #: The base languages (`earmark.language_tags.base_language`) its normaliser is for;
    #: rows of any other language are refused (`check_languages`). Empty: every language.
    languages: tuple[str, ...] = ()

    def check_languages(self, tags: Iterable[str | None]) -> None:
        """Refuse rows outside the protocol's languages: BlasBench's Irish rule applied to
        Mandarin and English gives numbers no publication has, without a word."""
        if not self.languages:
            return
        from earmark.language_tags import base_language

        outside = sorted(
            {tag or "(none)" for tag in tags if base_language(tag) not in self.languages}
        )
        if not outside:
            return
        shown = ", ".join(repr(tag[:20]) for tag in outside[:5])
        more = f" and {len(outside) - 5} more" if len(outside) > 5 else ""
        raise EarmarkError(
            f"--protocol {self.name} is for language {', '.join(self.languages)} only; "
            f"rows are in {shown}{more}",
            field="language",
            hint=f"score only the {', '.join(self.languages)} rows with --protocol "
            f"{self.name}, and the others without it (e.g. --normalizer auto)",
        )

    @property
    def quantile_rule(self) -> str:
        return QUANTILE_RULES[self.generator]

    def settings(self) -> dict[str, JSONValue]:
        return {
            "normalizer": self.normalizer,
            "aggregate": self.aggregate,
            "bootstrap": {
                "resamples": self.resamples,
                "seed": self.seed,
                "level": self.level,
                "generator": self.generator,
                "quantile_rule": self.quantile_rule,
            },
            "punctuation": self.punctuation,
            # Only a protocol that scores punctuation fixes its mark rule.
            **({"punctuation_marks": self.punctuation_marks} if self.punctuation else {}),
        }

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "name": self.name,
            "source": self.source,
            "settings": self.settings(),
            "notes": list(self.notes),
        }


PROTOCOLS: dict[str, Protocol] = {
    p.name: p
    for p in (
        Protocol(
            name="blasbench-v1",
            source="BlasBench, Irish ASR benchmark (seed 003, arXiv 2604.10736, §2.3-2.4): "
            "Irish normaliser, corpus-level WER/CER, 1,000-resample bootstrap with seed 42",
            normalizer="blasbench-ga-v1",
            aggregate="micro",
            resamples=1000,
            seed=42,
            generator="python-random",
            languages=("ga",),
            notes=(
                "rows must be Irish (ga): BlasBench's Irish rule is not applied to another "
                "language",
                "each interval re-seeds random.Random(42); a unit is an utterance (with "
                "repeats, a clip: its rows resampled together)",
            ),
        ),
        Protocol(
            name="parakeet-weight-types-v1",
            source="Parakeet TDT multilingual weight-type harness (seed 002): crude "
            "NFKC/lower-case/punctuation-stripped WER, per-utterance rates averaged",
            normalizer="crude-v1",
            aggregate="macro",
            resamples=0,
            seed=DEFAULT_SEED,
            generator=NUMPY_PCG64,
            notes=(
                "macro: the mean of per-utterance rates, as the harness publishes; not corpus WER",
                "the harness publishes no intervals, so none are computed (resamples 0)",
                "crude-v1 is comparison-only: compare weight types with it, do not publish "
                "its absolute WER",
            ),
        ),
        Protocol(
            name="mmv-punct-v024",
            source="mmv-voice punctuation measurement (seed 001): CER after NFKC, "
            "lower-case, punctuation and whitespace removal; punctuation position and "
            "position+type F1; 10,000-resample clip bootstrap, seed 20260926",
            normalizer="mmv-cer-v1",
            aggregate="micro",
            resamples=10_000,
            seed=20260926,
            generator=NUMPY_PCG64,
            punctuation=True,
            # The study's scorer removes "Unicode punctuation": every P* character is a
            # mark, so don't/dont differ by a mark there; the protocol keeps that rule.
            punctuation_marks="every-mark",
            notes=(
                "punctuation marks are every Unicode P* character, apostrophes in words "
                "(don't) and decimal points (3.5) included, as the study's scorer counts "
                "them; earmark's default rule (word-internal) does not count those",
                "the study does not name its random generator: intervals follow its "
                "procedure (percentile, 10,000 clip resamples, repeats clustered, seed "
                "20260926) with earmark's numpy PCG64 draws, so they can differ from the "
                "study's in the last digits",
                "the seed describes mmv-voice v0.2.2; the protocol name is the one issue 11 "
                "gave it",
            ),
        ),
    )
}


def available_protocols() -> list[str]:
    return sorted(PROTOCOLS)


def get_protocol(name: str) -> Protocol:
    """The protocol named `name`; an unknown name lists the known ones."""
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise EarmarkError(
            f"unknown protocol {name!r}; known protocols: {', '.join(available_protocols())}",
            field="protocol",
            hint="see docs/protocols.md",
        ) from None


@dataclass(frozen=True)
class ScoringChoice:
    """The settings a command scores with, after `--protocol` and the flags are merged."""

    normalizer: str
    aggregate: Aggregate
    resamples: int
    seed: int
    punctuation: bool
    protocol: Protocol | None = None
    #: The punctuation mark rule (`earmark.metrics.punctuation.MARK_RULES`).
    punctuation_marks: str = "word-internal"

    @property
    def generator(self) -> str:
        """The bootstrap generator of every interval (`BootstrapSettings.generator`): a
        protocol's figures stay as published, drawn with `numpy-pcg64` wherever its own
        generator does not draw them; without one, the default."""
        return DEFAULT_GENERATOR if self.protocol is None else UNNAMED_GENERATOR


def resolve(
    protocol: str | None,
    *,
    normalizer: str | None = None,
    aggregate: str | None = None,
    resamples: int | None = None,
    seed: int | None = None,
    punctuation: bool = False,
    default_normalizer: str | None = None,
    flags: dict[str, str] | None = None,
    punctuation_marks: str | None = None,
) -> ScoringChoice:
    """Merge a protocol with explicitly given settings (None: not given), or apply the
    defaults without one. A given setting that contradicts the protocol is an error
    naming the flag (`flags` maps setting -> flag, e.g. resamples -> --bootstrap)."""
    names = {
        "normalizer": "--normalizer",
        "aggregate": "--aggregate",
        "resamples": "--bootstrap",
        "seed": "--seed",
        "punctuation_marks": "--punctuation-marks",
        **(flags or {}),
    }
    if punctuation_marks is not None:
        from earmark.metrics.punctuation import check_mark_rule

        check_mark_rule(punctuation_marks)
    if protocol is None:
        chosen = normalizer if normalizer is not None else default_normalizer
        if chosen is None:
            raise EarmarkError(
                f"give {names['normalizer']} NAME or --protocol NAME",
                field="normalizer",
                hint="`earmark normalizers` lists normalisers; docs/protocols.md the protocols",
            )
        return ScoringChoice(
            normalizer=chosen,
            aggregate=_aggregate(aggregate if aggregate is not None else DEFAULT_AGGREGATE),
            resamples=DEFAULT_RESAMPLES if resamples is None else resamples,
            seed=DEFAULT_SEED if seed is None else seed,
            punctuation=punctuation,
            punctuation_marks=punctuation_marks or "word-internal",
        )
    p = get_protocol(protocol)
    given: dict[str, object] = {
        "normalizer": normalizer,
        "aggregate": aggregate,
        "resamples": resamples,
        "seed": seed,
        # A protocol without punctuation leaves the mark rule open.
        "punctuation_marks": punctuation_marks if p.punctuation else None,
    }
    for setting, value in given.items():
        fixed = getattr(p, setting)
        if value is not None and value != fixed:
            raise EarmarkError(
                f"{names[setting]} {value} contradicts --protocol {p.name}, which fixes "
                f"{setting} = {fixed}",
                field=names[setting].lstrip("-"),
                hint=f"drop {names[setting]}, or drop --protocol and give every setting explicitly",
            )
    return ScoringChoice(
        normalizer=p.normalizer,
        aggregate=p.aggregate,
        resamples=p.resamples,
        seed=p.seed,
        punctuation=punctuation or p.punctuation,
        protocol=p,
        punctuation_marks=p.punctuation_marks
        if p.punctuation
        else punctuation_marks or "word-internal",
    )


def _aggregate(value: str) -> Aggregate:
    if value == "micro":
        return "micro"
    if value == "macro":
        return "macro"
    raise EarmarkError(f"aggregate must be micro or macro, not {value!r}", field="aggregate")
