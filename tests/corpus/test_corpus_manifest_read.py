"""Strict, lazy manifest reading: every malformed input ends in an EarmarkError that names
file, line and field; valid rows are never dropped silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from earmark.corpus.manifest import read_manifest
from earmark.corpus.model import Source, Utterance
from earmark.errors import EarmarkError

GOOD = {"id": "u1", "audio": "a/u1.wav", "text": "hello", "language": "en"}


def row(**over: object) -> bytes:
    data = dict(GOOD, id="u2", audio="a/u2.wav")
    for key, value in over.items():
        if value is _DROP:
            data.pop(key)
        else:
            data[key] = value
    return json.dumps(data, ensure_ascii=False).encode()


_DROP = object()
GOOD_LINE = json.dumps(GOOD).encode() + b"\n"

# (case name, bytes of line 2 or the whole file, expected line, expected field or None)
BAD_SECOND_LINE: list[tuple[str, bytes, str | None]] = [
    ("truncated", row()[:-7], None),
    ("not-json", b"hello world", None),
    ("array-row", b'["u2", "a.wav"]', None),
    ("string-row", b'"u2"', None),
    ("blank-line", b"   ", None),
    ("nan", row(duration=1.0).replace(b"1.0", b"NaN"), None),
    ("non-utf8", row(text="caf\u00e9").replace("é".encode(), b"\xe9"), None),
    ("missing-id", row(id=_DROP), "id"),
    ("missing-audio", row(audio=_DROP), "audio"),
    ("missing-text", row(text=_DROP), "text"),
    ("missing-language", row(language=_DROP), "language"),
    ("empty-id", row(id=""), "id"),
    ("space-id", row(id="   "), "id"),
    ("empty-audio", row(audio=""), "audio"),
    ("empty-language", row(language=""), "language"),
    ("null-text", row(text=None), "text"),
    ("int-id", row(id=7), "id"),
    ("list-text", row(text=["a"]), "text"),
    ("bool-duration", row(duration=True), "duration"),
    ("string-duration", row(duration="1.5"), "duration"),
    ("negative-duration", row(duration=-1), "duration"),
    ("slices-string", row(slices="zh"), "slices"),
    ("slices-int-item", row(slices=["zh", 3]), "slices"),
    ("slices-repeated", row(slices=["zh", "zh"]), "slices"),
    ("speaker-int", row(speaker=12), "speaker"),
    ("bad-sha", row(sha256="ABC"), "sha256"),
    ("source-string", row(source="fleurs"), "source"),
    ("source-unknown", row(source={"dataset": "x", "licens": "MIT"}), "source.licens"),
    ("custom-list", row(custom=[1]), "custom"),
    ("end-before-start", row(start=2.0, end=1.0), "end"),
    ("bad-language", row(language="english (uk)"), "language"),
    ("unknown-field", row(langauge="en"), "langauge"),
    ("duplicate-key", b'{"id":"u2","id":"u3","audio":"a.wav","text":"","language":"en"}', "id"),
    ("duplicate-id", row(id="u1"), "id"),
    ("traversal", row(audio="../x.wav"), "audio"),
    ("traversal-inner", row(audio="a/../../x.wav"), "audio"),
    ("traversal-backslash", row(audio="a\\..\\..\\x.wav"), "audio"),
    ("absolute-posix", row(audio="/etc/passwd"), "audio"),
    ("absolute-windows", row(audio="C:\\data\\x.wav"), "audio"),
    ("unc-path", row(audio="\\\\server\\share\\x.wav"), "audio"),
    ("huge-text", row(text="a" * 100_001), "text"),
    ("huge-id", row(id="u" * 600), "id"),
]


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "m.jsonl"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("line2", "fld"), [c[1:] for c in BAD_SECOND_LINE], ids=[c[0] for c in BAD_SECOND_LINE]
)
def test_bad_row_raises_with_file_line_field(tmp_path: Path, line2: bytes, fld: str | None) -> None:
    path = write(tmp_path, GOOD_LINE + line2 + b"\n" + GOOD_LINE.replace(b"u1", b"u9"))
    seen: list[str] = []
    with pytest.raises(EarmarkError) as info:
        for utt in read_manifest(path):
            seen.append(utt.id)
    err = info.value
    assert err.file == str(path)
    assert err.line == 2
    assert err.field == fld
    assert err.hint or err.message
    assert str(path) in str(err) and ":2:" in str(err)
    # The valid first row was yielded before the error; nothing after it was.
    assert seen == ["u1"]


def test_line_over_byte_bound(tmp_path: Path) -> None:
    big = row(custom={"blob": "x" * 1_100_000})
    path = write(tmp_path, GOOD_LINE + big + b"\n")
    with pytest.raises(EarmarkError, match="longer than") as info:
        list(read_manifest(path))
    assert info.value.line == 2


def test_empty_file(tmp_path: Path) -> None:
    path = write(tmp_path, b"")
    with pytest.raises(EarmarkError, match="no rows") as info:
        list(read_manifest(path))
    assert (info.value.file, info.value.line) == (str(path), 1)
    assert list(read_manifest(path, allow_empty=True)) == []


def test_bom(tmp_path: Path) -> None:
    path = write(tmp_path, b"\xef\xbb\xbf" + GOOD_LINE)
    with pytest.raises(EarmarkError, match="byte-order mark") as info:
        list(read_manifest(path))
    assert info.value.line == 1


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(EarmarkError, match="not found"):
        list(read_manifest(tmp_path / "nope.jsonl"))


def test_full_row_round_trips(tmp_path: Path) -> None:
    utt = Utterance(
        id="fleurs-1",
        audio="zh/1.flac",
        text="今天天气很好，我们去公园。",
        language="zh-CN",
        speaker="spk7",
        slices=("zh", "numbers"),
        duration=3.25,
        sha256="a" * 64,
        source=Source(dataset="fleurs", config="cmn_hans_cn", split="test", licence="CC-BY-4.0"),
        text_id="1779",
        start=0.5,
        end=3.75,
        custom={"gender": "F", "nested": {"k": [1, 2]}},
    )
    path = write(tmp_path, (utt.to_json() + "\n").encode())
    assert list(read_manifest(path)) == [utt]


def test_empty_text_allowed_and_last_line_without_newline(tmp_path: Path) -> None:
    data = GOOD_LINE + json.dumps(dict(GOOD, id="silence", text="")).encode()
    rows = list(read_manifest(write(tmp_path, data)))
    assert [(r.id, r.text) for r in rows] == [("u1", "hello"), ("silence", "")]


def test_unicode_line_separator_inside_text_is_not_a_line_break(tmp_path: Path) -> None:
    text = "a\u2028b\u0085c"
    data = json.dumps(dict(GOOD, text=text), ensure_ascii=False).encode() + b"\n"
    assert [r.text for r in read_manifest(write(tmp_path, data))] == [text]


def test_reading_is_lazy(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_LINE + b"garbage\n")
    rows = read_manifest(path)
    assert next(rows).id == "u1"  # the broken line 2 has not been read yet
    with pytest.raises(EarmarkError):
        next(rows)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_fuzzed_bytes_never_drop_rows_silently(tmp_path: Path, data: st.DataObject) -> None:
    """Any byte mutation of a valid manifest either raises EarmarkError or yields one row
    per line: never another exception, never fewer rows."""
    lines = [json.dumps(dict(GOOD, id=f"u{i}", audio=f"a/{i}.wav")).encode() for i in range(4)]
    blob = bytearray(b"\n".join(lines) + b"\n")
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(blob) - 1))
        action = data.draw(st.sampled_from(["flip", "delete", "insert"]))
        byte = data.draw(st.integers(0, 255))
        if action == "flip":
            blob[pos] = byte
        elif action == "delete":
            del blob[pos]
        else:
            blob.insert(pos, byte)
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(bytes(blob))
    try:
        rows = list(read_manifest(path))
    except EarmarkError as exc:
        assert exc.file == str(path) and exc.line is not None
        return
    expected = bytes(blob).count(b"\n") + (0 if bytes(blob).endswith(b"\n") else 1)
    assert len(rows) == expected


@pytest.mark.parametrize("value", [["CC0"], {"id": "CC0"}, 3, ""])
def test_source_values_must_be_strings(tmp_path: Path, value: object) -> None:
    path = write(tmp_path, GOOD_LINE + row(source={"dataset": "d", "licence": value}) + b"\n")
    with pytest.raises(EarmarkError) as info:
        list(read_manifest(path))
    assert (info.value.line, info.value.field) == (2, "source.licence")


def test_shared_source_objects_are_equal_values(tmp_path: Path) -> None:
    src = {"dataset": "d", "split": "test"}
    data = GOOD_LINE.replace(b"}", b', "source": ' + json.dumps(src).encode() + b"}") + row(
        source=src
    )
    a, b = read_manifest(write(tmp_path, data))
    assert a.source == b.source == Source(dataset="d", split="test")
