"""Versioned text normalisers: one transformation, both sides, several named views.

`get_normalizer("zh-eval-v1").normalize_pair(reference, hypothesis)` returns every view
of the pair; `normalize_text(name, text)` shows the views of one text. Importing this
package imports no optional engine (OpenCC) until a view needs it.
"""

from __future__ import annotations

from earmark.text.base import Normalizer, Unit, ViewPair
from earmark.text.registry import (
    available_normalizers,
    get_normalizer,
    normalize_text,
    register,
)

__all__ = [
    "Normalizer",
    "Unit",
    "ViewPair",
    "available_normalizers",
    "get_normalizer",
    "normalize_text",
    "register",
]
