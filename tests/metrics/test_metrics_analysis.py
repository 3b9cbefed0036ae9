"""Error analysis: confusion rankings, worst utterances and the alignment rendering."""

from __future__ import annotations

from earmark.metrics import (
    ErrorCounts,
    align,
    render_alignment,
    top_deletions,
    top_insertions,
    top_substitutions,
    worst_utterances,
)
from earmark.metrics.analysis import display_width

CORPUS = [
    ("the cat sat", "the bat sat"),  # cat->bat
    ("a cat ran", "a bat ran um"),  # cat->bat, +um
    ("the dog", "a dog"),  # the->a
    ("so the end", "the end uh"),  # -so, +uh
    ("well so", "well um"),  # so->um
    ("go now", "go"),  # -now
]
ALIGNMENTS = [align(r.split(), h.split()) for r, h in CORPUS]


def test_top_substitutions_counts_and_tie_order() -> None:
    assert top_substitutions(ALIGNMENTS, 10) == [
        ("cat", "bat", 2),
        ("so", "um", 1),
        ("the", "a", 1),
    ]
    assert top_substitutions(ALIGNMENTS, 1) == [("cat", "bat", 2)]
    assert top_substitutions(ALIGNMENTS, 0) == []


def test_top_insertions_and_deletions() -> None:
    assert top_insertions(ALIGNMENTS, 5) == [("uh", 1), ("um", 1)]
    assert top_deletions(ALIGNMENTS, 5) == [("now", 1), ("so", 1)]
    assert top_insertions([], 5) == []


def test_worst_utterances_order() -> None:
    rows = [
        ("u3", ErrorCounts(substitutions=2, hits=8)),  # 2 errors, rate 0.2
        ("u1", ErrorCounts(deletions=2)),  # 2 errors, rate 1.0
        ("u2", ErrorCounts(insertions=2, hits=2)),  # 2 errors, rate 1.0
        ("u0", ErrorCounts(hits=5)),
        ("u9", ErrorCounts(substitutions=3, hits=97)),  # 3 errors
    ]
    assert [uid for uid, _ in worst_utterances(rows, 4)] == ["u9", "u1", "u2", "u3"]
    assert worst_utterances(rows, 0) == []


def test_render_plain_words() -> None:
    text = render_alignment(align("the cat sat".split(), "the bat sat down".split()))
    assert text.splitlines() == [
        "REF: the cat sat *",
        "HYP: the bat sat down",
        "         S       I",
    ]


def test_render_deletion_and_empty() -> None:
    text = render_alignment(align("hello big world".split(), "hello world".split()))
    assert text.splitlines() == ["REF: hello big world", "HYP: hello *   world", "           D"]
    assert render_alignment(align([], [])) == "REF:\nHYP:\n"


def test_render_keeps_wide_characters_aligned() -> None:
    text = render_alignment(align(list("我们去北京"), list("我门去了北京")))
    ref, hyp, marks = text.split("\n")
    assert ref == "REF: 我 们 去 *  北 京"
    assert hyp == "HYP: 我 门 去 了 北 京"
    assert marks == "        S     I"
    # Every column starts at the same display offset on both lines.
    assert display_width(ref) == display_width(hyp)


def test_display_width() -> None:
    assert display_width("abc") == 3
    assert display_width("北京") == 4
    assert display_width("ｆｕｌｌ") == 8
    assert display_width("e\u0301") == 1  # combining acute accent takes no column


def test_render_rich_markup() -> None:
    text = render_alignment(align(["a", "[b]", "c"], ["a", "x", "c", "d"]), style="rich")
    ref, hyp, marks = text.split("\n")
    assert ref == "REF: [green]a[/green] [yellow]\\[b][/yellow] [green]c[/green] [blue]*[/blue]"
    assert hyp == "HYP: [green]a[/green] [yellow]x[/yellow]   [green]c[/green] [blue]d[/blue]"
    assert marks == "       [yellow]S[/yellow]     [blue]I[/blue]"
    from rich.text import Text

    # The markup parses and renders to the plain columns.
    plain = render_alignment(align(["a", "[b]", "c"], ["a", "x", "c", "d"]))
    assert Text.from_markup(ref).plain == plain.split("\n")[0]
