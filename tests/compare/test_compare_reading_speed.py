"""What issue 25's faster compare keeps exact: rows read by orjson (floats included) are
the rows `json` reads, hostile lines take the careful path with the same errors, arms
share one copy of each equal text, and any number of worker groups gives the same
compare.json."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest
from compare_fixtures import write_rows

from earmark.comparison.api import _groups
from earmark.comparison.inputs import take
from earmark.comparison.loading import ROW_COLUMNS, ArmData, PreparedRows
from earmark.comparison.pairing import align_arms
from earmark.errors import EarmarkError
from earmark.file_comparison import compare
from earmark.records import json_objects, read_records
from earmark.rundir.arm_inputs import load_arm_specs, load_arms


def test_row_columns_are_every_per_row_field_of_an_arm() -> None:
    """`ROW_COLUMNS` (what the reader compares, releases, appends and sends) is every
    field of `ArmData` but its name, source, recorded summary and private indexes, and
    `PreparedRows` carries each of them: a new column cannot be forgotten."""
    per_row = {f.name for f in fields(ArmData)} - {"name", "source", "recorded"}
    assert set(ROW_COLUMNS) == {name for name in per_row if not name.startswith("_")}
    assert set(ROW_COLUMNS) <= {f.name for f in fields(PreparedRows)}


def _careful(path: Path) -> ArmData:
    """The arm as `json_objects` alone reads it (the reader before issue 25)."""
    arm = ArmData(name="x", source=str(path))
    for line, record in json_objects(read_records(path), str(path)):
        arm.add(record, str(path), line)
    return arm


def test_rows_with_floats_and_big_integers_read_as_json_reads_them(tmp_path: Path) -> None:
    lines = [
        '{"id": "a", "reference": "x y", "hypothesis": "x", "audio_seconds": 0.1}',
        '{"id": "b", "reference": "x", "hypothesis": null, "duration": 2.5e0, "conf": 1e30}',
        # A 31-digit integer is a float to orjson and an int to json: `repeat` keeps json's.
        '{"id": "c", "repeat": 1000000000000000000000000000000, "reference": "x", '
        '"hypothesis": "x", "slices": ["s1", "s2"], "audio_seconds": 7}',
        '{"id": "d", "reference": "x", "hypothesis": "x", "audio_seconds": NaN}',
        "",
        '{"id": "e", "reference": "x", "hypothesis": "x", "slices": "a;b", "n": [1, 2.0]}',
        '{"id": "f", "reference": "x", "hypothesis": "x", "audio_seconds": 1e400}',
    ]
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    (fast,) = load_arms(str(path))
    slow = _careful(path)
    for column in ROW_COLUMNS:
        got, want = getattr(fast, column), getattr(slow, column)
        assert repr(got) == repr(want), column
    assert fast.keys[2] == ("c", 10**30)
    assert fast.audio_seconds[:3] == [0.1, 2.5, 7.0]
    assert fast.audio_seconds[5] == float("inf")  # json reads 1e400 as inf, as before


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"id": "a", "reference": "x", "hypothesis": "\\ud800"}', "hypothesis"),
        ('{"id": "a", "reference": "x", "hypothesis": "x", "repeat": 1.5}', "repeat"),
        ('{"id": "a", "reference": "x", "hypothesis": "x", "repeat": 1e30}', "repeat"),
        ('{"id": "a", "reference": 2.5, "hypothesis": "x"}', "reference"),
        ('{"id": "a", "reference": "x", "slices": [1.5]}', "slices"),
    ],
)
def test_hostile_rows_give_the_careful_error(tmp_path: Path, line: str, field: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "z", "reference": "x", "hypothesis": "x"}\n' + line + "\n", "utf-8")
    with pytest.raises(EarmarkError) as fast:
        load_arms(str(path))
    with pytest.raises(EarmarkError) as slow:
        _careful(path)
    assert (fast.value.line, fast.value.field) == (2, field)
    assert str(fast.value) == str(slow.value)


def test_invalid_json_and_duplicates_keep_their_messages(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "reference": "x"\n', "utf-8")
    with pytest.raises(EarmarkError, match="invalid JSON") as info:
        load_arms(str(bad))
    assert info.value.line == 1
    dup = write_rows(
        tmp_path / "dup.jsonl",
        [{"id": "a", "reference": "x", "hypothesis": "x"}, {"id": "b", "reference": "x"}]
        + [{"id": "a", "reference": "y", "hypothesis": "x"}],
    )
    with pytest.raises(
        EarmarkError, match=r"repeat 0 in arm 'dup' \(first on line 1\)"
    ) as dup_info:
        load_arms(dup)
    assert dup_info.value.line == 3


def test_arms_share_one_copy_of_each_equal_value(tmp_path: Path) -> None:
    rows = [
        {"id": f"u{i}", "reference": f"ref {i}", "hypothesis": f"hyp {i}", "slices": ["s"]}
        for i in range(3)
    ]
    a = write_rows(tmp_path / "a.jsonl", rows)
    b = write_rows(tmp_path / "b.jsonl", rows)
    arms = load_arm_specs([a, b])
    first, second = arms["a"], arms["b"]
    assert first.references == second.references
    assert all(x is y for x, y in zip(first.references, second.references, strict=True))
    assert all(x is y for x, y in zip(first.hypotheses, second.hypotheses, strict=True))
    assert all(x is y for x, y in zip(first.keys, second.keys, strict=True))
    assert first.slices[0] is second.slices[2]
    first.release_rows()
    assert (len(first), first.references, dict(first.index())) == (0, [], {})
    assert first.name == "a" and second.references[0] == "ref 0"


def test_groups_split_the_challengers_and_put_the_reference_last() -> None:
    names = ["r", "a", "b", "c", "d", "e"]
    assert _groups(names, "r", 1) == [["r", "a", "b", "c", "d", "e"]]
    assert _groups(names, "r", 2) == [["a", "b", "c"], ["r", "d", "e"]]
    assert _groups(names, "c", 4) == [["r", "a"], ["b"], ["d"], ["c", "e"]]
    assert _groups(["r"], "r", 8) == [["r"]]
    assert _groups(["r", "a"], "r", 8) == [["r", "a"]]


def test_any_number_of_groups_gives_the_same_comparison(tmp_path: Path) -> None:
    refs = {f"u{i}": f"the cat sat on the mat number {i} today" for i in range(40)}
    files = []
    for a in range(5):
        hyps = {
            k: (v if (i + a) % 4 else v.replace("cat", "hat") + (" extra" * a))
            for i, (k, v) in enumerate(refs.items())
        }
        hyps["u3"] = None if a == 2 else hyps["u3"]
        seconds = {k: 1.0 + i * 0.25 for i, k in enumerate(refs)}
        rows = [
            {
                "id": k,
                "reference": refs[k],
                "hypothesis": h,
                "audio_seconds": seconds[k],
                "language": "en" if i % 3 else "de",
            }
            for i, (k, h) in enumerate(hyps.items())
        ]
        files.append(write_rows(tmp_path / f"arm{a}.jsonl", rows))
    runs = [
        compare(files, normalizer="crude-v1", reference="arm2", resamples=60, seed=5, jobs=j)
        for j in (1, 2, 3, 5)
    ]
    dumps = []
    for run in runs:
        data = run.to_dict()
        data.pop("created")
        dumps.append(json.dumps(data, sort_keys=False))
    assert dumps[1:] == dumps[:1] * 3
    first = json.loads(dumps[0])
    assert first["n_shared"] == 40 and len(first["pairs"]) == 4 * 2 * 3


def test_the_first_bad_row_of_a_multi_arm_file_raises_first(tmp_path: Path) -> None:
    """Rows are added a block at a time per arm; a bad row anywhere makes the block go
    row by row in file order, so the error is the first one in the file, whatever arm."""
    rows: list[dict[str, object]] = []
    for i in range(5000):
        for arm in ("a", "b"):
            rows.append({"arm": arm, "id": f"u{i}", "reference": "x", "hypothesis": "x"})
    rows[4001] = {"arm": "b", "id": "u2000", "reference": 1, "hypothesis": "x"}
    rows[4002] = {"arm": "a", "id": "u2001", "reference": "x", "slices": 5}
    path = write_rows(tmp_path / "run.jsonl", rows)
    with pytest.raises(EarmarkError) as info:
        load_arms(path)
    assert (info.value.line, info.value.field) == (4002, "reference")
    rows[4001] = {"arm": "b", "id": "u2000", "reference": "x", "hypothesis": "x"}
    path = write_rows(tmp_path / "run.jsonl", rows)
    with pytest.raises(EarmarkError) as info:
        load_arms(path)
    assert (info.value.line, info.value.field) == (4003, "slices")
    rows[4002] = {"arm": "a", "id": "u2001", "reference": "x", "hypothesis": "x"}
    fine = load_arms(write_rows(tmp_path / "run.jsonl", rows))
    assert [len(arm) for arm in fine] == [5000, 5000]
    assert fine[1].keys[4999] == ("u4999", 0) and fine[0].index()[("u2001", 0)] == 2001


def test_zero_durations_keep_their_sign(tmp_path: Path) -> None:
    """Equal durations are shared, but 0.0 and -0.0 are equal and written differently."""
    rows = [
        {"id": f"u{i}", "reference": "x", "hypothesis": "x", "audio_seconds": v}
        for i, v in enumerate([0.0, -0.0, 1.5, 1.5, -0.0])
    ]
    a = write_rows(tmp_path / "a.jsonl", rows)
    b = write_rows(tmp_path / "b.jsonl", rows[::-1])
    arms = load_arm_specs([a, b])
    assert [repr(s) for s in arms["a"].audio_seconds] == ["0.0", "-0.0", "1.5", "1.5", "-0.0"]
    assert [repr(s) for s in arms["b"].audio_seconds] == ["-0.0", "1.5", "1.5", "-0.0", "0.0"]
    assert arms["a"].audio_seconds[2] is arms["b"].audio_seconds[1]


@pytest.mark.parametrize(
    "line",
    [
        '{"id": "a", "reference": "x", "hypothesis": "x", "extra": '
        + "[" * 5000
        + "]" * 5000
        + "}",
        '{"id": "a", "reference": "x", "hypothesis": "x", "extra": ' + "[" * 900 + "]" * 900 + "}",
        '{"id": "a\\u0000b", "reference": "x\\u0000", "hypothesis": "x"}',
        '{"id": "a", "reference": "x", "hypothesis": "x", "n": 1' + "0" * 5000 + "}",
        '{"id": "a", "reference": "x", "hypothesis": "x", "id": "b"}',
        '["not", "an", "object"]',
    ],
)
def test_nested_nul_huge_and_odd_rows_read_as_the_careful_reader(tmp_path: Path, line: str) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text(line + "\n", "utf-8")
    try:
        (fast,) = load_arms(str(path))
    except EarmarkError as exc:
        with pytest.raises(EarmarkError) as slow:
            _careful(path)
        assert (str(exc), exc.line, exc.field) == (
            str(slow.value),
            slow.value.line,
            slow.value.field,
        )
        return
    slow = _careful(path)
    for column in ROW_COLUMNS:
        assert repr(getattr(fast, column)) == repr(getattr(slow, column)), column


def test_a_record_over_the_bound_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    big = '{"id": "b", "reference": "' + "x" * (1 << 20) + '", "hypothesis": "x"}'
    path.write_text('{"id": "a", "reference": "x", "hypothesis": "x"}\n' + big + "\n", "utf-8")
    with pytest.raises(EarmarkError, match="record longer than") as info:
        load_arms(str(path))
    assert info.value.line == 2


def _hostile_arm_rows(i: int) -> list[dict[str, object]]:
    """Rows of arm `i`: shared and own texts, repeats, clips, durations 0.0 and -0.0,
    slices, missing hypotheses, a language flag and an arm field of a multi-arm file."""
    rows: list[dict[str, object]] = []
    for u in range(6):
        rows.append(
            {
                "id": f"u{u}",
                "repeat": u % 2,
                "reference": f"ref {u} \u00e9",
                "hypothesis": None if u == i else f"hyp {u}" + ("" if u % 3 else f" {i}"),
                "language": ["en", "", None][u % 3],
                "slices": [["s"], [], "a;b"][u % 3],
                "audio_seconds": [1.5, 0.0, -0.0, None, 2, 1.5][u],
                "clip": f"c{u // 2}" if u < 4 else None,
                "status": "ok" if u % 2 else None,
                "language_mismatch": u == 5,
            }
        )
    return rows


def test_arms_read_in_workers_are_the_arms_read_here(tmp_path: Path) -> None:
    specs = [write_rows(tmp_path / f"arm{i}.jsonl", _hostile_arm_rows(i)) for i in range(4)]
    multi = tmp_path / "multi.jsonl"
    write_rows(multi, [{**r, "arm": name} for name in ("m1", "m2") for r in _hostile_arm_rows(9)])
    specs += [str(multi), f"other={specs[0]}"]
    serial, forked = load_arm_specs(specs), load_arm_specs(specs, jobs=3)
    assert list(serial) == list(forked) == ["arm0", "arm1", "arm2", "arm3", "m1", "m2", "other"]
    for name, arm in serial.items():
        other = forked[name]
        for column in ROW_COLUMNS:
            assert repr(getattr(other, column)) == repr(getattr(arm, column)), (name, column)
        assert dict(other.index()) == dict(arm.index())
        assert other.source == arm.source
    # One copy of each equal value across the arms, as when read in one process.
    first, second = forked["arm0"], forked["arm1"]
    assert all(x is y for x, y in zip(first.references, second.references, strict=True))
    assert all(x is y for x, y in zip(first.keys, second.keys, strict=True))
    assert first.hypotheses[2] is second.hypotheses[2] == "hyp 2"
    assert first.slices[2] is second.slices[2]
    assert first.clusters[4] is first.keys[4][0]


def test_arms_patched_onto_a_workers_first_arm_are_the_arms_read_here(tmp_path: Path) -> None:
    """A worker sends its later arms as the rows where they differ from its first one
    (`ArmData.for_transfer`): rows reordered, ids, clips, a duration 0.0 where the first
    has -0.0 (equal, written differently), None where it has a text, and an arm of
    another length all arrive as read here."""
    rows = _hostile_arm_rows(0)
    variants = [
        rows,
        rows[::-1],
        [
            {**r, "audio_seconds": 0.0 if r["audio_seconds"] == 0 else r["audio_seconds"]}
            for r in rows
        ],
        [{**r, "id": f"v{k}", "clip": None} for k, r in enumerate(rows)],
        [{**r, "hypothesis": None, "language": "fr", "language_mismatch": True} for r in rows],
        [{**r, "slices": ["t"], "status": "failed"} for r in rows],
        rows[:4],
        rows,
    ]
    specs = [write_rows(tmp_path / f"v{i}.jsonl", v) for i, v in enumerate(variants)]
    serial, forked = load_arm_specs(specs), load_arm_specs(specs, jobs=2)
    assert list(serial) == list(forked)
    for name, arm in serial.items():
        other = forked[name]
        for column in ROW_COLUMNS:
            assert repr(getattr(other, column)) == repr(getattr(arm, column)), (name, column)
        assert dict(other.index()) == dict(arm.index())
        assert list(other._lines) == list(arm._lines)
    first, last = forked["v0"], forked["v7"]
    assert all(x is y for x, y in zip(first.references, last.references, strict=True))
    assert all(x is y for x, y in zip(first.keys, last.keys, strict=True))


def test_workers_raise_the_error_reading_in_order_raises(tmp_path: Path) -> None:
    good = write_rows(tmp_path / "good.jsonl", _hostile_arm_rows(0))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "u0", "reference": "x", "hypothesis": "x"}\n{"id": \n', "utf-8")
    missing = str(tmp_path / "missing.jsonl")
    for specs in ([good, str(bad), missing], [good, good, str(bad)], [good, missing, str(bad)]):
        with pytest.raises(EarmarkError) as serial:
            load_arm_specs(specs)
        with pytest.raises(EarmarkError) as forked:
            load_arm_specs(specs, jobs=2)
        assert str(forked.value) == str(serial.value)
        assert forked.value.line == serial.value.line


@pytest.mark.parametrize(
    "slices",
    ['[["a"]]', '[{"a": 1}]', '["a", ["b"]]', "[1]", '{"a": 1}', '["a", null]'],
)
def test_slices_holding_lists_or_objects_are_a_one_line_error(tmp_path: Path, slices: str) -> None:
    """A list of lists once crashed the column-wise reader (unhashable); it is the
    row's own error, on the careful path (NaN) and the fast one alike."""
    for extra in (', "conf": NaN', ""):
        path = tmp_path / "x.jsonl"
        good = '{"id": "a", "reference": "x", "hypothesis": "x", "slices": ["s"]}\n'
        bad = f'{{"id": "b", "reference": "x", "hypothesis": "x", "slices": {slices}{extra}}}\n'
        path.write_text(good + bad, "utf-8")
        with pytest.raises(EarmarkError) as info:
            load_arms(str(path))
        assert (info.value.line, info.value.field) == (2, "slices")
        assert "expected a list of strings" in str(info.value)


def _row(i: int, **extra: object) -> str:
    return json.dumps({"id": f"u{i}", "reference": "a b", "hypothesis": "a", **extra})


_GOOD = [_row(i, audio_seconds=1.5, slices=["s"]) for i in range(5)]


@pytest.mark.parametrize(
    "content",
    [
        b"\xef\xbb\xbf" + "\n".join(_GOOD).encode() + b"\n",  # a byte-order mark
        "\r\n".join(_GOOD).encode() + b"\r\n",  # CRLF
        "\n".join(_GOOD).encode(),  # no final newline
        ("\n".join(_GOOD[:2]) + "\n\n  \n" + "\n".join(_GOOD[2:]) + "\n").encode(),  # blanks
        ("\n".join(_GOOD) + "\n" + _row(9, x=1e400) + "\n").encode(),  # json's inf
        ("\n".join(_GOOD) + "\n" + _row(9, x=[[1]] * 3) + "\n").encode(),
        ("\n".join(_GOOD) + "\n" + _row(9, x={"deep": [1]}) + "\n").encode(),
        (
            "\n".join(_GOOD) + "\n" + '{"id": "z", "reference": "\\ud800", "hypothesis": ""}\n'
        ).encode(),
        ("\n".join(_GOOD) + "\n").encode()
        + b'{"id": "z\xff", "reference": "", "hypothesis": ""}\n',
        ("\n".join(_GOOD) + "\n").encode()
        + b'{"id": "z\x00", "reference": "", "hypothesis": ""}\n',
        ("\n".join(_GOOD) + '\n[1, 2]\n"text"\n').encode(),
        ("\n".join(_GOOD) + "\n" + _row(9, repeat=10**30) + "\n").encode(),
        ("\n".join(_GOOD) + "\n" + _row(9, repeat=1.0) + "\n").encode(),
        ("\n".join(_GOOD) + "\n" + _row(2) + "\n").encode(),  # a duplicate id
        ("\n".join(_GOOD) + "\n" + "x" * 300 + "\n").encode(),  # over the record limit
        ("\n".join(_GOOD) + "\n" + _row(9, n=[1] * 100) + "\n").encode(),  # over it too
        ("[" * 3000 + "]" * 3000 + "\n").encode(),  # deep nesting
    ],
)
def test_hostile_files_read_as_json_reads_them_line_by_line(
    tmp_path: Path, content: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EARMARK_MAX_RECORD_BYTES", "260")
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    try:
        slow = _careful(path)
    except EarmarkError as exc:
        with pytest.raises(EarmarkError) as fast_error:
            load_arms(str(path))
        assert (str(fast_error.value), fast_error.value.line) == (str(exc), exc.line)
        return
    (fast,) = load_arms(str(path))
    for column in ROW_COLUMNS:
        assert repr(getattr(fast, column)) == repr(getattr(slow, column)), column


def test_the_first_error_past_a_block_of_lines_is_the_one_reading_in_order_gives(
    tmp_path: Path,
) -> None:
    """Rows are added a block at a time: a bad row in the first 4096 and bad JSON after
    them raise what reading line by line raises (the block of rows is checked first),
    blank lines shifting rows against lines included."""
    rows = [_row(i) for i in range(5000)]
    rows[3] = _row(1)  # a duplicate id among the first 4096 rows
    for blanks, bad_line in ((0, 4200), (20, 4100), (20, 4110)):
        lines = [""] * blanks + rows
        lines[bad_line - 1] = "{not json"
        path = tmp_path / f"x{blanks}-{bad_line}.jsonl"
        path.write_text("\n".join(lines) + "\n", "utf-8")
        with pytest.raises(EarmarkError) as slow:
            _careful_blocks(path)
        with pytest.raises(EarmarkError) as fast:
            load_arms(str(path))
        assert (str(fast.value), fast.value.line) == (str(slow.value), slow.value.line)


def _careful_blocks(path: Path) -> None:
    """How the reader before the block reader raised: rows added 4096 at a time."""
    arm, pending = ArmData(name=path.stem, source=str(path)), []
    for line, record in json_objects(read_records(path), str(path)):
        pending.append((line, record))
        if len(pending) == 4096:
            for at, row in pending:
                arm.add(row, str(path), at)
            pending = []
    for at, row in pending:
        arm.add(row, str(path), at)


def test_arms_holding_the_same_rows_pair_every_row_in_place(tmp_path: Path) -> None:
    rows = [{"id": f"u{i}", "reference": f"r{i}", "hypothesis": "h"} for i in range(4)]
    same = [write_rows(tmp_path / f"{n}.jsonl", rows) for n in ("a", "b")]
    shuffled = write_rows(tmp_path / "c.jsonl", [rows[2], rows[0], rows[3], rows[1]])
    other_ref = write_rows(tmp_path / "d.jsonl", [*rows[:3], {**rows[3], "reference": "x"}])
    fast = align_arms(load_arm_specs(same), "a")
    assert (fast.keys, fast.positions, fast.unpaired) == (
        [(f"u{i}", 0) for i in range(4)],
        {"a": [0, 1, 2, 3], "b": [0, 1, 2, 3]},
        [],
    )
    moved = align_arms(load_arm_specs([*same, shuffled]), "a")
    assert moved.keys == fast.keys and moved.unpaired == []
    assert moved.positions["c"] == [1, 3, 0, 2]
    differ = align_arms(load_arm_specs([*same, other_ref]), "a")
    assert differ.keys == fast.keys[:3]
    assert [u["arm"] for u in differ.unpaired] == ["a", "b", "d"]
    assert take(["x", "y"], [0, 1]) == ["x", "y"] and take(["x", "y"], [1, 0]) == ["y", "x"]
