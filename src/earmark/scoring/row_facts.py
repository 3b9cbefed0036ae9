"""What the figures read of each row besides its counts, as small integer codes.

Per row its language, status, speaker, slice set and bootstrap cluster; the blocks select
rows by these codes instead of by the rows' strings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter

import numpy as np

from earmark.formats.rows import ScoringRow
from earmark.scoring.columns import Columns, rows_at
from earmark.scoring.options import ClusterUnit
from earmark.scoring.row_keys import RowKeys


@dataclass
class RowFacts:
    """What the figures read of each row besides its counts, as small codes per row.

    Per row: the language, status, bootstrap cluster and speaker as integer codes (one
    array each), the slices as a code of its distinct slice set. The ids are checked and
    clustered by `RowKeys`, which keeps an 8-byte digest per row (the strings only when
    it cannot see the rows again, or once two digests match).
    """

    reread: Callable[[], Iterable[ScoringRow]] | None = None
    n: int = 0
    languages: dict[str | None, int] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)
    speakers: dict[str, int] = field(default_factory=dict)
    slice_sets: dict[tuple[str, ...], int] = field(default_factory=lambda: {(): 0})
    #: (id, status) of every row whose status is not ok, in input order.
    not_ok: list[tuple[str, str]] = field(default_factory=list)
    language_code: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    status_code: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    cluster_code: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    speaker_code: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    slice_code: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    #: Per speaker code: the code of its key among the cluster codes (filled by `seal`).
    speaker_cluster_code: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: Each code's value (filled by `seal`).
    language_names: list[str | None] = field(default_factory=list)
    status_names: list[str] = field(default_factory=list)
    speaker_names: list[str] = field(default_factory=list)
    slice_names: list[tuple[str, ...]] = field(default_factory=list)
    _columns: Columns = field(default_factory=Columns)
    _keys: RowKeys | None = None

    def add(self, rows: Sequence[ScoringRow]) -> None:
        """Code a chunk's rows; a repeated id (within a clip's cluster) is an error."""
        if self._keys is None:
            self._keys = RowKeys(self.reread)
        self._keys.add(rows)
        languages, statuses, speakers, slice_sets = (
            self.languages,
            self.statuses,
            self.speakers,
            self.slice_sets,
        )
        m = len(rows)
        if self._add_plain(rows):
            return
        # Codes gathered in lists and made arrays once per chunk: a numpy element set
        # per row per column costs ~0.1 s per 100,000 rows.
        language_of: list[int] = []
        status_of: list[int] = []
        speaker_at: list[tuple[int, int]] = []
        slice_at: list[tuple[int, int]] = []
        for k, row in enumerate(rows):
            code = languages.get(row.language)
            if code is None:
                code = languages[row.language] = len(languages)
            language_of.append(code)
            status = row.status
            code = statuses.get(status)
            if code is None:
                code = statuses[status] = len(statuses)
            status_of.append(code)
            if status != "ok":
                self.not_ok.append((row.id, status))
            if row.extra:
                speaker = speaker_of_row(row)
                if speaker is not None:
                    code = speakers.get(speaker)
                    if code is None:
                        code = speakers[speaker] = len(speakers)
                    speaker_at.append((k, code))
            if row.slices:
                code = slice_sets.get(row.slices)
                if code is None:
                    code = slice_sets[row.slices] = len(slice_sets)
                slice_at.append((k, code))
        language_code = np.array(language_of, dtype=np.int32).reshape(m)
        status_code = np.array(status_of, dtype=np.int32).reshape(m)
        speaker_code = _at(m, -1, speaker_at)
        slice_code = _at(m, 0, slice_at)
        for name, arr in (
            ("language", language_code),
            ("status", status_code),
            ("speaker", speaker_code),
            ("slice", slice_code),
        ):
            self._columns.append(name, arr)
        self.n += m

    def _add_plain(self, rows: Sequence[ScoringRow]) -> bool:
        """`add`'s codes for a chunk of one language and one status whose rows have no
        speaker or slices (the common chunk), from a few C-level passes over the rows
        instead of a dozen steps per row; False (nothing done) for any other chunk."""
        languages = set(map(_LANGUAGE, rows))
        statuses = set(map(_STATUS, rows))
        if (
            len(languages) != 1
            or len(statuses) != 1
            or any(map(_EXTRA, rows))
            or any(map(_SLICES, rows))
        ):
            return False
        ((language,), (status,)) = languages, statuses
        language_code = self.languages.setdefault(language, len(self.languages))
        status_code = self.statuses.setdefault(status, len(self.statuses))
        if status != "ok":
            self.not_ok.extend((row.id, status) for row in rows)
        m = len(rows)
        self._columns.append("language", np.full(m, language_code, dtype=np.int32))
        self._columns.append("status", np.full(m, status_code, dtype=np.int32))
        self._columns.append("speaker", np.full(m, -1, dtype=np.int32))
        self._columns.append("slice", np.zeros(m, dtype=np.int32))
        self.n += m
        return True

    def seal(self) -> None:
        for name in ("language", "status", "speaker", "slice"):
            empty = getattr(self, f"{name}_code")
            setattr(self, f"{name}_code", self._columns.take(name, empty))
        self.language_names = list(self.languages)
        self.status_names = list(self.statuses)
        self.speaker_names = list(self.speakers)
        self.slice_names = list(self.slice_sets)
        keys = self._keys if self._keys is not None else RowKeys(None)
        self.cluster_code, self.speaker_cluster_code = keys.seal(self.speaker_names)
        self._keys = None

    def bootstrap_codes(
        self, rows: np.ndarray, unit: ClusterUnit, *, whole: bool = False
    ) -> np.ndarray:
        """Per row (input indices): its resampling unit as a code (equal codes, equal
        keys): the clip's cluster key or, by speaker, the speaker's. `whole`: `rows` is
        every row, in order (the codes are then the column itself, read only)."""
        codes: np.ndarray = rows_at(self.cluster_code, rows, whole)
        if unit == "speaker":
            speaker = rows_at(self.speaker_code, rows, whole)
            has = speaker >= 0
            if has.any():
                # Keyed `speaker\x00NAME`, so a speaker named like a clip id never merges
                # with that clip (`RowKeys.seal`).
                codes = np.where(has, self.speaker_cluster_code[np.maximum(speaker, 0)], codes)
        return codes


_LANGUAGE, _STATUS = attrgetter("language"), attrgetter("status")
_EXTRA, _SLICES = attrgetter("extra"), attrgetter("slices")


def _at(m: int, fill: int, codes: list[tuple[int, int]]) -> np.ndarray:
    """An int32 column of `m` rows holding `fill` but at the (position, code) pairs."""
    column = np.full(m, fill, dtype=np.int32)
    if codes:
        where, values = zip(*codes, strict=True)
        column[np.asarray(where, dtype=np.int64)] = values
    return column


def speaker_of_row(row: ScoringRow) -> str | None:
    """The row's speaker (`extra["speaker"]`, from the manifest, stm or trn), or None."""
    speaker = row.extra.get("speaker") if row.extra else None
    return speaker if isinstance(speaker, str) and speaker else None


def language_key(language: str | None) -> str:
    """The `by_language` key of a row: its tag as written, `und` when it has none."""
    if not language:
        return "und"
    return language
