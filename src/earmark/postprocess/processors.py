"""Output post-processors: what they promise, and how a spec string picks one.

A processor turns one transcript into one candidate text (or a reason code why it could
not). Spec strings follow arm specs (`KIND:TARGET?key=value&...`):

- `command:PROGRAM ARGS?timeout=30&model=WEIGHTS` — text on stdin, formatted text on
  stdout (`model=` names the weights it loads, hashed with the program);
- `openai-chat:http://127.0.0.1:11434/v1?model=gemma&temperature=0&prompt_file=P.txt` —
  an OpenAI-compatible `/chat/completions` endpoint (e.g. a local Ollama);
- `opencc:s2t` (`t2s`, `s2tw`, `s2twp`, `s2hk`) — Chinese script conversion.

`guarded` says whether the lexical guard applies: a formatter must keep the words, a
script converter changes characters by design and is judged by CER instead.
"""

from __future__ import annotations

from earmark.engines.spec import ArmSpec, parse_arm_spec
from earmark.errors import EarmarkError
from earmark.postprocess.protocol import Processor, ProcessorSettings

KINDS = ("command", "openai-chat", "opencc")


def parse_processor_spec(text: str) -> ArmSpec:
    """Split `KIND:TARGET?key=value&...` (the arm spec grammar) and check the kind."""
    spec = parse_arm_spec(text)
    if spec.backend not in KINDS:
        raise EarmarkError(
            f"unknown processor kind {spec.backend!r} in {text!r}",
            field="processor",
            hint=f"kinds: {', '.join(KINDS)}",
        )
    return spec


def build_processor(text: str, *, prompt_file: str | None = None) -> Processor:
    """Build (and validate) a processor from its spec string; fails before any call.

    `prompt_file` is a frozen plan's prompt: the template of an `openai-chat` processor;
    a command processor reads its own (the plan's hash of it is checked beforehand)."""
    spec = parse_processor_spec(text)
    settings = ProcessorSettings(spec, text)
    if spec.backend == "command":
        from earmark.postprocess.command import CommandProcessor

        return CommandProcessor.from_spec(spec, settings)
    if spec.backend == "openai-chat":
        from earmark.postprocess.openai_chat import ChatProcessor

        return ChatProcessor.from_spec(spec, settings, prompt_file=prompt_file)
    from earmark.postprocess.script_conversion import ScriptProcessor

    return ScriptProcessor.from_spec(spec, settings)
