"""Where a PDF's text lands (pdfplumber): the collisions a layout must never have, as readable descriptions.

Every character drawn upright (watermarks are rotated: left out) must lie inside the page's margins, must not
overlap a character of another place, must not cross the edge of a drawn rectangle (a box, a table row, a QR
module), a rule or an image.
"""

from __future__ import annotations

import io
from collections import defaultdict

import pdfplumber

__all__ = ["collisions"]

_TOLERANCE = 0.25  # points: what rounding may leave between neighbours that touch
_CELL = 24.0  # points: side of the grid cells characters are sorted into


def collisions(pdf: bytes, margin: float, *, limit: int = 10) -> list[str]:
    """Up to ``limit`` collisions of the text of ``pdf`` (see the module's docstring); ``margin`` is the page's
    side margin in points."""
    found: list[str] = []
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        for number, page in enumerate(document.pages, 1):
            chars = [c for c in page.chars if c.get("upright", True) and c["text"].strip()]
            found += [f"page {number}: {problem}" for problem in _page_problems(page, chars, margin)]
            if len(found) >= limit:
                break
    return found[:limit]


def _page_problems(page, chars: list[dict], margin: float) -> list[str]:
    problems = []
    width, height = float(page.width), float(page.height)
    for char in chars:
        if (char["x0"] < margin - _TOLERANCE or char["x1"] > width - margin + _TOLERANCE
                or char["top"] < margin / 3 or char["bottom"] > height - margin / 3):
            problems.append(f"{_name(char)} outside the margins")
    grid: dict[tuple[int, int], list[int]] = defaultdict(list)
    for index, char in enumerate(chars):
        for cell in _cells(char):
            grid[cell].append(index)
    problems += _overlaps(chars, grid)
    for kind, shapes in (("box", page.rects), ("image", page.images)):
        for shape in shapes:
            near = sorted({i for cell in _cells(shape) for i in grid.get(cell, ())})
            problems += _crossings([chars[i] for i in near], shape, kind)
    for line in page.lines:
        near = sorted({i for cell in _cells(line) for i in grid.get(cell, ())})
        problems += _touches([chars[i] for i in near], line)
    return problems


def _overlaps(chars: list[dict], grid: dict[tuple[int, int], list[int]]) -> list[str]:
    """Characters whose boxes overlap (beyond rounding)."""
    problems, seen = [], set()
    for members in grid.values():
        for i, first in enumerate(members):
            for second in members[i + 1:]:
                if (first, second) in seen:
                    continue
                seen.add((first, second))
                a, b = chars[first], chars[second]
                if _overlap(a, b) > _TOLERANCE:
                    problems.append(f"{_name(a)} overlaps {_name(b)}")
    return problems


def _crossings(chars: list[dict], shape: dict, kind: str) -> list[str]:
    """Characters that are partly inside ``shape`` and partly outside (across its edge)."""
    problems = []
    if shape["x1"] - shape["x0"] < 1.0 and shape["bottom"] - shape["top"] < 1.0:
        return problems
    for char in chars:
        if _overlap(char, shape) <= _TOLERANCE:
            continue
        inside = (char["x0"] >= shape["x0"] - _TOLERANCE and char["x1"] <= shape["x1"] + _TOLERANCE
                  and char["top"] >= shape["top"] - _TOLERANCE and char["bottom"] <= shape["bottom"] + _TOLERANCE)
        if not inside or kind == "image":
            problems.append(f"{_name(char)} crosses the edge of a {kind} at "
                            f"({shape['x0']:.1f}, {shape['top']:.1f})–({shape['x1']:.1f}, {shape['bottom']:.1f})")
    return problems


def _touches(chars: list[dict], line: dict) -> list[str]:
    return [f"{_name(char)} is crossed by a rule at top {line['top']:.1f}" for char in chars
            if _overlap(char, line, thin=True) > 0]


def _overlap(a: dict, b: dict, *, thin: bool = False) -> float:
    """How far two boxes overlap (the smaller of the two overlaps; for a rule, whether it passes through)."""
    across = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
    down = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    if thin:  # a rule has no thickness: it crosses a character it passes strictly through
        through = a["top"] + _TOLERANCE < b["top"] < a["bottom"] - _TOLERANCE
        return 1.0 if across > _TOLERANCE and down >= 0 and through else 0.0
    return min(across, down)


def _cells(char: dict):
    for column in range(int(char["x0"] // _CELL), int(char["x1"] // _CELL) + 1):
        for row in range(int(char["top"] // _CELL), int(char["bottom"] // _CELL) + 1):
            yield column, row


def _name(char: dict) -> str:
    return f"{char['text']!r} at ({char['x0']:.1f}, {char['top']:.1f})"
