"""results.md's lines about the word alignment and the sclite block (issue 23).

Where `--alignment` is not earmark's, the arm's header says which one split every word
figure; with `--sclite-reports`, a section gives the block's totals by speaker beside the
rule its speakers were read by (`--id-format`, earmark's rule named as such) and its
alignment, so the headline S/D/I and the sclite table can be read against each other.
"""

from __future__ import annotations

from collections.abc import Mapping

from earmark.markdown_cells import md_code, md_table, md_text
from earmark.results import ArmResult
from earmark.results.codec import JSONValue

_HEADER = ["SPKR", "# Snt", "# Wrd", "Corr", "Sub", "Del", "Ins", "Err", "S.Err"]
_KEYS = ("correct", "substitutions", "deletions", "insertions", "errors")


def alignment_lines(arm: ArmResult) -> list[str]:
    """The header line naming a non-default word alignment (none for earmark's)."""
    record = arm.alignment
    if not record:
        return []
    return [
        f"- Word alignment: **{md_text(record.get('name'))}** — {md_text(record.get('rule'))}; "
        f"applies to {md_text(record.get('applies_to'))}"
    ]


def speaker_rule_text(block: Mapping[str, JSONValue]) -> str:
    """The rule the block's speakers were read by, named by its `--id-format`."""
    rule = str(block.get("speaker_rule", ""))
    form = block.get("id_format")
    return rule if isinstance(form, str) else f"earmark: {rule}"


def sclite_markdown(arm: ArmResult) -> list[str]:
    """The sclite block's section: alignment, speaker rule and the counts by speaker."""
    block = arm.sclite
    if not block or not isinstance(block.get("total"), Mapping):
        return []
    lines = [
        "### sclite reports",
        "",
        f"- Alignment: {md_code(block.get('alignment'))} — {md_text(block.get('alignment_rule'))}",
        f"- Speakers (`--id-format`): {md_text(speaker_rule_text(block))}",
    ]
    glm = block.get("glm")
    if isinstance(glm, Mapping):
        lines.append(f"- GLM: {md_code(glm.get('name'))} ({md_text(glm.get('version'))})")
    if block.get("reference_markup"):
        lines.append(
            f"- {md_text(block['reference_markup'])} reference(s) with sclite markup, "
            "honoured here and in the headline word counts"
        )
    speakers = block.get("speakers")
    rows = [
        _row(str(line.get("speaker", "")), line)
        for line in (speakers if isinstance(speakers, list) else [])
        if isinstance(line, Mapping)
    ]
    total = block["total"]
    assert isinstance(total, Mapping)
    rows.append(_row("Sum", total))
    return [*lines, "", md_table(_HEADER, rows), ""]


def _row(label: str, line: Mapping[str, JSONValue]) -> list[str]:
    """One speaker's counts as the `.raw` table prints them."""
    cells = [line.get("sentences"), line.get("words"), *(line.get(k) for k in _KEYS)]
    return [md_text(label), *(md_text(c) for c in cells), md_text(line.get("sentence_errors"))]


__all__ = ["alignment_lines", "sclite_markdown", "speaker_rule_text"]
