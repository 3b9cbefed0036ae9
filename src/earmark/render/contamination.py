"""`earmark manifest contamination`: a corpus's references against a declared text.

Both sides go through the corpus's normaliser policy (default `auto`, the one
`earmark score` uses): each reference through its language's normaliser, the declared
text through every normaliser the corpus uses, each in that normaliser's primary view.
The n-gram unit is the normaliser's headline unit (`earmark.metrics.tokens`): words
(whitespace tokens) for word-scored languages, characters (whitespace removed) for
character-scored ones (Mandarin under zh-eval-v1, Japanese and Thai under crude-char-v1).

The report names utterances by id only: no reference or declared text is written, so it
may be shared even when the corpus forbids sharing transcripts. Canaries are matched on
the raw text (before normalising), line by line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypedDict

from earmark.errors import EarmarkError
from earmark.language_tags import base_language
from earmark.metrics.contamination import DeclaredTextScan, Overlap, canary_hits, ngram_keys
from earmark.metrics.tokens import chars, words
from earmark.outputs import atomic_write_text, claim_output_folder
from earmark.records import require_regular_file
from earmark.results.display import fmt_pct
from earmark.rundir.layout import PREDICTIONS

SCHEMA_ID = "earmark.contamination/1"


class OverlapFigures(TypedDict):
    """The corpus's or one language's counts: utterances, n-gram positions, matches, flags."""

    utterances: int
    too_short: int
    ngrams: int
    matched: int
    share: float | None
    flagged: int
    flagged_share: float | None


class _UtteranceFigures(TypedDict):
    id: str
    language: str
    ngrams: int
    matched: int
    share: float | None
    flagged: bool


class UtteranceOverlap(_UtteranceFigures, total=False):
    """One utterance's overlap (no text: the report names utterances by id only)."""

    reason: str  # too_short: fewer than n units


class SchemeRecord(TypedDict):
    normalizer: str
    view: str
    unit: str
    ngrams_scanned: int
    distinct_corpus_ngrams: int


class MethodRecord(TypedDict):
    n: int
    threshold: float
    normalizer_policy: dict[str, object]
    schemes: list[SchemeRecord]
    share: str
    flag: str
    hashing: str


class CorpusRecord(TypedDict):
    manifest: str
    manifest_sha256: str


class DeclaredRecord(TypedDict):
    path: str
    format: str
    text_field: str | None
    pieces_read: int
    system: str | None


class OutputHit(TypedDict):
    """A canary in a system's output: the predictions file, line, row id and arm."""

    file: str
    line: int
    id: object
    arm: object


class CanaryHit(TypedDict):
    canary: str
    declared_lines: list[int]
    declared_count: int
    outputs: list[OutputHit]


class CanaryRecord(TypedDict):
    count: int
    hits: list[CanaryHit]
    outputs_checked: list[str]
    rule: str


class ContaminationReport(TypedDict):
    """`contamination.json` (schema `earmark.contamination/1`)."""

    schema: str
    created: str
    corpus: CorpusRecord
    declared: DeclaredRecord
    method: MethodRecord
    summary: OverlapFigures
    by_language: dict[str, OverlapFigures]
    canaries: CanaryRecord
    utterances: list[UtteranceOverlap]


@dataclass
class _LanguageTally:
    """One language's counts while the utterances are read."""

    overlap: Overlap
    utterances: int = 0
    too_short: int = 0
    flagged: int = 0

    def figures(self) -> OverlapFigures:
        return {
            "utterances": self.utterances,
            "too_short": self.too_short,
            "ngrams": self.overlap.positions,
            "matched": self.overlap.matched,
            "share": self.overlap.share,
            "flagged": self.flagged,
            "flagged_share": self.flagged / self.utterances if self.utterances else None,
        }


FORMATS = ("auto", "text", "lines", "jsonl")


@dataclass(frozen=True)
class Scheme:
    """How one language's text becomes n-gram units: its normaliser, view and unit."""

    normalizer: str
    view: str
    unit: str

    def units(self, text: str, *, file: str, line: int | None = None) -> list[str]:
        from earmark.text.registry import get_normalizer

        rendered = get_normalizer(self.normalizer).normalize_pair(text, text)[self.view]
        if rendered.reference is None:
            raise EarmarkError(
                f"normaliser {self.normalizer} view {self.view} is unavailable: "
                f"{rendered.null_reason}",
                file=file,
                line=line,
                hint="install what the normaliser needs, or pass --normalizer with another",
            )
        if self.unit == "char":
            return chars("".join(rendered.reference.split()))
        return words(rendered.reference)


def scheme_for(policy: Any, language: str) -> Scheme:
    from earmark.text.registry import get_normalizer

    normalizer = get_normalizer(policy.for_language(language))
    return Scheme(normalizer.name, normalizer.primary_view, normalizer.units[0])


def declared_pieces(path: Path, fmt: str, text_field: str) -> Iterator[tuple[int, str, bool]]:
    """(line number, text, continues) for each piece of the declared file, streamed.

    `text`: one continuous text read line by line (n-grams span line breaks); `lines`:
    one document per line; `jsonl`: one JSON object per line, its `text_field` a string.
    """
    fmt = resolve_format(path, fmt)
    require_regular_file(path)
    try:
        handle = path.open("r", encoding="utf-8", newline=None)
    except OSError as exc:
        raise EarmarkError(
            f"cannot read the declared text: {exc.strerror}", file=str(path)
        ) from None
    with handle:
        try:
            for number, line in enumerate(handle, start=1):
                if fmt != "jsonl":
                    yield number, line.rstrip("\n"), fmt == "text"
                    continue
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise EarmarkError(
                        f"invalid JSON: {exc.msg}", file=str(path), line=number
                    ) from None
                value = row.get(text_field) if isinstance(row, dict) else None
                if not isinstance(value, str):
                    raise EarmarkError(
                        f"no string field {text_field!r}",
                        file=str(path),
                        line=number,
                        field=text_field,
                        hint="name the text field with --text-field",
                    )
                yield number, value, False
        except UnicodeDecodeError as exc:
            raise EarmarkError(
                f"not UTF-8 text: {exc.reason}", file=str(path), hint="convert it to UTF-8"
            ) from None


def resolve_format(path: Path, fmt: str) -> str:
    """`auto`: JSONL for a `.jsonl`/`.ndjson` file, else one document per line."""
    if fmt != "auto":
        return fmt
    return "jsonl" if path.suffix.lower() in (".jsonl", ".ndjson") else "lines"


def read_canaries(path: Path) -> list[str]:
    """One canary per line; blank lines and lines starting with `#` are skipped."""
    require_regular_file(path)
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise EarmarkError(f"cannot read the canary list: {exc}", file=str(path)) from None
    return [s.strip() for s in lines if s.strip() and not s.lstrip().startswith("#")]


def check_contamination(
    manifest: str | os.PathLike[str],
    against: str | os.PathLike[str],
    *,
    n: int = 8,
    threshold: float = 0.5,
    normalizer: str = "auto",
    fmt: str = "auto",
    text_field: str = "text",
    canaries: Sequence[str] = (),
    predictions: Sequence[str | os.PathLike[str]] = (),
    system: str | None = None,
) -> ContaminationReport:
    """The report as a dict (`earmark.contamination/1`). An utterance is flagged when the
    share of its reference n-gram positions found in the declared text is ≥ `threshold`;
    one with fewer than `n` units has no n-gram and is counted as too short."""
    from earmark.corpus.manifest import manifest_sha256, read_manifest
    from earmark.scoring.policy import NormalizerPolicy

    if n < 1:
        raise EarmarkError(f"--n must be >= 1, got {n}", field="n")
    if not 0.0 <= threshold <= 1.0:
        raise EarmarkError(f"--threshold {threshold} is not between 0 and 1", field="threshold")
    if fmt not in FORMATS:
        raise EarmarkError(f"unknown format {fmt!r}", field="format", hint=", ".join(FORMATS))
    manifest_path, against_path = Path(manifest), Path(against)
    policy = NormalizerPolicy.parse(normalizer)
    utterances = list(read_manifest(manifest_path))
    schemes: dict[Scheme, set[int]] = {}
    keyed: list[tuple[Any, Scheme, list[int]]] = []
    for utt in utterances:
        scheme = scheme_for(policy, utt.language)
        keys = ngram_keys(scheme.units(utt.text, file=str(manifest_path)), n)
        schemes.setdefault(scheme, set()).update(keys)
        keyed.append((utt, scheme, keys))
    scans = {scheme: DeclaredTextScan(wanted, n) for scheme, wanted in schemes.items()}
    declared_hits: dict[str, list[int]] = {c: [] for c in canaries}
    pieces = 0
    for line, text, continues in declared_pieces(against_path, fmt, text_field):
        pieces += 1
        for canary in canary_hits(canaries, text):
            declared_hits[canary].append(line)
        for scheme, scan in scans.items():
            scan.feed(scheme.units(text, file=str(against_path), line=line), continues=continues)
    output_hits = _output_canaries(canaries, predictions)

    rows: list[UtteranceOverlap] = []
    total = Overlap(0, 0)
    by_language: dict[str, _LanguageTally] = {}
    for utt, scheme, keys in keyed:
        overlap = Overlap.of(keys, scans[scheme].found)
        share = overlap.share
        flagged = share is not None and share >= threshold
        row: UtteranceOverlap = {
            "id": utt.id,
            "language": utt.language,
            "ngrams": overlap.positions,
            "matched": overlap.matched,
            "share": share,
            "flagged": flagged,
        }
        if not keys:
            row["reason"] = f"too_short: fewer than {n} units"
        rows.append(row)
        total += overlap
        lang = by_language.setdefault(base_language(utt.language), _LanguageTally(Overlap(0, 0)))
        lang.overlap += overlap
        lang.utterances += 1
        lang.too_short += 0 if keys else 1
        lang.flagged += flagged
    summary = _summary(total, rows)
    languages = {lang: v.figures() for lang, v in sorted(by_language.items())}
    return {
        "schema": SCHEMA_ID,
        "created": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "corpus": {
            "manifest": str(manifest_path),
            "manifest_sha256": manifest_sha256(manifest_path),
        },
        "declared": {
            "path": str(against_path),
            "format": resolve_format(against_path, fmt),
            "text_field": text_field if resolve_format(against_path, fmt) == "jsonl" else None,
            "pieces_read": pieces,
            "system": system,
        },
        "method": {
            "n": n,
            "threshold": threshold,
            "normalizer_policy": policy.to_dict(),
            "schemes": [
                {
                    "normalizer": s.normalizer,
                    "view": s.view,
                    "unit": s.unit,
                    "ngrams_scanned": scans[s].ngrams_scanned,
                    "distinct_corpus_ngrams": len(w),
                }
                for s, w in schemes.items()
            ],
            "share": "reference n-gram positions (n consecutive units of the normaliser's "
            "primary view) whose n-gram occurs in the declared text, over all positions; "
            "corpus and language shares sum positions (micro), not per-utterance shares",
            "flag": f"an utterance is flagged when its share >= {threshold:g}",
            "hashing": "BLAKE2b 64-bit keys of the n-grams; the declared text is streamed",
        },
        "summary": summary,
        "by_language": languages,
        "canaries": {
            "count": len(canaries),
            "hits": [
                {
                    "canary": c,
                    "declared_lines": declared_hits[c][:20],
                    "declared_count": len(declared_hits[c]),
                    "outputs": output_hits.get(c, []),
                }
                for c in canaries
                if declared_hits[c] or output_hits.get(c)
            ],
            "outputs_checked": [str(p) for p in predictions],
            "rule": "exact, case-sensitive substring of the raw text, one line at a time",
        },
        "utterances": rows,
    }


def _summary(total: Overlap, rows: list[UtteranceOverlap]) -> OverlapFigures:
    flagged = sum(1 for r in rows if r["flagged"])
    return {
        "utterances": len(rows),
        "too_short": sum(1 for r in rows if not r["ngrams"]),
        "ngrams": total.positions,
        "matched": total.matched,
        "share": total.share,
        "flagged": flagged,
        "flagged_share": flagged / len(rows) if rows else None,
    }


def _output_canaries(
    canaries: Sequence[str], predictions: Sequence[str | os.PathLike[str]]
) -> dict[str, list[OutputHit]]:
    """Canaries in systems' outputs: the `hypothesis` of each row of predictions.jsonl."""
    hits: dict[str, list[OutputHit]] = {}
    for path in predictions:
        p = Path(path)
        if p.is_dir():
            p = p / PREDICTIONS
        require_regular_file(p)
        try:
            handle = p.open("r", encoding="utf-8")
        except OSError as exc:
            raise EarmarkError(f"cannot read predictions: {exc.strerror}", file=str(p)) from None
        with handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise EarmarkError(
                        f"invalid JSON: {exc.msg}", file=str(p), line=number
                    ) from None
                text = str(row.get("hypothesis") or "")
                for canary in canary_hits(canaries, text):
                    hits.setdefault(canary, []).append(
                        {"file": str(p), "line": number, "id": row.get("id"), "arm": row.get("arm")}
                    )
    return hits


def render_markdown(report: ContaminationReport) -> str:
    from earmark.markdown_cells import md_code, md_table

    method, summary = report["method"], report["summary"]
    schemes = ", ".join(f"{s['normalizer']}/{s['view']} ({s['unit']}s)" for s in method["schemes"])
    parts = [
        "# Contamination check",
        "",
        f"Corpus {md_code(report['corpus']['manifest'])} (manifest SHA-256 "
        f"{md_code(report['corpus']['manifest_sha256'])}) against "
        f"{md_code(report['declared']['path'])} "
        f"({report['declared']['pieces_read']} lines read).",
        "",
        f"{method['n']}-grams of {schemes}; {method['share']}. {method['flag'].capitalize()}. "
        "Utterances are named by id only: no reference text is written here.",
        "",
        md_table(
            ["scope", "utterances", "too short", "n-grams", "found", "share", "flagged"],
            [
                [
                    scope,
                    str(v["utterances"]),
                    str(v["too_short"]),
                    str(v["ngrams"]),
                    str(v["matched"]),
                    fmt_pct(v["share"]),
                    f"{v['flagged']} ({fmt_pct(v['flagged_share'])})",
                ]
                for scope, v in [("corpus", summary), *report["by_language"].items()]
            ],
        ),
        "",
    ]
    flagged = [r for r in report["utterances"] if r["flagged"]]
    parts += ["## Flagged utterances", ""]
    if flagged:
        flagged.sort(key=lambda r: (-(r["share"] or 0.0), r["id"]))  # flagged: a share
        parts.append(
            md_table(
                ["id", "language", "n-grams", "found", "share"],
                [
                    [
                        r["id"],
                        r["language"],
                        str(r["ngrams"]),
                        str(r["matched"]),
                        fmt_pct(r["share"]),
                    ]
                    for r in flagged
                ],
            )
        )
    else:
        parts.append("None.")
    canaries = report["canaries"]
    parts += ["", "## Canaries", ""]
    if not canaries["count"]:
        parts.append("No canary list given.")
    elif not canaries["hits"]:
        parts.append(f"None of {canaries['count']} canaries found ({canaries['rule']}).")
    else:
        parts.append(
            md_table(
                ["canary", "lines in declared text", "in outputs"],
                [
                    [h["canary"], str(h["declared_count"]), str(len(h["outputs"]))]
                    for h in canaries["hits"]
                ],
            )
        )
    return "\n".join(parts) + "\n"


def write_contamination(
    out_dir: str | os.PathLike[str], report: ContaminationReport
) -> dict[str, Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    claim_output_folder(out, "manifest contamination")
    written = {"json": out / "contamination.json", "md": out / "contamination.md"}
    atomic_write_text(written["json"], json.dumps(report, ensure_ascii=False, indent=2) + "\n")
    atomic_write_text(written["md"], render_markdown(report))
    return written
