"""The streaming section of a results file: time to first token, final latency, churn.

Built from an arm's prediction rows: a row carries `stream` when the arm streamed that
clip (`streaming=true`; `earmark.engines.streaming.stream_record`). Per language, the
clips' figures are summed into one `StreamingTally` (latency percentiles over clips;
churn and stability from summed counts). Units follow the language: characters for
languages written without spaces between words (`CHARACTER_LANGUAGES`), words otherwise.
Each row's figures were computed over every partial of the clip, so bounding the
partials kept in the row never changes them. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from earmark.language_tags import base_language
from earmark.metrics.streaming import StreamFigures, StreamingTally, Unit
from earmark.results.codec import JSONValue
from earmark.results.display import fmt_ms
from earmark.scoring.policy import CHARACTER_LANGUAGES

STREAMING_DEFINITION = (
    "time to first token: wall seconds from the start of the stream (and audio seconds fed) "
    "to the first partial holding a unit; final latency: wall seconds from the last audio "
    "chunk sent to the final result; churn: units shown then removed or changed by the next "
    "result, summed, over the final's units summed; stability: share of partial updates the "
    "final keeps whole; latency percentiles over clips (linear interpolation); raw engine "
    "text (earmark.metrics.streaming, docs/streaming.md)"
)
#: results.json `reason` when no row of the arm was streamed.
NOT_STREAMING = "not_streaming"
NOT_STREAMING_DETAIL = (
    "the arm did not stream: no row has partial results (set streaming=true on an arm "
    "whose engine streams: sherpa-onnx model_type=online_*, or a stdio program that "
    "declares streaming)"
)
#: A row of a streaming arm without a stream: the clip failed (listed by status).
FAILED = "failed"


def unit_for(language: str | None) -> Unit:
    """Characters for languages written without spaces between words, else words."""
    return "char" if base_language(language) in CHARACTER_LANGUAGES else "word"


def streaming_section(rows: Iterable[Mapping[str, Any]]) -> dict[str, JSONValue]:
    """Per-language streaming figures of one arm's rows, or null figures with the reason
    (`not_streaming`) when no row was streamed. Rows without a stream in a streaming arm
    (failed clips) are counted under `excluded` by status, never silently dropped."""
    tallies: dict[str, StreamingTally] = {}
    units: dict[str, Unit] = {}
    excluded: dict[str, int] = {}
    for row in rows:
        record = row.get("stream")
        if not isinstance(record, Mapping):
            status = str(row.get("status") or FAILED)
            excluded[status] = excluded.get(status, 0) + 1
            continue
        language = str(row.get("language") or "und")
        unit = unit_for(row.get("language"))
        figures = StreamFigures.from_json(record["figures"][unit])
        units[language] = unit
        tallies[language] = tallies.get(language, StreamingTally.zero()) + StreamingTally.of(
            figures
        )
    if not tallies:
        return {
            "metric": "streaming",
            "by_language": None,
            "reason": NOT_STREAMING,
            "detail": NOT_STREAMING_DETAIL,
        }
    return {
        "metric": "streaming",
        "definition": STREAMING_DEFINITION,
        "excluded": dict(sorted(excluded.items())),
        "by_language": {
            language: {
                "unit": units[language],
                # metrics/ sits below the results layer: it spells its JSON as `object`.
                **cast("dict[str, JSONValue]", tallies[language].to_json()),
            }
            for language in sorted(tallies)
        },
    }


STREAMING_HEADER = [
    "language",
    "unit",
    "clips",
    "TTFT p50 / p95",
    "TTFT audio p50",
    "final latency p50 / p95",
    "churn",
    "stability",
]


def _share(value: Any) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def streaming_rows(section: Mapping[str, Any] | None) -> list[list[str]]:
    """One table row per language of a `streaming` results section (no rows when the arm
    did not stream), in `STREAMING_HEADER`'s order."""
    rows: list[list[str]] = []
    for language, block in ((section or {}).get("by_language") or {}).items():
        rows.append(
            [
                language,
                block["unit"],
                str(block["clips"]),
                f"{fmt_ms(block['ttft_wall_p50_seconds'])} / "
                f"{fmt_ms(block['ttft_wall_p95_seconds'])}",
                fmt_ms(block["ttft_audio_p50_seconds"]),
                f"{fmt_ms(block['final_latency_p50_seconds'])} / "
                f"{fmt_ms(block['final_latency_p95_seconds'])}",
                _share(block["churn"]),
                _share(block["stability"]),
            ]
        )
    return rows
