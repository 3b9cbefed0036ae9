"""A post-processor's settings frozen in a plan (`[postprocess]`), before any data (seed 001).

Seed 001 froze the formatter's prompt, model, temperature and repeats with the plan and
then judged the shipped output against that freeze ("not retrospectively rescued"). The
`[postprocess]` table of a plan says the same thing to `earmark postprocess --plan`:

```toml
[postprocess]
processor = "openai-chat:http://127.0.0.1:11436/v1?model=gemma4:12b-it-qat&temperature=0"
prompt_file = "prompt.txt"   # relative to the plan; its SHA-256 goes in at freeze time
# prompt_sha256 = "..."      # or given (written by `earmark plan freeze`)
model = "gemma4:12b-it-qat"  # for openai-chat, must equal the spec's model=
temperature = 0              # for openai-chat, must equal the spec's temperature=
repeats = 3
allow_substitutions = []     # the lexical guard's options change what is delivered
guard_marks = ""
```

Reading the table checks its structure only (no file is read, no program looked up): a
plan is frozen before the prompt's server or the formatter's program need exist. The
prompt is checked when the plan is used (`check_prompt`).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue

KEYS = {
    "processor",
    "prompt_file",
    "prompt_sha256",
    "model",
    "temperature",
    "repeats",
    "allow_substitutions",
    "guard_marks",
}
_HEX64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class PostprocessPlan:
    processor: str
    repeats: int = 3
    #: As written in the plan (relative to the plan's folder) and resolved.
    prompt_file: str | None = None
    prompt_path: str | None = None
    prompt_sha256: str | None = None
    model: str | None = None
    temperature: float | None = None
    allow_substitutions: tuple[str, ...] = ()
    guard_marks: str = ""

    @classmethod
    def from_table(cls, table: object, *, base: Path, file: str | None = None) -> PostprocessPlan:
        """Validate `[postprocess]` (structure only); errors name the plan file and key."""
        from earmark.postprocess.guard import LexicalGuard
        from earmark.postprocess.processors import parse_processor_spec

        def error(key: str, message: str, hint: str | None = None) -> EarmarkError:
            return EarmarkError(message, file=file, field=f"postprocess.{key}", hint=hint)

        if not isinstance(table, dict):
            raise error("processor", "[postprocess] must be a table")
        unknown = sorted(set(table) - KEYS)
        if unknown:
            raise error(unknown[0], f"unknown key(s) {', '.join(unknown)}")
        spec_text = table.get("processor")
        if not isinstance(spec_text, str) or not spec_text:
            raise error("processor", "missing or not a string", hint='processor = "KIND:..."')
        try:
            spec = parse_processor_spec(spec_text)
        except EarmarkError as exc:
            raise error("processor", exc.message, exc.hint) from None
        settings = dict(spec.settings)
        prompt_file = _optional_str(table, "prompt_file", error)
        prompt_sha = _optional_str(table, "prompt_sha256", error)
        if prompt_sha is not None and not _HEX64.fullmatch(prompt_sha):
            raise error("prompt_sha256", "not a SHA-256 (64 lower-case hex digits)")
        if spec.backend == "opencc" and (prompt_file or prompt_sha):
            raise error("prompt_file", "a script converter has no prompt")
        if "prompt_file" in settings:
            raise error(
                "processor",
                "the prompt file goes in the table, not in the processor spec",
                hint='prompt_file = "prompt.txt" (relative to the plan; hashed at freeze)',
            )
        model = _optional_str(table, "model", error)
        temperature = table.get("temperature")
        if temperature is not None and (
            isinstance(temperature, bool)
            or not isinstance(temperature, int | float)
            or temperature < 0
        ):
            raise error("temperature", "must be a number >= 0")
        if spec.backend == "openai-chat":
            _check_chat_copies(settings, model, temperature, error)
        repeats = table.get("repeats", 3)
        if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
            raise error("repeats", "must be an integer >= 1")
        substitutions = table.get("allow_substitutions", [])
        if not isinstance(substitutions, list) or not all(
            isinstance(s, str) for s in substitutions
        ):
            raise error("allow_substitutions", 'must be a list of "A=B" strings')
        marks = table.get("guard_marks", "")
        if not isinstance(marks, str):
            raise error("guard_marks", "must be a string")
        try:
            LexicalGuard.from_options(substitutions, marks)
        except EarmarkError as exc:
            raise error("allow_substitutions", exc.message, exc.hint) from None
        return cls(
            processor=spec_text,
            repeats=repeats,
            prompt_file=prompt_file,
            prompt_path=str((base / prompt_file).resolve()) if prompt_file else None,
            prompt_sha256=prompt_sha,
            model=model,
            temperature=float(temperature) if temperature is not None else None,
            allow_substitutions=tuple(substitutions),
            guard_marks=marks,
        )

    @property
    def kind(self) -> str:
        return self.processor.partition(":")[0].strip()

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "processor": self.processor,
            "repeats": self.repeats,
            "prompt_file": self.prompt_file,
            "prompt_sha256": self.prompt_sha256,
            "model": self.model,
            "temperature": self.temperature,
            "allow_substitutions": list(self.allow_substitutions),
            "guard_marks": self.guard_marks,
        }

    def check_prompt(self, *, file: str | None = None) -> dict[str, JSONValue]:
        """The prompt actually on disk against the frozen hash, before any call.

        A changed prompt file is refused. A hash without a file is the built-in prompt's
        for `openai-chat` (checked when the processor is built) and only declared for a
        command processor (its program reads its own prompt; earmark hashes the files its
        command line names)."""
        if self.prompt_path is None:
            status = "declared" if self.prompt_sha256 else "none"
            return {"status": status, "sha256": self.prompt_sha256, "file": None}
        try:
            actual = hashlib.sha256(Path(self.prompt_path).read_bytes()).hexdigest()
        except OSError as exc:
            raise EarmarkError(
                f"cannot read the frozen prompt file: {exc.strerror}",
                file=self.prompt_path,
                field="postprocess.prompt_file",
            ) from None
        if self.prompt_sha256 is not None and actual != self.prompt_sha256:
            raise EarmarkError(
                f"prompt changed since the plan was frozen: sha256 {actual} != frozen "
                f"{self.prompt_sha256}",
                file=self.prompt_path,
                field="postprocess.prompt_sha256",
                hint="a frozen prompt must not change; freeze a new plan and record the deviation",
            )
        return {
            "status": "checked" if self.prompt_sha256 else "unfrozen",
            "sha256": actual,
            "file": self.prompt_path,
        }


def _check_chat_copies(
    settings: Mapping[str, str],
    model: str | None,
    temperature: float | None,
    error: Callable[[str, str], EarmarkError],
) -> None:
    """An `openai-chat` spec is what is sent; the table's copies of its model and
    temperature must say the same thing."""
    if model is not None and model != settings.get("model"):
        raise error(
            "model",
            f"{model!r} differs from the processor spec's model {settings.get('model')!r}",
        )
    if temperature is not None:
        try:
            spec_temperature = float(settings.get("temperature", "0"))
        except ValueError:
            raise error("processor", "temperature= is not a number") from None
        if float(temperature) != spec_temperature:
            raise error(
                "temperature",
                f"{temperature} differs from the processor spec's {spec_temperature}",
            )


def _optional_str(
    table: Mapping[str, object], key: str, error: Callable[[str, str], EarmarkError]
) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise error(key, "must be a non-empty string")
    return value


def record_prompt_sha256(plan_text: str, digest: str, prompt_file: str) -> str:
    """The plan's text with `prompt_sha256 = "<digest>"` as the first key of its
    `[postprocess]` table (where `earmark plan freeze` records a prompt's hash, so the
    plan's own SHA-256 covers the prompt). Line endings are kept."""
    newline = "\r\n" if "\r\n" in plan_text else "\n"
    lines = plan_text.splitlines(keepends=True)
    header = re.compile(r"\s*\[\s*postprocess\s*\]\s*(#.*)?")
    for index, line in enumerate(lines):
        if header.fullmatch(line.rstrip("\r\n")):
            added = (
                f'prompt_sha256 = "{digest}"  # SHA-256 of {prompt_file}, '
                f"recorded by earmark plan freeze{newline}"
            )
            if not line.endswith(("\n", "\r")):
                lines[index] = line + newline
            lines.insert(index + 1, added)
            return "".join(lines)
    raise EarmarkError(
        "cannot find a [postprocess] header line to record the prompt's SHA-256 under",
        field="postprocess.prompt_sha256",
        hint=f'add prompt_sha256 = "{digest}" to the [postprocess] table yourself',
    )


def plan_postprocess(path: str | os.PathLike[str]) -> PostprocessPlan:
    """The `[postprocess]` table of a plan file (structure checked, no data needed)."""
    from earmark.rundir.plan_file import read_plan_toml

    p = Path(path)
    data = read_plan_toml(p)
    if "postprocess" not in data:
        raise EarmarkError(
            "the plan has no [postprocess] table",
            file=str(p),
            field="postprocess",
            hint='add [postprocess] with processor = "KIND:..." (docs/postprocess.md)',
        )
    return PostprocessPlan.from_table(data["postprocess"], base=p.resolve().parent, file=str(p))
