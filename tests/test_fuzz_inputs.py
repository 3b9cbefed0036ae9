"""Fuzzing the readers and importers (issue 16, "Done when").

Arbitrary bytes or hostile structured rows, as a predictions file (JSONL, CSV, TSV,
Kaldi `text`, plain lines), a manifest, a Kaldi data dir or a NeMo manifest, must end in
a result or an `EarmarkError`, never another exception, within a deadline per input.
And whatever an importer writes, the manifest reader accepts.

Examples are derandomised so CI sees the same inputs on every run; the whole module
stays well under 20 s.
"""

from __future__ import annotations

import os
import tempfile
from datetime import timedelta
from pathlib import Path

import numpy as np
import soundfile as sf
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from earmark.corpus.manifest import read_manifest
from earmark.corpus.sources.common_voice import import_common_voice
from earmark.corpus.sources.fleurs import import_fleurs
from earmark.corpus.sources.kaldi import import_kaldi
from earmark.corpus.sources.lhotse_jsonl import import_lhotse
from earmark.corpus.sources.nemo import import_nemo
from earmark.errors import EarmarkError
from earmark.formats.pairs import read_pairs

#: `EARMARK_FUZZ_EXAMPLES=2000` fuzzes longer (and with fresh random inputs) by hand.
_EXAMPLES = int(os.environ.get("EARMARK_FUZZ_EXAMPLES", "0"))
FUZZ = settings(
    max_examples=_EXAMPLES or 40,
    deadline=timedelta(seconds=3),
    derandomize=not _EXAMPLES,
    suppress_health_check=[HealthCheck.too_slow],
)

#: Bytes that matter to the readers: separators, quotes, JSON syntax, bad UTF-8, BOM.
_ALPHABET = [
    b"\n",
    b"\r\n",
    b"\r",
    b"\t",
    b",",
    b'"',
    b" ",
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b'"id"',
    b'"reference"',
    b'"hypothesis"',
    b"NaN",
    b"1e999",
    b"\xff",
    b"\xef\xbb\xbf",
    b"\xe2\x80\xa8",
    b"\x00",
    b"utt1",
    b"utt2",
    b"a b",
    "中文".encode(),
]
hostile_bytes = st.one_of(
    st.binary(max_size=300),
    st.lists(st.sampled_from(_ALPHABET), max_size=60).map(b"".join),
)


def _wav(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, np.zeros(1600, dtype=np.float32), 16000)


def _outcome(call) -> object:
    """The call's result, or the EarmarkError it raised; anything else fails the test."""
    try:
        result = call()
    except EarmarkError as exc:
        assert str(exc)  # one printable line for the CLI
        event(f"EarmarkError: {exc.message[:40]}")
        return exc
    event(type(result).__name__)
    return result


@FUZZ
@given(
    hostile_bytes,
    hostile_bytes,
    st.sampled_from(["jsonl", "csv", "tsv", "kaldi", "lines", None]),
)
def test_predictions_readers_return_rows_or_earmark_error(
    predictions: bytes, references: bytes, fmt: str | None
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        suffix = {"jsonl": ".jsonl", "csv": ".csv", "tsv": ".tsv"}.get(fmt or "", ".txt")
        pred = Path(folder) / f"pred{suffix}"
        refs = Path(folder) / "refs.txt"
        pred.write_bytes(predictions)
        refs.write_bytes(references)
        _outcome(lambda: read_pairs(pred, fmt=fmt))
        _outcome(lambda: read_pairs(pred, refs=refs, fmt=fmt, allow_extra_hypotheses=True))


@FUZZ
@given(hostile_bytes)
def test_manifest_reader_returns_rows_or_earmark_error(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "m.jsonl"
        path.write_bytes(data)
        _outcome(lambda: list(read_manifest(path)))


_ids = st.sampled_from(["x" * 600, "ü", "a\x1cb", "-", "~", "u1"])
_paths = st.sampled_from(
    ["gone.wav", "../a.wav", "/abs/a.wav", "sox a.wav |", "x.ark:12", "~nosuchuser/a.wav",
     "a\x00.wav", "wav/", "."]
)  # fmt: skip
_times = st.sampled_from(["0", "0.5", "1.5", "-1", "-0.5", "nan", "inf", "1e400", "3", "x"])
_text = st.text(max_size=12)
_speakers = st.sampled_from(["s1", "s2", "x" * 600, "\u2028"])


@st.composite
def kaldi_files(draw: st.DrawFn) -> dict[str, str]:
    """Mostly well-formed data dirs (so rows get written) with hostile values mixed in."""
    n = draw(st.integers(min_value=1, max_value=5))
    with_segments = draw(st.booleans())
    files = {"wav.scp": "", "text": "", "segments": "", "utt2spk": ""}
    for i in range(n):
        utt = draw(st.one_of(st.just(f"u{i}"), st.just(f"u{i}"), _ids))
        rec = f"r{i}" if with_segments else utt
        path = draw(st.one_of(st.just("a.wav"), st.just("a.wav"), _paths))
        files["wav.scp"] += f"{rec} {path}\n"
        files["text"] += f"{utt} {draw(_text)}\n"
        files["utt2spk"] += f"{utt} {draw(_speakers)}\n"
        if with_segments:
            files["segments"] += f"{utt} {rec} {draw(_times)} {draw(_times)}\n"
    if not with_segments:
        del files["segments"]
    if draw(st.integers(min_value=0, max_value=3)) == 0:  # one file replaced by raw bytes
        name = draw(st.sampled_from(sorted(files)))
        files[name] = draw(hostile_bytes).decode("utf-8", "surrogateescape")
    return files


@FUZZ
@given(kaldi_files(), st.sampled_from(["ga", "en-US", "zh"]))
def test_kaldi_import_writes_a_readable_manifest_or_raises_earmark_error(
    files: dict[str, str], language: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        data = base / "data" / "test"
        data.mkdir(parents=True)
        _wav(base / "a.wav")
        for name, text in files.items():
            (data / name).write_bytes(text.encode("utf-8", "surrogateescape"))
        out = base / "k.jsonl"
        result = _outcome(
            lambda: import_kaldi(data, out, language=language, licence="CC0-1.0", consent_basis="c")
        )
        if not isinstance(result, EarmarkError):
            assert len(list(read_manifest(out))) == result.rows_written >= 1


_json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**30), max_value=10**30),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=8),
        st.sampled_from(["a.wav", "en", "", "1.5", "en\n"]),
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)
_nemo_rows = st.dictionaries(
    st.sampled_from(["audio_filepath", "text", "duration", "offset", "lang", "id", "utt_id"]),
    _json_values,
    max_size=7,
)


def _nemo_line(row: dict[str, object]) -> str:
    import json

    return json.dumps(row, allow_nan=True, ensure_ascii=False)


_seconds = st.one_of(
    st.floats(min_value=0, max_value=100),
    st.floats(),
    st.integers(min_value=-5, max_value=10**400),
    st.sampled_from([0, -1, 1e308, 10**400]),
    _json_values,
)
_langs = st.sampled_from(["en", "ga", "zh-TW", "en\n", "e n", ["en"], 1, "", None]) | _json_values
_good_nemo = st.fixed_dictionaries(
    {"audio_filepath": st.sampled_from(["a.wav", "b.wav", "gone.wav"]), "text": _text},
    optional={"duration": _seconds, "offset": _seconds, "lang": _langs},
).map(_nemo_line)


@FUZZ
@given(
    st.lists(_good_nemo, min_size=1, max_size=5),
    st.sampled_from(["", "\n", "{}", "[1]"])
    | _nemo_rows.map(_nemo_line)
    | hostile_bytes.map(lambda b: b.decode("utf-8", "surrogateescape")),
    st.booleans(),
    st.sampled_from([None, "en", "en", "ga"]),
)
def test_nemo_import_writes_a_readable_manifest_or_raises_earmark_error(
    lines: list[str], hostile: str, add_hostile: bool, language: str | None
) -> None:
    if add_hostile:
        lines = [*lines, hostile]
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        _wav(base / "a.wav")
        _wav(base / "b.wav")
        manifest = base / "nemo.json"
        manifest.write_bytes("\n".join(lines).encode("utf-8", "surrogateescape"))
        out = base / "n.jsonl"
        result = _outcome(
            lambda: import_nemo(
                manifest, out, language=language, licence="CC0-1.0", consent_basis="c"
            )
        )
        if not isinstance(result, EarmarkError):
            assert len(list(read_manifest(out))) == result.rows_written >= 1


_sources = st.one_of(
    st.just([{"type": "file", "channels": [0], "source": "a.wav"}]),
    st.just([{"type": "file", "channels": [0], "source": "a.wav"}]),
    st.lists(st.fixed_dictionaries({"type": _json_values, "source": _json_values}), max_size=2),
    _json_values,
)
_supervision = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["s1", "s2", "s1", "x" * 600]),
        "start": st.floats(min_value=0, max_value=2) | _seconds,
        "duration": st.floats(min_value=0, max_value=2) | _seconds,
        "text": st.just("hello") | _text | _json_values,
        "language": _langs,
    },
    optional={
        "channel": st.sampled_from([0, [0], [], "x", True, None]),
        "speaker": _json_values,
        "custom": _json_values,
        "gender": _json_values,
    },
)
_cut = st.fixed_dictionaries(
    {
        "id": st.just("cut"),
        "start": st.sampled_from([0.0, 0.5]) | _seconds,
        "recording": st.fixed_dictionaries(
            {"id": st.just("a"), "sources": _sources, "duration": _seconds}
        ),
        "supervisions": st.lists(_supervision, min_size=1, max_size=3)
        | st.lists(_supervision, min_size=1, max_size=3)
        | _json_values,
    }
).map(_nemo_line)


@FUZZ
@given(st.lists(_cut, min_size=1, max_size=4), st.sampled_from([None, "en"]))
def test_lhotse_import_writes_a_readable_manifest_or_raises_earmark_error(
    lines: list[str], language: str | None
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        _wav(base / "a.wav")
        cuts = base / "cuts.jsonl"
        cuts.write_text("\n".join(lines), encoding="utf-8", errors="surrogateescape")
        out = base / "l.jsonl"
        result = _outcome(
            lambda: import_lhotse(
                cuts, out, language=language, licence="CC0-1.0", consent_basis="c"
            )
        )
        if not isinstance(result, EarmarkError):
            assert len(list(read_manifest(out))) == result.rows_written >= 1


_cells = st.sampled_from(["", "1", "-16000", "²", "../x", "a|a", "\u2028"]) | _text
_clip = st.sampled_from(["c1.mp3", "c1.mp3", "../c1.mp3", "/etc/passwd"]) | _cells
_cv_row = st.tuples(
    _cells, _clip, st.just("Dia duit") | _cells, st.just("2") | _cells, st.just("a|a") | _cells
)
_fleurs_row = st.tuples(
    st.sampled_from(["1", "2"]) | _cells,
    _clip,
    st.just("Dia duit") | _cells,
    _cells,
    _cells,
    st.sampled_from(["16000", "-16000", "0", "1e3"]),
    st.sampled_from(["FEMALE", ""]),
)


@FUZZ
@given(
    st.lists(_cv_row.map("\t".join), max_size=4),
    st.lists(_fleurs_row.map("\t".join), max_size=4),
    hostile_bytes,
    st.integers(min_value=0, max_value=3),
)
def test_tsv_importers_write_a_readable_manifest_or_raise_earmark_error(
    cv_rows: list[str], fleurs_rows: list[str], raw: bytes, use_raw: int
) -> None:
    """Common Voice and FLEURS TSV folders: mostly well-formed rows, now and then raw bytes."""
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        cv = base / "ga-IE"
        _wav(cv / "clips" / "c1.mp3")
        header = b"client_id\tpath\tsentence\tup_votes\taccents\n"
        body = raw if use_raw == 0 else "\n".join(cv_rows).encode("utf-8")
        (cv / "test.tsv").write_bytes(header + body)
        fleurs = base / "ga_ie"
        _wav(fleurs / "audio" / "test" / "c1.mp3")
        body = raw if use_raw == 0 else "\n".join(fleurs_rows).encode("utf-8")
        (fleurs / "test.tsv").write_bytes(body)
        for importer, source in ((import_common_voice, cv), (import_fleurs, fleurs)):
            out = base / f"{importer.__name__}.jsonl"
            result = _outcome(lambda: importer(source, out, hash_audio=False))  # noqa: B023
            if not isinstance(result, EarmarkError):
                assert len(list(read_manifest(out))) == result.rows_written >= 1


#: Values a Python caller may hand `earmark.score_rows` by mistake: text with lone
#: surrogates, NUL, markup and traversal, bytes, numbers, None, deep nesting.
_hostile_value = st.recursive(
    st.one_of(
        st.text(alphabet=st.sampled_from(["a", " ", "\x00", "\ud800", "中", "<", "/", "."])),
        st.sampled_from(["../../etc/passwd", "<script>alert(1)</script>", "x" * 500]),
        st.none(),
        st.integers(),
        st.floats(allow_nan=True),
        st.binary(max_size=8),
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)
_hostile_column = st.one_of(st.none(), _hostile_value, st.lists(_hostile_value, max_size=6))


@FUZZ
@given(_hostile_column, _hostile_column, _hostile_column, _hostile_column)
def test_rows_in_memory_return_results_or_one_line_earmark_error(
    references: object, hypotheses: object, ids: object, languages: object
) -> None:
    import earmark

    outcome = _outcome(
        lambda: earmark.score_rows(
            references=references,  # type: ignore[arg-type]
            hypotheses=hypotheses,  # type: ignore[arg-type]
            ids=ids,  # type: ignore[arg-type]
            languages=languages,  # type: ignore[arg-type]
            bootstrap=0,
        )
    )
    if isinstance(outcome, EarmarkError):
        assert "\n" not in str(outcome)


@FUZZ
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["id", "reference", "hypothesis", "language", "x"]), _hostile_value
        ),
        max_size=5,
    )
)
def test_row_mappings_in_memory_return_results_or_one_line_earmark_error(
    rows: list[dict[str, object]],
) -> None:
    import earmark

    outcome = _outcome(lambda: earmark.score_rows(rows, bootstrap=0))
    if isinstance(outcome, EarmarkError):
        assert "\n" not in str(outcome)
