"""Run the code blocks of one Markdown file, in order, in this process and the current folder.

`tests/test_docs_run.py` starts this script once per documentation file, in a fresh
interpreter and an empty folder of its own, so that blocks of one file may
build on each other (a Python block sees the names an earlier Python block of the same
file defined, and the files an earlier shell block wrote) while files never share state.

Arguments: a JSON file holding ``[{"file", "line", "lang", "code"}, ...]`` and the file to
write one JSON line per block to, ``{"line", "ok", "checked", "seconds", "error"}`` (not
stdout: blocks print). The run stops at the first block that fails (later blocks may
depend on it).

The rules a block is held to (also stated in tests/test_docs_run.py):

- **Python, doctest style**: a block whose first line starts with ``>>>`` runs as a
  doctest; every shown output must match.
- **Python, comment style**: a top-level expression whose trailing comment *begins with a
  value*, ``expr  # 0.25: why``, is asserted to equal that value; so is one followed by a
  comment-only line that is a value (``expr`` then ``# ErrorCounts(...)``). A value is a
  Python literal (``0.25``, ``(0.25, (0.1, 0.5))``, ``['a']``, ``None``) or a constructor
  call with literal arguments (``ErrorCounts(substitutions=1, ...)`` compared with the
  result's ``repr``). A literal must equal the result, with the same kind of container.
  Comments that begin with prose, or values abbreviated with ``...``, are not asserted.
  ``print(x)  # value`` asserts ``x``.
- **sh / bash**: run by ``bash -e -o pipefail``; every command must succeed, and none may
  say a file is missing (``No such file or directory``, ``FileNotFoundError``,
  ``missing_file``), even when it exits 0. A ``text`` block right after it, or after prose
  beginning "prints", is what it prints: each of its lines must be a line of stdout, in
  order (the docs may leave lines out).
- **One terminal**: the folder a shell block ends in is where the next block (shell or
  Python) starts, as for a reader typing them into one terminal (`earmark examples ex &&
  cd ex`, then the examples).
- **console / shell**: lines starting with ``$ `` are commands (a line ending in ``\\``
  continues); other lines are the shown output, and each non-empty one (other than
  abbreviated ones with ``...`` or ``…``) must appear as a line of the commands' output.
"""

from __future__ import annotations

import ast
import doctest
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import tokenize
import traceback
from typing import Any

SHELL_TIMEOUT_S = 240


class DocValueMismatch(AssertionError):
    """A documented value that the code does not produce."""


def documented_value(comment: str) -> ast.expr | None:
    """The value a comment begins with, or None when it begins with prose.

    The longest prefix of the comment that parses as an expression is taken, so
    ``0.25: 1 substitution`` gives ``0.25`` and ``summed over clips`` gives the name
    ``summed``, which is prose, not a value."""
    text = comment.strip()
    for end in range(len(text), 0, -1):
        try:
            node = ast.parse(text[:end], mode="eval").body
        except SyntaxError:
            continue
        return node if _is_value(node) else None
    return None


def _is_value(node: ast.expr) -> bool:
    """A literal without `...`, or a constructor call whose arguments are such values."""
    if any(isinstance(n, ast.Constant) and n.value is Ellipsis for n in ast.walk(node)):
        return False
    if isinstance(node, ast.Call):
        func = node.func
        while isinstance(func, ast.Attribute):
            func = func.value
        return isinstance(func, ast.Name) and all(
            _is_value(a) for a in [*node.args, *(k.value for k in node.keywords)]
        )
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_is_value(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _is_value(k) for k in node.keys) and all(
            _is_value(v) for v in node.values
        )
    try:
        ast.literal_eval(node)
    except ValueError:
        return False
    return True


def check_value(value: Any, expected_source: str, where: str) -> None:
    """Raise DocValueMismatch unless `value` is what the documentation shows."""
    expected = ast.parse(expected_source, mode="eval").body
    if _has_call(expected):
        shown = ast.dump(ast.parse(repr(value), mode="eval").body) if _parses(repr(value)) else ""
        if shown != ast.dump(expected):
            raise DocValueMismatch(f"{where}: documented {expected_source}, got {value!r}")
        return
    literal = ast.literal_eval(expected)
    if not _same(value, literal):
        raise DocValueMismatch(f"{where}: documented {expected_source}, got {value!r}")


def _has_call(node: ast.expr) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(node))


def _parses(text: str) -> bool:
    try:
        ast.parse(text, mode="eval")
    except SyntaxError:
        return False
    return True


def _same(value: Any, literal: Any) -> bool:
    """Equal, and containers of the same kind all the way down (a tuple is not a list)."""
    if isinstance(literal, (list, tuple, set, frozenset, dict)):
        if type(value) is not type(literal) or len(value) != len(literal):
            return False
        if isinstance(literal, dict):
            return value.keys() == literal.keys() and all(
                _same(value[k], literal[k]) for k in literal
            )
        if isinstance(literal, (set, frozenset)):
            return bool(value == literal)
        return all(_same(v, x) for v, x in zip(value, literal, strict=True))
    if isinstance(literal, bool) or literal is None or isinstance(literal, (str, bytes)):
        return type(value) is type(literal) and bool(value == literal)
    return bool(value == literal)


def _comments(code: str) -> dict[int, tuple[str, bool]]:
    """Line number (1-based, in the block) -> (comment text without '#', comment-only line)."""
    found: dict[int, tuple[str, bool]] = {}
    lines = code.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            row, col = token.start
            alone = not lines[row - 1][:col].strip()
            found[row] = (token.string[1:].strip(), alone)
    return found


def instrument(code: str, file: str, first_line: int) -> tuple[ast.Module, int]:
    """The block's AST with each documented expression value turned into a check, and
    how many checks there are. Line numbers are the Markdown file's."""
    tree = ast.parse(code, filename=file)
    comments = _comments(code)
    checks = 0
    body: list[ast.stmt] = []
    for stmt in tree.body:
        expected = _expected_for(stmt, comments)
        if expected is None or not isinstance(stmt, ast.Expr):
            body.append(stmt)
            continue
        target = stmt.value
        if (
            isinstance(target, ast.Call)
            and isinstance(target.func, ast.Name)
            and target.func.id == "print"
            and len(target.args) == 1
            and not target.keywords
        ):
            target = target.args[0]
        where = f"{file}:{first_line + stmt.lineno}"
        call = ast.Call(
            func=ast.Name(id="__docs_check__", ctx=ast.Load()),
            args=[target, ast.Constant(expected), ast.Constant(where)],
            keywords=[],
        )
        body.append(ast.copy_location(ast.Expr(value=call), stmt))
        checks += 1
    tree.body = body
    ast.fix_missing_locations(tree)
    ast.increment_lineno(tree, first_line)
    return tree, checks


def _expected_for(stmt: ast.stmt, comments: dict[int, tuple[str, bool]]) -> str | None:
    """The value source a statement's comment documents (trailing, else the next line's)."""
    if not isinstance(stmt, ast.Expr):
        return None
    end = stmt.end_lineno or stmt.lineno
    trailing = comments.get(end)
    if trailing is not None and not trailing[1]:
        node = documented_value(trailing[0])
        if node is not None:
            return ast.get_source_segment(trailing[0].strip(), node) or ast.unparse(node)
    following = comments.get(end + 1)
    if following is not None and following[1]:
        node = documented_value(following[0])
        if node is not None:
            return ast.get_source_segment(following[0].strip(), node) or ast.unparse(node)
    return None


def run_python(code: str, file: str, first_line: int, namespace: dict[str, Any]) -> int:
    """Run one Python block in `namespace`; returns how many documented values it checked."""
    if code.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(code, namespace, file, file, first_line)
        out = io.StringIO()
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        result = runner.run(test, out=out.write, clear_globs=False)
        if result.failed:
            raise DocValueMismatch(out.getvalue())
        return result.attempted
    tree, checks = instrument(code, file, first_line)
    namespace.setdefault("__docs_check__", check_value)
    exec(compile(tree, file, "exec"), namespace)
    return checks


def console_commands(code: str) -> tuple[str, list[str]]:
    """A console block's commands (prompts removed) and its shown output lines."""
    commands: list[str] = []
    shown: list[str] = []
    continuing = False
    for line in code.splitlines():
        if continuing or line.startswith("$ "):
            text = line if continuing else line[2:]
            commands.append(text)
            continuing = text.endswith("\\")
        elif line.strip():
            shown.append(line.strip())
    return "\n".join(commands), shown


#: What a tool prints when a file it was told to read is not there, even where it exits 0.
MISSING_FILE = ("No such file or directory", "FileNotFoundError", "missing_file")


def _missing_file(output: str) -> str | None:
    """The first output line saying a file is missing, or None."""
    return next((x for x in output.splitlines() if any(m in x for m in MISSING_FILE)), None)


def run_shell(code: str, lang: str, prints: str | None = None) -> int:
    """Run one shell block with bash; returns how many shown output lines it checked.
    `prints`: the stdout lines the documentation shows for it, in order."""
    shown: list[str] = []
    if lang in ("console", "shell"):
        code, shown = console_commands(code)
    with tempfile.TemporaryDirectory() as scratch:
        where = os.path.join(scratch, "cwd")
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", f"trap 'pwd > \"{where}\"' EXIT\n{code}"],
            capture_output=True,
            text=True,
            timeout=SHELL_TIMEOUT_S,
        )
        output = done.stdout + done.stderr
        if done.returncode != 0:
            raise RuntimeError(f"exit {done.returncode}\n{output[-4000:]}")
        with open(where, encoding="utf-8") as handle:
            os.chdir(handle.read().rstrip("\n"))  # one terminal: a `cd` holds for what follows
    if (missing := _missing_file(output)) is not None:
        raise RuntimeError(f"a file the docs did not provide: {missing}\n{output[-4000:]}")
    if prints is not None:
        printed = iter(line.rstrip() for line in done.stdout.splitlines())
        documented = [line.rstrip() for line in prints.splitlines() if line.strip()]
        if not all(line in printed for line in documented):  # in order; may skip lines
            raise DocValueMismatch(f"printed:\n{done.stdout}\ndocumented:\n{prints}")
        return len(documented)
    lines = {line.strip() for line in output.splitlines()}
    checked = 0
    for line in shown:
        if "..." in line or "…" in line:
            continue
        if line not in lines:
            raise DocValueMismatch(f"shown output line not printed: {line!r}\n{output[-4000:]}")
        checked += 1
    return checked


def main(plan_path: str, report_path: str) -> int:
    with open(plan_path, encoding="utf-8") as handle:
        blocks = json.load(handle)
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    for block in blocks:
        started = time.perf_counter()
        report: dict[str, Any] = {"line": block["line"], "ok": True, "checked": 0, "error": ""}
        try:
            if block["lang"] in ("python", "py"):
                report["checked"] = run_python(
                    block["code"], block["file"], block["line"], namespace
                )
            else:
                report["checked"] = run_shell(block["code"], block["lang"], block.get("prints"))
        except Exception:  # noqa: BLE001 - every failure is reported with its block
            report["ok"] = False
            report["error"] = traceback.format_exc(limit=6)[-6000:]
        report["seconds"] = round(time.perf_counter() - started, 2)
        with open(report_path, "a", encoding="utf-8") as out:
            out.write(json.dumps(report) + "\n")
        if not report["ok"]:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
