"""One utterance as every reader hands it to the scorer: reference, hypothesis (or why
there is none), and what a reading of files gives besides its rows."""

from __future__ import annotations

from dataclasses import dataclass, field

from earmark.results.codec import JSONValue

#: Status of a row whose hypothesis is present and scored as is.
OK = "ok"
#: The hypothesis is missing: scored as all deletions and listed, never dropped.
MISSING_HYPOTHESIS = "missing_hypothesis"


class ClusterKeyed:
    """A row whose bootstrap cluster is its `cluster`, or its own id when it has none:
    repeats of a clip share a cluster and are resampled together."""

    id: str
    cluster: str | None

    @property
    def cluster_key(self) -> str:
        return self.cluster if self.cluster is not None else self.id


@dataclass(frozen=True)
class ScoringRow(ClusterKeyed):
    """A reference/hypothesis pair. `hypothesis=None` means missing (all deletions).

    `status` carries the reason code when the system produced no usable output
    (`missing_hypothesis`, `engine_exception:...`, `unreadable`, ...); such rows are
    scored with an empty hypothesis so N_ref never shrinks. `cluster` groups rows for the
    bootstrap (repeats of one clip stay together); it defaults to the id.
    """

    id: str
    reference: str
    hypothesis: str | None
    language: str | None = None
    slices: tuple[str, ...] = ()
    status: str = OK
    cluster: str | None = None
    duration: float | None = None
    #: What a format knows beyond the texts (an stm segment's speaker, file and times).
    extra: dict[str, JSONValue] = field(default_factory=dict)

    @property
    def hypothesis_text(self) -> str:
        return self.hypothesis if self.hypothesis is not None else ""

    @classmethod
    def plain(
        cls,
        id: str,
        reference: str,
        hypothesis: str | None,
        status: str,
        extra: dict[str, JSONValue] | None = None,
    ) -> ScoringRow:
        """The row `ScoringRow(id, reference, hypothesis, status=status, extra=extra)` with
        every other field at its default: the common row of a JSONL file (or a trn pair's,
        with its speaker in `extra`), built with one instance-dict assignment instead of
        the frozen `__init__`'s nine `setattr` calls (~0.08 s per 100,000 rows). Equal to
        the row `__init__` builds (a test pins it)."""
        row = _new_object(cls)
        _set_attribute(
            row,
            "__dict__",
            {
                "id": id,
                "reference": reference,
                "hypothesis": hypothesis,
                "language": None,
                "slices": (),
                "status": status,
                "cluster": None,
                "duration": None,
                "extra": {} if extra is None else extra,
            },
        )
        return row


_new_object = object.__new__
_set_attribute = object.__setattr__


@dataclass
class ReadResult:
    """The rows read from a pair of files, what was left out (with reasons) and which
    files were read as which format."""

    rows: list[ScoringRow]
    excluded: list[dict[str, str]] = field(default_factory=list)
    source_files: list[str] = field(default_factory=list)
    #: The format each source file was read as (parallel to `source_files`), so a result
    #: can say what an automatic choice was.
    formats: list[str] = field(default_factory=list)
