"""Which sclite pair a PREDICTIONS file and its --refs make, and its rows as a stream.

trn hypotheses pair with trn references (`formats.trn_join`, read row by row); ctm
hypotheses with stm references (`formats.ctm`, rows built as they are asked for).
`formats.pairs.stream_pairs` hands every sclite format here.
"""

from __future__ import annotations

import os
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.formats.sclite import sclite_format
from earmark.formats.stream import PairStream


def stream_sclite_pair(
    predictions: Path,
    refs: str | os.PathLike[str] | None,
    fmt: str | None,
    allow_extra: bool = False,
    *,
    check_ids: bool = True,
) -> PairStream:
    """Rows from an sclite pair: trn/trn, or ctm hypotheses against stm references.

    `fmt` "trn": both files trn. "stm" or "ctm": references stm, hypotheses ctm. Without
    `fmt` the suffixes decide. `check_ids=False`: see `formats.trn_join.stream_trn`.
    """
    if refs is None:
        raise EarmarkError(
            "sclite hypotheses (trn, ctm) need --refs, the trn or stm references file",
            file=str(predictions),
        )
    ref_path = Path(refs)
    hyp_fmt = sclite_format(predictions)
    ref_fmt = sclite_format(ref_path)
    if fmt != "trn" and (hyp_fmt == "stm" or ref_fmt == "ctm"):
        raise EarmarkError(
            "with stm/ctm, --refs is the stm file and PREDICTIONS the ctm file",
            file=str(predictions),
            hint="swap the two files",
        )
    if fmt == "trn" or (fmt is None and hyp_fmt == ref_fmt == "trn"):
        from earmark.formats.trn_join import stream_trn

        return stream_trn(predictions, ref_path, allow_extra=allow_extra, check_ids=check_ids)
    if fmt in ("stm", "ctm") or (fmt is None and (hyp_fmt, ref_fmt) == ("ctm", "stm")):
        from earmark.formats.ctm import stream_stm_ctm

        return stream_stm_ctm(predictions, ref_path, allow_extra=allow_extra)
    raise EarmarkError(
        f"cannot pair {predictions.name} ({hyp_fmt or 'unknown'}) with {ref_path.name} "
        f"({ref_fmt or 'unknown'}) as sclite files",
        hint="trn hypotheses pair with trn references; ctm hypotheses with stm references",
    )
