"""User-facing text says what a rule means, not which seed document asked for it.

"seed 000" means something to earmark's developers (the documents in
docs/seed_requirements.md) and nothing to a user reading `--help`, a results page or the
docs. Docstrings and comments may cite seeds; string constants that reach a user (help,
printed output, Markdown/HTML text, error hints) and README/docs prose may not, except:

- **recorded** text: a frozen component's definition written into results.json,
  postprocess.json or a protocol record; changing it needs a new version of the
  component, so it stays until then;
- **pending** text in files another helper owns, listed for the lead.

Each allowance must still match, so a fixed string cannot leave a stale entry behind.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED = re.compile(r"seed[- ]?00[0-3]|seeds? 00[0-3]", re.IGNORECASE)

RECORDED = "recorded in results as a frozen component's definition"
PENDING = "user-facing; the file's owner is to reword it"
#: (file, text in the string) -> why it may still name a seed.
ALLOWED = {
    ("src/earmark/scoring/extra_metrics.py", "seed 001: ASCII marks"): RECORDED,
    ("src/earmark/scoring/extra_metrics.py", "(the seed-001 scorer)"): RECORDED,
    ("src/earmark/scoring/extra_metrics.py", "seed 000: numbers, dates"): RECORDED,
    ("src/earmark/scoring/long_form_section.py", "seed 000 long recordings"): RECORDED,
    ("src/earmark/scoring/protocols.py", "(seed 003, arXiv"): RECORDED,
    ("src/earmark/scoring/protocols.py", "harness (seed 002)"): RECORDED,
    ("src/earmark/scoring/protocols.py", "measurement (seed 001)"): RECORDED,
    ("src/earmark/text/ga_v1.py", "BlasBench (seed 003"): RECORDED,
    ("src/earmark/text/mmv_cer_v1.py", "CER rule (seed 001)"): RECORDED,
    ("src/earmark/postprocess/evaluate.py", "content CER (seed 001)"): RECORDED,
    ("docs/protocols.md", '"source": "BlasBench, Irish ASR benchmark (seed 003'): RECORDED,
}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def user_strings_naming_seeds() -> list[tuple[str, int, str]]:
    """(file, line, text) of every non-docstring string constant in src/ naming a seed,
    and every README/docs line doing so (docs/seed_requirements.md is the seed map)."""
    hits = []
    for path in sorted((ROOT / "src").rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
                and SEED.search(node.value)
            ):
                hits.append((str(path.relative_to(ROOT)), node.lineno, node.value))
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        if path.name == "seed_requirements.md":
            continue
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if SEED.search(line):
                hits.append((str(path.relative_to(ROOT)), number, line))
    return hits


def test_user_facing_text_says_what_a_rule_means() -> None:
    hits = user_strings_naming_seeds()
    unexplained = [
        f"{file}:{line}: {text[:120]!r}"
        for file, line, text in hits
        if not any(file == f and snippet in text for f, snippet in ALLOWED)
    ]
    assert not unexplained, "say what the rule means instead:\n" + "\n".join(unexplained)
    stale = [key for key in ALLOWED if not any(f == key[0] and key[1] in t for f, _, t in hits)]
    assert not stale, f"these allowances no longer match anything; remove them: {stale}"


def test_the_scan_sees_strings_not_docstrings(tmp_path: Path) -> None:
    source = '"""Seed 000 in a docstring."""\nHELP = "the seed-001 rule"\n# seed 002\n'
    tree = ast.parse(source)
    docs = _docstrings(tree)
    named = [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and id(n) not in docs and SEED.search(str(n.value))
    ]
    assert named == ["the seed-001 rule"]
