"""A fixed, seeded scoring corpus for pinning the scorer's numbers across rewrites.

Mixed languages (so several normalisers and language blocks), slices, repeats sharing a
clip (clusters), empty references and hypotheses, missing hypotheses, CJK and Irish text,
and a small vocabulary so substitutions repeat and the top-k lists have ties.
"""

from __future__ import annotations

import random
from typing import Any

from earmark.formats.rows import MISSING_HYPOTHESIS, ScoringRow

VOCAB = {
    "en": "the a cat sat on mat dog ran to park it is was Hello world, Mr. Smith's 25 dollars"
    " colour color okay OK twenty-five".split(),
    "fr": "le la chat est sur tapis chien a couru au parc bonjour monde".split(),
    "ga": "Tá an t-athair ag obair sa bhaile nAthair go maith inniu".split(),
}
ZH = "我爱北京天安门南京的是了在不有人这上们来到时大地为子中你说生國門学会"


def _edit(tokens: list[str], pool: list[str], rng: random.Random, rate: float) -> list[str]:
    out: list[str] = []
    for tok in tokens:
        roll = rng.random()
        if roll < rate / 3:
            continue  # deletion
        if roll < 2 * rate / 3:
            out.append(rng.choice(pool))  # substitution (sometimes the same unit)
        else:
            out.append(tok)
        if rng.random() < rate / 4:
            out.append(rng.choice(pool))  # insertion
    return out


def corpus_rows(n: int = 400, seed: int = 7) -> list[ScoringRow]:
    """`n` rows (plus a few hand-placed edge cases), deterministic for a seed."""
    rng = random.Random(seed)
    rows: list[ScoringRow] = []
    languages = ["en", "en", "en", "zh", "ga", "fr", None]
    for k in range(n):
        lang = languages[k % len(languages)]
        if lang == "zh":
            ref_chars = [rng.choice(ZH) for _ in range(rng.randint(2, 14))]
            ref = "".join(ref_chars) + ("。" if rng.random() < 0.5 else "")
            hyp = "".join(_edit(ref_chars, list(ZH), rng, 0.2))
        else:
            pool = VOCAB[lang or "en"]
            ref_tokens = [rng.choice(pool) for _ in range(rng.randint(1, 12))]
            ref = " ".join(ref_tokens)
            hyp = " ".join(_edit(ref_tokens, pool, rng, 0.25))
        slices: tuple[str, ...] = ()
        if k % 5 == 0:
            slices = ("short",) if len(ref) < 20 else ("long",)
        if k % 11 == 0:
            slices = (*slices, "noisy")
        repeats = 3 if k % 13 == 0 else 1
        for r in range(repeats):
            hypothesis: str | None = hyp if r == 0 else " ".join(hyp.split()[r:])
            status = "ok"
            if k % 17 == 0 and r == 0:
                hypothesis, status = None, MISSING_HYPOTHESIS
            rows.append(
                ScoringRow(
                    id=f"u{k:04d}" + (f"#{r}" if r else ""),
                    reference=ref,
                    hypothesis=hypothesis,
                    language=lang,
                    slices=slices,
                    status=status,
                    cluster=f"u{k:04d}" if repeats > 1 else None,
                )
            )
    rows.append(ScoringRow(id="empty-ref", reference="", hypothesis="thank you", language="en"))
    rows.append(ScoringRow(id="both-empty", reference="", hypothesis="", language="en"))
    rows.append(ScoringRow(id="empty-hyp", reference="the cat", hypothesis="", language="fr"))
    return rows


def corpus_records(n: int = 400, seed: int = 7) -> list[dict[str, Any]]:
    """The same rows as JSONL records for `earmark score` (repeats as ids sharing a clip)."""
    out: list[dict[str, Any]] = []
    for row in corpus_rows(n, seed):
        record: dict[str, Any] = {"id": row.id, "reference": row.reference}
        if row.hypothesis is not None:
            record["hypothesis"] = row.hypothesis
        if row.language:
            record["language"] = row.language
        if row.slices:
            record["slices"] = list(row.slices)
        if row.cluster:
            record["clip"] = row.cluster
        out.append(record)
    return out
