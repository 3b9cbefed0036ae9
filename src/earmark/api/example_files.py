"""`earmark.examples`: the files README.md and docs/*.md use, written into one folder.

Every example in the documentation names its inputs (`hyps.jsonl`, `runs/sweep`,
`corpus/audio/en-01.flac`, ...); this writes them, so a reader starting from an empty
folder runs the examples as written. Everything is derived from the bundled demo
corpus (its audio is copied, never shipped twice): hypotheses of a few made-up systems
in every input format `earmark score` reads, manifests with their sidecars, corpora laid
out as the importers expect, and finished run folders made by the `precomputed` engine
(saved hypotheses, no model). What each file is for is in the folder's README.md.

Nothing is written outside the folder: a folder that is not empty is refused unless
`force`, and with `force` no path is written through a symbolic link.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from earmark.api.values import PathArg, check_out
from earmark.errors import EarmarkError
from earmark.results.codec import JSONObject

#: The systems whose saved hypotheses the examples score and compare: name -> the shift
#: of `system_output`'s error pattern (so two systems make different errors).
SYSTEMS = {"f32": 0, "q8_0": 1, "other": 2}
#: The bootstrap resamples of the example runs (the default, 10,000, is slower and
#: changes nothing an example shows).
RUN_BOOTSTRAP = 1000
#: The canary strings `earmark manifest contamination --canaries` looks for.
CANARIES = "earmark canary 7f3a9c\n"
#: A training-text list for the contamination example: it holds one reference sentence.
TRAINING_EXTRA = "an unrelated training sentence about nothing in particular\n"
#: The FLEURS, Common Voice and Kaldi folders docs/sources.md imports.
FLEURS_DIR = "data/cmn_hans_cn"
COMMON_VOICE_DIR = "cv-corpus-25.0-2026-03-14/ga-IE"
KALDI_DIR = "data/test"
#: The run folders, each: (name, manifest, [(system file, arm name), ...]).
RUNS = (
    ("sweep", "corpus.jsonl", (("f32", "f32"), ("q8_0", "q8_0"))),
    ("f32", "corpus.jsonl", (("f32", "f32"),)),
    ("q8", "corpus.jsonl", (("q8_0", "q8_0"),)),
    ("cv", "ga.jsonl", (("xls-r-1b-cv", "xls-r-1b"),)),
    ("fleurs", "ga.jsonl", (("xls-r-1b-fleurs", "xls-r-1b"),)),
    ("zh-small", "zh.jsonl", (("f32", "small"),)),
)
#: The formatter prompt docs/postprocess.md's `prompt_file=fmt.txt` names.
FORMAT_PROMPT = (
    "Add punctuation to this Mandarin transcript. Change, add or remove no character other "
    "than punctuation. Reply with the text only.\n"
)


@dataclass(frozen=True)
class ExampleFolder:
    """What `examples` wrote: the folder, and every file in it, relative to it."""

    folder: Path
    files: tuple[str, ...]
    #: The run folders written (relative), each a finished `earmark run`.
    runs: tuple[str, ...]


def examples(folder: PathArg, *, force: bool = False) -> ExampleFolder:
    """`earmark examples DIR`: write the documentation's example inputs into DIR.

    DIR must be missing or empty (`force`: files of the same names are replaced, the
    example run folders rewritten); a path inside DIR that is a symbolic link is refused
    before anything is written, so nothing outside DIR changes."""
    check_out(folder, "DIR")
    try:
        os.fsencode(folder)
    except UnicodeEncodeError:
        raise EarmarkError("the folder's name cannot be a file name here", field="DIR") from None
    root = Path(os.fspath(folder))
    if root.exists() and not root.is_dir():
        raise EarmarkError("is a file, not a folder", file=str(root), hint="name a folder")
    if root.is_dir() and any(root.iterdir()) and not force:
        raise EarmarkError(
            "the folder is not empty",
            file=str(root),
            hint="name a new folder, or give --force to replace the example files in it",
        )
    files = dict(_inputs())
    runs = [f"runs/{name}" for name, _, _ in RUNS]
    for relative in files:
        _check_target(root, relative, folder=False)
    for relative in runs:
        _check_target(root, relative, folder=True)
    root.mkdir(parents=True, exist_ok=True)
    for relative, data in files.items():
        _write(root / relative, data)
    for (_, manifest, arms), relative in zip(RUNS, runs, strict=True):
        _run(root, relative, manifest, arms)
    made = [p for run in runs for p in sorted((root / run).rglob("*")) if p.is_file()]
    written = [*files, *(p.relative_to(root).as_posix() for p in made)]
    return ExampleFolder(root, tuple(written), tuple(runs))


def _check_target(root: Path, relative: str, *, folder: bool) -> None:
    """Refuse when DIR/relative, or a folder on the way to it, is a symbolic link (writing
    through it would change a file outside DIR) or is not what it must be: a folder on
    the way, and at the end a regular file (a FIFO would block the write forever) or,
    for a run, a folder."""
    path = root
    parts = Path(relative).parts
    for depth, part in enumerate(parts, start=1):
        path = path / part
        if path.is_symlink():
            problem = "is a symbolic link; earmark examples writes only inside the folder"
        elif not path.exists():
            return
        elif depth < len(parts) and not path.is_dir():
            problem = "is in the way: a folder of the examples goes here"
        elif depth == len(parts) and not (path.is_dir() if folder else path.is_file()):
            problem = f"is not a {'folder' if folder else 'regular file'}, as the example's is"
        else:
            continue
        raise EarmarkError(problem, file=str(path), hint="move it away, or name a new folder")


def _write(path: Path, data: bytes) -> None:
    """Create or replace one file, never following a link at its name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _run(folder: Path, relative: str, manifest: str, arms: tuple[tuple[str, str], ...]) -> None:
    """One finished run folder over saved hypotheses (`precomputed`), replacing an earlier
    one of the same name (only reached with `force`: a non-empty folder is refused)."""
    from earmark.api.running import run

    target = folder / relative
    if target.is_dir():
        shutil.rmtree(target)
    specs = [f"precomputed:{folder / 'systems' / f'{f}.jsonl'}?name={name}" for f, name in arms]
    run(
        out=target,
        manifest=folder / manifest,
        arm=specs,
        bootstrap=RUN_BOOTSTRAP,
        isolation="inline",
        quiet=True,
    )


# --- the inputs, derived from the demo corpus ---------------------------------------------


def _demo() -> tuple[Path, list[JSONObject]]:
    from earmark.corpus.demo import demo_audio_root

    root = demo_audio_root()
    lines = (root / "manifest.jsonl").read_text("utf-8").splitlines()
    return root, [json.loads(line) for line in lines if line.strip()]


def system_output(reference: str, index: int, shift: int) -> str:
    """A made-up system's transcript of clip `index`: every third clip (counted from
    `shift`) loses its last word (its last character where there is one word, as in
    Mandarin), and the fifth clip of a shifted system gains a word."""
    words = reference.split()
    text = reference
    if (index + shift) % 3 == 0 and len(words) > 1:
        text = " ".join(words[:-1])
    elif (index + shift) % 3 == 0 and reference:
        text = reference[:-1]
    if shift and index == 4:
        text += " okay"
    return text


def _text(row: JSONObject, key: str) -> str:
    value = row.get(key)
    return value if isinstance(value, str) else ""


def _lines(rows: list[str]) -> bytes:
    return "".join(f"{r}\n" for r in rows).encode("utf-8")


def _jsonl(rows: list[JSONObject]) -> bytes:
    return _lines([json.dumps(r, ensure_ascii=False, sort_keys=True) for r in rows])


def _table(rows: list[list[str]], delimiter: str) -> bytes:
    buffer = io.StringIO(newline="")
    csv.writer(buffer, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return buffer.getvalue().encode("utf-8")


def _sidecar(base: JSONObject, rule: str) -> bytes:
    """The demo corpus's sidecar (licence MIT, redistributable) with this manifest's
    selection rule."""
    meta = dict(base)
    meta["selection_rule"] = rule
    return (json.dumps(meta, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode()


def _inputs() -> Iterator[tuple[str, bytes]]:
    """(path in the folder, bytes) of every input file, in writing order."""
    root, rows = _demo()
    base: JSONObject = json.loads((root / "manifest.jsonl.meta.json").read_text("utf-8"))
    yield "README.md", (Path(__file__).parent.parent / "examples_data" / "README.md").read_bytes()
    yield from _manifests(root, rows, base)
    yield from _hypotheses(rows)
    english = [r for r in rows if r["language"] == "en" and _text(r, "text")]
    yield "whisper-train-list.txt", _lines([_text(english[0], "text")]) + TRAINING_EXTRA.encode()
    yield "canaries.txt", CANARIES.encode()
    yield "fmt.txt", FORMAT_PROMPT.encode()
    yield from _sources(root, rows)


def _manifests(root: Path, rows: list[JSONObject], base: JSONObject) -> Iterator[tuple[str, bytes]]:
    for row in rows:
        yield _text(row, "audio"), (root / _text(row, "audio")).read_bytes()
    subsets: list[tuple[str, Callable[[JSONObject], bool], str]] = [
        ("corpus.jsonl", lambda r: True, "all clips of the earmark demo corpus"),
        ("ga.jsonl", lambda r: r["language"] == "ga", "the demo corpus's Irish clips"),
        ("zh.jsonl", lambda r: r["language"] == "zh", "the demo corpus's Mandarin clips"),
        ("train.jsonl", lambda r: r["language"] == "ga", "the demo corpus's Irish clips"),
        ("test.jsonl", lambda r: r["language"] == "en", "the demo corpus's English clips"),
    ]
    for name, keep, rule in subsets:
        yield name, _jsonl([r for r in rows if keep(r)])
        yield f"{name}.meta.json", _sidecar(base, rule)
    # "Your corpus" of the README's `earmark run`: three English clips in a folder.
    mine = [r for r in rows if r["language"] == "en"][:3]
    for row in mine:
        yield f"corpus/{_text(row, 'audio')}", (root / _text(row, "audio")).read_bytes()
    yield "corpus/manifest.jsonl", _jsonl(mine)
    yield "corpus/manifest.jsonl.meta.json", _sidecar(base, "the demo corpus's first 3 clips")


def _hypotheses(rows: list[JSONObject]) -> Iterator[tuple[str, bytes]]:
    """Saved hypotheses: per system for `precomputed` arms, and system f32's in every
    format `earmark score` reads."""
    out = {
        name: [system_output(_text(r, "text"), i, shift) for i, r in enumerate(rows)]
        for name, shift in SYSTEMS.items()
    }
    irish = [i for i, r in enumerate(rows) if r["language"] == "ga"]
    out["xls-r-1b-cv"] = [system_output(_text(r, "text"), i, 0) for i, r in enumerate(rows)]
    out["xls-r-1b-fleurs"] = [system_output(_text(r, "text"), i, 1) for i, r in enumerate(rows)]
    for name, hyps in out.items():
        saved: list[JSONObject] = [
            {"id": r["id"], "hypothesis": h} for r, h in zip(rows, hyps, strict=True)
        ]
        yield f"systems/{name}.jsonl", _jsonl(saved)

    def scored(name: str, keep: list[int]) -> list[JSONObject]:
        return [
            {"id": rows[i]["id"], "reference": rows[i]["text"], "hypothesis": out[name][i]}
            | {"language": rows[i]["language"]}
            for i in keep
        ]

    every = list(range(len(rows)))
    yield "hyps.jsonl", _jsonl(scored("f32", every))
    header = ["id", "reference", "hypothesis", "language"]
    table = [header, *([str(r[k]) for k in header] for r in scored("f32", every))]
    yield "hyps.csv", _table(table, ",")
    yield "hyps.tsv", _table(table, "\t")
    yield "preds.jsonl", _jsonl(scored("f32", irish))
    yield "preds/other.jsonl", _jsonl(scored("other", every))
    english = [i for i in every if rows[i]["language"] == "en" and _text(rows[i], "text")]
    refs = [(_text(rows[i], "id"), _text(rows[i], "text"), out["f32"][i]) for i in english]
    yield "text", _lines([f"{u} {r}" for u, r, _ in refs])
    yield "hyp", _lines([f"{u} {h}" for u, _, h in refs])
    yield "ref.txt", _lines([r for _, r, _ in refs])
    yield "hyp.txt", _lines([h for _, _, h in refs])
    yield "ref.trn", _lines([f"{r} ({u})" for u, r, _ in refs])
    yield "hyp.trn", _lines([f"{h} ({u})" for u, _, h in refs])
    yield from _timed(rows, english, out["f32"])


def _timed(rows: list[JSONObject], keep: list[int], hyps: list[str]) -> Iterator[tuple[str, bytes]]:
    """An stm of the clips (one segment each, its speaker the voice) and a ctm of the
    hypotheses, their words spread evenly over the clip."""
    stm: list[str] = []
    ctm: list[str] = []
    for i in keep:
        row, end = rows[i], float(str(rows[i].get("duration") or 0.0))
        speaker = _text(row, "speaker").replace("espeak-ng:", "")
        stm.append(f"{row['id']} 1 {speaker} 0.00 {end:.2f} {row['text']}")
        words = hyps[i].split()
        step = end / max(len(words), 1)
        ctm.extend(f"{row['id']} 1 {k * step:.2f} {step:.2f} {w}" for k, w in enumerate(words))
    yield "ref.stm", _lines(stm)
    yield "hyp.ctm", _lines(ctm)


def _sources(root: Path, rows: list[JSONObject]) -> Iterator[tuple[str, bytes]]:
    """Demo clips laid out as a FLEURS config folder, a Common Voice locale folder and a
    Kaldi data dir (the audio decoded and re-encoded as each layout names it)."""
    import soundfile as sf

    def encoded(row: JSONObject, fmt: str) -> tuple[bytes, int]:
        audio, rate = sf.read(root / _text(row, "audio"), dtype="float32")
        buffer = io.BytesIO()
        sf.write(buffer, audio, rate, format=fmt)
        return buffer.getvalue(), len(audio)

    zh = [r for r in rows if r["language"] == "zh"][:2]
    ga = [r for r in rows if r["language"] == "ga"][:2]
    tsv = []
    for k, row in enumerate(zh, start=1):
        data, samples = encoded(row, "WAV")
        yield f"{FLEURS_DIR}/audio/test/{row['id']}.wav", data
        text = _text(row, "text")
        plain = "".join(c for c in text if c.isalnum())
        tsv.append([str(k), f"{row['id']}.wav", text, plain, " ".join(plain), str(samples)])
    yield f"{FLEURS_DIR}/test.tsv", _table([[*t, "OTHER"] for t in tsv], "\t")
    voice = [["client_id", "path", "sentence"]]
    for row in ga:
        data, _ = encoded(row, "MP3")
        yield f"{COMMON_VOICE_DIR}/clips/{row['id']}.mp3", data
        voice.append([_text(row, "speaker"), f"{row['id']}.mp3", _text(row, "text")])
    yield f"{COMMON_VOICE_DIR}/test.tsv", _table(voice, "\t")
    for row in ga:
        yield f"{KALDI_DIR}/wav/{row['id']}.wav", encoded(row, "WAV")[0]
    yield f"{KALDI_DIR}/wav.scp", _lines([f"{r['id']} {KALDI_DIR}/wav/{r['id']}.wav" for r in ga])
    yield f"{KALDI_DIR}/text", _lines([f"{r['id']} {_text(r, 'text')}" for r in ga])
