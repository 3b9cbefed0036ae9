"""Messages that say what is wrong (issue 26), read from the real CLI in its own process.

The exact line is the point: a missing manifest is named as the manifest (not its sidecar),
a file whose columns are named otherwise lists the columns found and the flags that map
them, an importer's text column can be named, output paths have no `//`, an alignment
without a language is labelled `und`, and the demo's commands are never wrapped (the demo
itself, at 80 columns, in tests/run/test_run_demo_golden.py).
"""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path

import pytest
from rich.console import Console

from cli_process import earmark, one_error_line
from earmark.cli.arguments import tidy_path
from earmark.formats.fields import FieldNames, column_list, mapping_hint
from earmark.render.demo_table import demo_markdown, legend, print_demo_table

EXAMPLE_RUN = Path(__file__).parent / "report" / "data" / "example-run"

MANIFEST_HINT = "(hint: check the path to the .jsonl manifest)"
MAPPING_FLAGS = "name them with --id-field, --reference-field, --hypothesis-field, --language-field"


# --------------------------------------------------------------------------- a missing manifest


@pytest.mark.parametrize(
    "command",
    [
        ("manifest", "select", "{m}", "--first", "1", "--out", "{d}/x.jsonl"),
        ("manifest", "hash", "{m}"),
        ("manifest", "validate", "{m}"),
        ("run", "--manifest", "{m}", "--arm", "faster-whisper:tiny", "--out", "{d}/run"),
    ],
)
def test_a_missing_manifest_is_named_as_the_manifest(tmp_path: Path, command: tuple[str]) -> None:
    manifest = tmp_path / "nope.jsonl"
    args = [a.format(m=manifest, d=tmp_path) for a in command]
    done = earmark(*args)
    assert done.returncode == 2
    assert (
        one_error_line(done.stderr)
        == f"earmark: error: {manifest}: manifest not found {MANIFEST_HINT}"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written


@pytest.mark.parametrize("verb", ["select", "run"])
def test_the_sidecar_is_spoken_of_only_when_the_manifest_exists(tmp_path: Path, verb: str) -> None:
    manifest = tmp_path / "m.jsonl"
    manifest.write_text('{"id": "a", "audio": "a.wav", "text": "x", "language": "en"}\n')
    args = (
        ["manifest", "select", str(manifest), "--first", "1", "--out", str(tmp_path / "x.jsonl")]
        if verb == "select"
        else ["run", "--manifest", str(manifest), "--arm", "faster-whisper:tiny",
              "--out", str(tmp_path / "run")]
    )  # fmt: skip
    line = one_error_line(earmark(*args).stderr)
    assert line.startswith(
        f"earmark: error: {manifest}.meta.json: manifest has no metadata sidecar"
    )


# --------------------------------------------------------------------------- columns named otherwise


def _nemo_rows(path: Path) -> Path:
    rows = [
        {
            "audio_filepath": "a.wav",
            "text": "hello world",
            "pred_text": "hello word",
            "duration": 1.0,
        }
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_nemo_jsonl_lists_its_columns_and_the_mapping(tmp_path: Path) -> None:
    path = _nemo_rows(tmp_path / "nemo.jsonl")
    done = earmark("score", str(path), "--out", str(tmp_path / "o"), "--normalizer", "none")
    assert done.returncode == 2
    assert one_error_line(done.stderr) == (
        f"earmark: error: {path}:1: field 'id': missing field; columns found: audio_filepath, "
        f"text, pred_text, duration (hint: {MAPPING_FLAGS}; here perhaps --id-field "
        "audio_filepath --reference-field text --hypothesis-field pred_text)"
    )
    assert not (tmp_path / "o").exists()


def test_a_csv_lists_its_header_and_the_suggested_mapping_scores(tmp_path: Path) -> None:
    path = tmp_path / "nemo.csv"
    path.write_text("audio_filepath,text,pred_text\na.wav,hello world,hello word\n")
    done = earmark("score", str(path), "--out", str(tmp_path / "o"), "--normalizer", "none")
    assert one_error_line(done.stderr) == (
        f"earmark: error: {path}:2: field 'id': missing field; columns found: audio_filepath, "
        f"text, pred_text (hint: {MAPPING_FLAGS}; here perhaps --id-field audio_filepath "
        "--reference-field text --hypothesis-field pred_text)"
    )
    # The suggested mapping, typed as given, scores: "hello word" vs "hello world" is one
    # substitution in two reference words.
    done = earmark(
        "score", str(path), "--out", str(tmp_path / "o"), "--normalizer", "none",
        "--id-field", "audio_filepath", "--reference-field", "text",
        "--hypothesis-field", "pred_text",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "o" / "results.json").read_text("utf-8"))
    wer = results["arms"]["nemo"]["overall"]["views"]["raw"]["wer"]
    assert (wer["value"], wer["substitutions"], wer["ref_units"]) == (0.5, 1, 2)


def test_the_suggestion_leaves_out_what_is_already_mapped() -> None:
    record = {"audio_filepath": "a", "text": "r", "pred_text": "h"}
    hint = mapping_hint(record, FieldNames(reference="text"))
    assert (
        hint
        == f"{MAPPING_FLAGS}; here perhaps --id-field audio_filepath --hypothesis-field pred_text"
    )
    # Nothing recognisable: the flags alone, no guess.
    assert mapping_hint({"a": "1", "b": "2"}, FieldNames()) == MAPPING_FLAGS
    # Common Voice's names.
    cv = {"path": "x.mp3", "sentence": "s", "locale": "ga-IE"}
    assert mapping_hint(cv, FieldNames()) == (
        f"{MAPPING_FLAGS}; here perhaps --id-field path --reference-field sentence "
        "--language-field locale"
    )


def test_a_null_field_keeps_the_short_message(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": null, "reference": "r", "hypothesis": "h"}\n')
    done = earmark("score", str(path), "--out", str(tmp_path / "o"), "--normalizer", "none")
    assert one_error_line(done.stderr) == f"earmark: error: {path}:1: field 'id': missing field"


# Hostile column names: the error is still one bounded, printable line.
@pytest.mark.parametrize(
    ("names", "shown"),
    [
        (["a\nb", "c"], "'a\\nb', c"),
        (["nul\x00x"], "'nul\\x00x'"),
        (["\ud800"], "'\\ud800'"),
        ([""], "''"),
        ([" padded "], "' padded '"),
        (["<script>alert(1)</script>"], "<script>alert(1)</script>"),
        (["x" * 5000], "x" * 39 + "…"),
        (
            [f"c{i}" for i in range(10_000)],
            ", ".join(f"c{i}" for i in range(12)) + " and 9988 more",
        ),
    ],
)
def test_hostile_column_names_are_listed_on_one_bounded_line(names: list[str], shown: str) -> None:
    assert column_list(names) == shown


def test_a_huge_hostile_header_gives_one_short_line(tmp_path: Path) -> None:
    record = {f"col{i}\n": "v" for i in range(50_000)}
    record["<b>x</b>"] = "v"  # (a lone surrogate in a key is refused before: its own error)
    path = tmp_path / "wide.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    done = earmark("score", str(path), "--out", str(tmp_path / "o"), "--normalizer", "none")
    line = one_error_line(done.stderr)
    assert line.startswith(
        f"earmark: error: {path}:1: field 'id': missing field; columns found: 'col0\\n'"
    )
    assert line.endswith(f"and 49989 more (hint: {MAPPING_FLAGS})")
    assert len(line) < 600


# --------------------------------------------------------------------------- importers' text column


def _nemo_manifest(folder: Path, text_key: str) -> Path:
    folder.mkdir()
    (folder / "a.wav").write_bytes(b"RIFF")
    manifest = folder / "m.json"
    manifest.write_text(
        json.dumps({"audio_filepath": "a.wav", text_key: "hello", "duration": 1.0}) + "\n"
    )
    return manifest


def test_import_nemo_names_the_text_field(tmp_path: Path) -> None:
    manifest = _nemo_manifest(tmp_path / "nm", "transcript")
    out = tmp_path / "out.jsonl"
    base = ["import", "nemo", str(manifest), "--out", str(out), "--language", "en",
            "--licence", "MIT", "--consent", "fixture"]  # fmt: skip
    assert one_error_line(earmark(*base).stderr) == (
        f"earmark: error: {manifest}:1: field 'text': required field missing; fields found: "
        "audio_filepath, transcript, duration (hint: name the reference text's field with "
        "--text-column)"
    )
    assert not out.exists()
    done = earmark(*base, "--text-column", "transcript")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [(r["id"], r["text"]) for r in rows] == [("a", "hello")]


def test_import_common_voice_names_the_text_column(tmp_path: Path) -> None:
    folder = tmp_path / "ga-IE"
    (folder / "clips").mkdir(parents=True)
    (folder / "clips" / "c1.mp3").write_bytes(b"ID3")
    tsv = folder / "test.tsv"
    tsv.write_text("client_id\tpath\ttranscription\nspk\tc1.mp3\tDia dhuit\n", encoding="utf-8")
    out = tmp_path / "cv.jsonl"
    base = ["import", "common-voice", str(folder), "--out", str(out)]
    assert one_error_line(earmark(*base).stderr) == (
        f"earmark: error: {tsv}:1: field 'sentence': required column missing from the header "
        "(found: client_id, path, transcription) (hint: name the reference text's column with "
        "--text-column)"
    )
    done = earmark(*base, "--text-column", "transcription")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [(r["id"], r["text"], r["speaker"]) for r in rows] == [("c1", "Dia dhuit", "spk")]


def test_a_source_without_a_text_column_refuses_the_flag(tmp_path: Path) -> None:
    done = earmark("import", "kaldi", str(tmp_path), "--out", str(tmp_path / "k.jsonl"),
                   "--text-column", "x")  # fmt: skip
    assert one_error_line(done.stderr) == (
        "earmark: error: field 'text_column': --text-column does not apply to source 'kaldi'"
    )


def test_import_hf_datasets_names_the_text_column(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets", reason="needs the datasets extra")
    ds = datasets.Dataset.from_dict(
        {"sentence": ["Dia dhuit"], "audio": [{"bytes": b"RIFF....", "path": "a.wav"}]}
    )
    datasets.DatasetDict({"test": ds}).save_to_disk(str(tmp_path / "saved"))
    out = tmp_path / "hf.jsonl"
    base = ["import", "hf-datasets", str(tmp_path / "saved"), "--out", str(out),
            "--language", "ga", "--licence", "MIT", "--consent", "fixture"]  # fmt: skip
    assert one_error_line(earmark(*base).stderr) == (
        f"earmark: error: {tmp_path / 'saved'}: field 'text': column missing; columns found: "
        "sentence, audio (hint: name the reference text's column with --text-column)"
    )
    done = earmark(*base, "--text-column", "sentence")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [(r["id"], r["text"]) for r in rows] == [("a", "Dia dhuit")]


# --------------------------------------------------------------------------- paths and labels


@pytest.mark.parametrize(
    ("typed", "tidy"),
    [
        ("d", "d"),
        ("d/", "d"),
        ("d//", "d"),
        ("a//b///", "a/b"),
        ("/", "/"),
        ("//", "/"),
        ("/tmp//x/", "/tmp/x"),
        ("./d/", "./d"),
    ],
)
def test_output_paths_lose_repeated_and_trailing_slashes(typed: str, tidy: str) -> None:
    assert tidy_path(typed) == tidy


def test_score_prints_its_output_paths_without_a_double_slash(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "a", "reference": "hello world", "hypothesis": "hello word"}\n')
    done = earmark("score", str(path), "--out", f"{tmp_path}/o//", "--normalizer", "none",
                   "--show-alignments", "1")  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == f"wrote {tmp_path}/o/results.json, predictions.jsonl, results.md"
    assert "//" not in done.stdout
    # A row without a language is aligned under the scope the table names it by, `und`.
    at = lines.index("a (und, raw)")
    assert lines[at + 1 : at + 4] == ["REF: hello world", "HYP: hello word", "           S"]
    assert "None" not in done.stdout


# --------------------------------------------------------------------------- the demo's notes


def _demo_text(width: int) -> str:
    results = json.loads((EXAMPLE_RUN / "results.json").read_text("utf-8"))
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    print_demo_table(results, console=console)
    return console.export_text()


@pytest.mark.parametrize("width", [80, 120])
def test_the_demo_prints_its_commands_whole_on_lines_of_their_own(width: int) -> None:
    lines = _demo_text(width).splitlines()
    assert [line for line in lines if len(line.rstrip()) > width] == []
    at = lines.index("  earmark run --manifest MANIFEST.jsonl --out runs/small \\")
    assert lines[at + 1] == (
        "    --arm 'faster-whisper:/path/to/whisper-small?compute_type=int8&beam_size=5'"
    )
    assert lines[-1] == "  earmark engines"
    # The two lines are one shell command: the continuation joins them to the command.
    joined = shlex.split(lines[at].rstrip("\\") + lines[at + 1])
    assert joined == [
        "earmark", "run", "--manifest", "MANIFEST.jsonl", "--out", "runs/small", "--arm",
        "faster-whisper:/path/to/whisper-small?compute_type=int8&beam_size=5",
    ]  # fmt: skip


def test_the_demo_table_has_a_legend_under_it() -> None:
    text = " ".join(_demo_text(80).split())  # prose wraps: compare it unwrapped
    assert (
        "n/a (characters): WER is not computed: the normaliser scores characters only "
        "(Mandarin is written without spaces between words); read CER"
    ) in text
    assert (
        "runaway / loops: outputs more than twice as long as the reference / outputs where "
        "one stretch of words or characters repeats 4 or more times back to back"
    ) in text
    assert "output on no-speech: no-speech clips that got any output / no-speech clips" in text


def test_the_readme_carries_the_demo_legend() -> None:
    results = json.loads((EXAMPLE_RUN / "results.json").read_text("utf-8"))
    legend_block = demo_markdown(results).split("\n\n", 1)[1]
    assert legend_block.startswith("- `n/a (characters)`: WER is not computed")
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")
    assert legend_block in readme


def test_a_table_without_a_characters_row_has_no_characters_legend() -> None:
    rows = [{"WER [95% CI]": "1.00% [0.50, 2.00]"}]
    assert [term for term, _ in legend(rows)] == ["output on no-speech", "runaway / loops"]


@pytest.mark.parametrize("column", ["", "a\nb", "<script>x</script>", "é" * 300, "duration"])
def test_a_hostile_text_column_is_one_clear_error(tmp_path: Path, column: str) -> None:
    from earmark.corpus.sources.nemo import import_nemo
    from earmark.errors import EarmarkError

    manifest = _nemo_manifest(tmp_path / "nm", "text")
    out = tmp_path / "out.jsonl"
    with pytest.raises(EarmarkError) as caught:
        import_nemo(manifest, out, language="en", text_column=column)
    # A missing field names the fields found; a number where text belongs is refused.
    message = caught.value.message
    if column == "duration":
        assert message == "wrong type float"
    else:
        assert message == "required field missing; fields found: audio_filepath, text, duration"
    assert caught.value.field == column and caught.value.line == 1
    assert not out.exists()
