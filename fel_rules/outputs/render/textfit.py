"""Measuring text: lines that fit a width (words kept whole when they fit, cut between characters when one is
wider than the line), the size at which a text fits in a number of lines, and a one-line shortening for running
heads."""

from __future__ import annotations

from reportlab.pdfbase.pdfmetrics import stringWidth

__all__ = ["fit_lines", "shorten", "width_of", "wrap"]


def width_of(text: str, font: str, size: float) -> float:
    """Width of ``text`` in points."""
    return stringWidth(text, font, size)


def wrap(text: str, font: str, size: float, width: float) -> list[str]:
    """``text`` (white space already collapsed) broken into lines no wider than ``width``; at least one line."""
    if not text:
        return [""]
    if stringWidth(text, font, size) <= width:
        return [text]
    space = stringWidth(" ", font, size)
    lines: list[str] = []
    current, current_width = "", 0.0
    for word in text.split(" "):
        word_width = stringWidth(word, font, size)
        if current and current_width + space + word_width <= width:
            current, current_width = f"{current} {word}", current_width + space + word_width
            continue
        if current:
            lines.append(current)
        if word_width <= width:
            current, current_width = word, word_width
            continue
        pieces = _cut(word, font, size, width)  # a word wider than the line: cut it between characters
        lines += pieces[:-1]
        current, current_width = pieces[-1], stringWidth(pieces[-1], font, size)
    lines.append(current)
    return lines


def _cut(word: str, font: str, size: float, width: float) -> list[str]:
    """``word`` in pieces no wider than ``width`` (at least one character each)."""
    pieces = []
    while word:
        high = min(len(word), int(width / (0.2 * size)) + 2)  # no glyph is narrower than a fifth of the size…
        while high < len(word) and stringWidth(word[:high], font, size) <= width:
            high = min(len(word), 2 * high)  # …except marks and the like: look further
        low = 1
        while low < high:  # the longest prefix that fits
            middle = (low + high + 1) // 2
            if stringWidth(word[:middle], font, size) <= width:
                low = middle
            else:
                high = middle - 1
        pieces.append(word[:low])
        word = word[low:]
    return pieces


def fit_lines(text: str, font: str, sizes: tuple[float, ...], width: float, max_lines: int) -> tuple[float, list[str]]:
    """The first size of ``sizes`` (largest first) at which ``text`` takes at most ``max_lines`` lines, and those
    lines; at the last size the text takes as many lines as it needs (nothing is ever cut off)."""
    for size in sizes:
        lines = wrap(text, font, size, width)
        if len(lines) <= max_lines:
            return size, lines
    return sizes[-1], lines


def shorten(text: str, font: str, size: float, width: float) -> str:
    """``text`` on one line no wider than ``width``, shortened with "…" when needed (running heads and footers,
    which repeat what the first page prints in full)."""
    if stringWidth(text, font, size) <= width:
        return text
    low, high = 0, min(len(text), int(width / (0.2 * size)) + 2)
    while low < high:
        middle = (low + high + 1) // 2
        if stringWidth(text[:middle].rstrip() + "…", font, size) <= width:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + "…"
