"""Weight types of a stdio arm: declared by the arm, given to the program, confirmed by it.

A stdio program is an opaque executable, so earmark cannot tell which weights it can load.
The arm declares them (`weight_types=f16,q8_0`) so that a `--weight-types` sweep is
checked before any program starts; each swept arm's `compute_type` reaches the program
through the `{compute_type}` placeholder of its command line (it loads its weights before
its hello), and the program's hello (protocol 2) must list that type in its own
`weight_types`, so that an arm named `-q8_0` never runs weights the program did not mean.
"""

from __future__ import annotations

import shlex

from earmark.engines.settings import SettingsReader
from earmark.engines.spec import ArmSpec
from earmark.engines.stdio_process import (
    MAX_WEIGHT_TYPES,
    WEIGHT_TYPE_NAME,
    Message,
    hello_weight_types,
)
from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue

#: Where the arm's weight type goes in the program's command line.
PLACEHOLDER = "{compute_type}"


def declared_weight_types(arm: ArmSpec) -> tuple[str, ...]:
    """The arm's `weight_types=` (comma-separated names); () when it declares none."""
    return _declared(SettingsReader(arm))


def _declared(reader: SettingsReader) -> tuple[str, ...]:
    text = reader.text("weight_types")
    if text is None:
        return ()
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names or len(names) > MAX_WEIGHT_TYPES:
        raise reader.error("weight_types", f"is not a list of 1 to {MAX_WEIGHT_TYPES} names")
    for name in names:
        if not WEIGHT_TYPE_NAME.fullmatch(name):
            raise reader.error(
                "weight_types",
                f"{name!r} is not a weight type's name",
                hint="letters, digits and _ . + - (e.g. f16,bf16,q8_0)",
            )
    return names


def read_weight_type(reader: SettingsReader, template: str) -> tuple[str | None, tuple[str, ...]]:
    """The arm's `compute_type` (what `--weight-types` sets) and its declared types.

    A weight type must be one the arm declares (when it declares any), and the command
    line must carry `{compute_type}`: otherwise the program could not know it."""
    declared = _declared(reader)
    chosen = reader.text("compute_type")
    has_placeholder = PLACEHOLDER in template
    if chosen is None:
        if has_placeholder:
            raise reader.error(
                "compute_type",
                f"the command line names {PLACEHOLDER} but the arm sets no weight type",
                hint="set compute_type=NAME, or sweep with --weight-types",
            )
        return None, declared
    if not WEIGHT_TYPE_NAME.fullmatch(chosen):
        raise reader.error("compute_type", f"{chosen!r} is not a weight type's name")
    if declared and chosen not in declared:
        raise reader.error(
            "compute_type",
            f"{chosen!r} is not one of the arm's weight_types",
            hint=f"supported: {', '.join(declared)}",
        )
    if not has_placeholder:
        raise reader.error(
            "compute_type",
            f"{chosen!r} is set, but the command line has no {PLACEHOLDER}",
            hint=f"the program loads its weights before its hello: pass it {PLACEHOLDER} "
            "(e.g. --model m-{compute_type}.gguf)",
        )
    return chosen, declared


def substitute(argv: tuple[str, ...], weight_type: str | None) -> tuple[str, ...]:
    """The command line with `{compute_type}` replaced by the arm's weight type."""
    if weight_type is None:
        return argv
    return tuple(arg.replace(PLACEHOLDER, weight_type) for arg in argv)


def check_loaded(arm: str, weight_type: str, hello: Message) -> None:
    """The program's hello must declare the weight type it was given, and, when it says
    which one it loaded, say this one."""
    offered = hello_weight_types(hello)
    if weight_type not in offered:
        raise EarmarkError(
            f"arm '{arm}': weight type {weight_type!r} was asked for, but the stdio program "
            f"declares {', '.join(offered) if offered else 'no weight types'}",
            field="compute_type",
            hint='a program that loads weight types says "protocol": 2 and '
            '"weight_types": [...] in its hello (docs/stdio_protocol.md)',
        )
    loaded = hello.get("weight_type")
    if loaded is not None and loaded != weight_type:
        raise EarmarkError(
            f"arm '{arm}': weight type {weight_type!r} was asked for, but the stdio "
            f"program's hello says it loaded {loaded!r}",
            field="compute_type",
        )


def provenance(
    weight_type: str, declared: tuple[str, ...], argv: tuple[str, ...], hello: Message
) -> JSONValue:
    """What model.json records of the arm's weight type: asked, declared, the command line
    that carried it, and what the program confirmed."""
    loaded = hello.get("weight_type")
    return {
        "requested": weight_type,
        "command_line": shlex.join(argv),
        "arm_declares": list(declared),
        "program_declares": list(hello_weight_types(hello)),
        "program_loaded": loaded if isinstance(loaded, str) else None,
    }
