"""The PDF's typeface: Fira Sans (regular and bold, SIL Open Font License), embedded and subset in every PDF.

The font files come from the ``fontpkg-fira-sans`` package; they are registered with reportlab once per process.
Fira Sans covers Latin (with Latin Extended and the modifier letters of Mayan orthographies, ``ʼ`` U+02BC),
Greek and Cyrillic. A character it has no glyph for is never drawn as an empty box: :func:`printable` writes a
visible placeholder (``[U+4E2D]``) in its place and names it, so the caller can warn.
"""

from __future__ import annotations

import threading
import unicodedata
from functools import cache, lru_cache

from .subsets import keep_subsets

__all__ = ["BOLD", "REGULAR", "TextCleaner", "ascent", "line_height", "register_fonts"]

REGULAR = "FiraSans"
BOLD = "FiraSans-Bold"
_FILES = {REGULAR: "FiraSans-Regular.ttf", BOLD: "FiraSans-Bold.ttf"}
_LOCK = threading.Lock()
_registered: dict[str, frozenset[int]] = {}


def register_fonts() -> dict[str, frozenset[int]]:
    """Register both faces with reportlab (once per process, thread-safe); the code points each covers."""
    if _registered:
        return _registered
    with _LOCK:
        if not _registered:
            from reportlab.pdfbase import pdfmetrics
            from reportlab.pdfbase.ttfonts import TTFont

            covered = {}
            for name, path in _font_paths().items():
                font = TTFont(name, path)
                keep_subsets(font)
                pdfmetrics.registerFont(font)
                covered[name] = frozenset(font.face.charToGlyph)
                _METRICS["ascent"] = max(_METRICS["ascent"], font.face.ascent / 1000)
                _METRICS["descent"] = max(_METRICS["descent"], -font.face.descent / 1000)
            _registered.update(covered)
    return _registered


def _font_paths() -> dict[str, str]:
    from fontpkg_fira_sans import ROOT

    return {name: str(ROOT / "files" / file) for name, file in _FILES.items()}


#: The faces' ascent and descent, in ems (read from the fonts when they are registered).
_METRICS = {"ascent": 0.0, "descent": 0.0}


def ascent(size: float) -> float:
    """Height above the baseline of the tallest letters (accented capitals), at ``size`` points."""
    return _METRICS["ascent"] * size


def line_height(size: float) -> float:
    """Distance between baselines: the faces' full height, and at least 1.2 × ``size`` (lines never overlap)."""
    return max(1.2, _METRICS["ascent"] + _METRICS["descent"]) * size


class TextCleaner:
    """Makes texts printable with both faces and remembers the characters it had to replace."""

    def __init__(self) -> None:
        self._covered = _covered()
        self.missing: set[str] = set()

    def __call__(self, text: str | None) -> str:
        """``text`` in composed form (NFC), white space collapsed to single spaces, invisible format characters
        dropped and every character without a glyph written as ``[U+XXXX]``."""
        if not text:
            return ""
        text = " ".join(unicodedata.normalize("NFC", text).split())
        if (text.isascii() and text.isprintable()) or self._covered.issuperset(text):
            return text
        return "".join(self._glyph(char) for char in text)

    def _glyph(self, char: str) -> str:
        if char in self._covered:
            return char
        if _invisible(char):
            return ""
        self.missing.add(char)
        return f"[U+{ord(char):04X}]"


@cache
def _covered() -> frozenset[str]:
    """The characters both faces have a glyph for (made once: some 0.2 ms, which every PDF spent)."""
    faces = register_fonts()
    return frozenset(map(chr, faces[REGULAR] & faces[BOLD]))


@lru_cache(maxsize=4096)
def _invisible(char: str) -> bool:
    """Format and control characters (zero-width space, soft hyphen, direction marks…): nothing to draw."""
    return unicodedata.category(char) in ("Cf", "Cc")
