"""Bands and pages: every block of the PDF is laid out as bands of known height, stacked down the page; a band
that does not fit starts a new page (with its table's header again), so nothing is ever drawn over anything else.

A band is drawn by a function of the canvas and its top-left corner; its height was measured from its content
before anything is drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reportlab.lib.colors import Color
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from .fonts import ascent, line_height
from .textops import write_lines

__all__ = ["Band", "Block", "Lines", "Part", "Placed", "beside", "boxed", "paginate", "stack"]

Draw = Callable[[Canvas, float, float], None]


@dataclass(frozen=True)
class Lines:
    """Lines of text in one font, size and colour: ``leading`` apart, aligned ``left``, ``right`` or ``center``
    in a width given when drawn."""

    lines: tuple[str, ...]
    font: str
    size: float
    color: Color
    align: str = "left"

    @property
    def leading(self) -> float:
        """Distance between baselines (the font's full height: lines never overlap)."""
        return line_height(self.size)

    @property
    def height(self) -> float:
        """Height of all the lines."""
        return len(self.lines) * self.leading

    def draw(self, canvas: Canvas, x: float, top: float, width: float) -> None:
        """Draw the lines with their first line's top at ``top``, within ``width`` from ``x``."""
        if not any(self.lines):
            return
        if self.align == "left":
            lefts = [x] * len(self.lines)
        else:
            share = 1.0 if self.align == "right" else 0.5
            lefts = [x + (width - stringWidth(line, self.font, self.size)) * share for line in self.lines]
        write_lines(canvas, self.lines, lefts, top - ascent(self.size), self.font, self.size, self.color, self.leading)


@dataclass(frozen=True)
class Block:
    """Something ``height`` points tall drawn by ``paint(canvas, x, top, width)``: lines, a stack, a box."""

    height: float
    paint: Callable[[Canvas, float, float, float], None]

    def draw(self, canvas: Canvas, x: float, top: float, width: float) -> None:
        """Draw with the top-left corner at ``(x, top)``."""
        self.paint(canvas, x, top, width)


Part = Lines | Block | float


def stack(parts: Sequence[Part]) -> Block:
    """Parts one below the other (a number is a gap, in points)."""
    parts = [part for part in parts if not isinstance(part, Lines) or part.lines]
    height = sum(part if isinstance(part, float | int) else part.height for part in parts)

    def paint(canvas: Canvas, x: float, top: float, width: float) -> None:
        for part in parts:
            if isinstance(part, float | int):
                top -= part
            else:
                part.draw(canvas, x, top, width)
                top -= part.height

    return Block(height, paint)


def beside(columns: Sequence[tuple[float, Part]], gap: float) -> Block:
    """Parts side by side, each in its own width (``(width, part)``), ``gap`` points apart, tops aligned."""
    height = max((part.height for _, part in columns if not isinstance(part, float | int)), default=0.0)

    def paint(canvas: Canvas, x: float, top: float, width: float) -> None:
        for column_width, part in columns:
            if not isinstance(part, float | int):
                part.draw(canvas, x, top, column_width)
            x += column_width + gap

    return Block(height, paint)


def boxed(part: Part, pad: float, *, fill: Color | None = None, stroke: Color | None = None,
          height: float | None = None) -> Block:
    """``part`` inside a rectangle ``pad`` points larger on every side (at least ``height`` tall), filled and
    outlined as asked."""
    inner = stack([part])
    outer = max(inner.height + 2 * pad, height or 0.0)

    def paint(canvas: Canvas, x: float, top: float, width: float) -> None:
        if fill is not None or stroke is not None:
            if fill is not None:
                canvas.setFillColor(fill)
            if stroke is not None:
                canvas.setStrokeColor(stroke)
                canvas.setLineWidth(0.6)
            canvas.rect(x, top - outer, width, outer, stroke=int(stroke is not None), fill=int(fill is not None))
        inner.draw(canvas, x + pad, top - pad, width - 2 * pad)

    return Block(outer, paint)


@dataclass(frozen=True)
class Band:
    """A horizontal strip of the page, never split: ``height`` points tall, drawn by ``draw(canvas, x, top)``.
    ``keep_with_next`` keeps it on the page of the band after it (a title with its first row); a band with a
    ``header`` (a table's row) that starts a page gets that header above it."""

    height: float
    draw: Draw
    keep_with_next: bool = False
    header: Band | None = None


@dataclass(frozen=True)
class Placed:
    """A band and the top of its place on its page."""

    band: Band
    top: float


def paginate(bands: Sequence[Band], first_top: float, later_top: float, bottom: float) -> list[list[Placed]]:
    """``bands`` stacked down pages whose body runs from ``first_top`` (``later_top`` after the first page) down to
    ``bottom``. A band (with the bands it is kept with) that does not fit where it would go starts a new page."""
    pages: list[list[Placed]] = [[]]
    top = first_top
    for index, band in enumerate(bands):
        needed = _kept_height(bands, index)
        room = later_top - bottom
        if pages[-1] and top - min(needed, room) < bottom - 0.01:
            pages.append([])
            top = later_top
            if band.header is not None and band.header is not band:
                pages[-1].append(Placed(band.header, top))
                top -= band.header.height
        pages[-1].append(Placed(band, top))
        top -= band.height
    return pages


def _kept_height(bands: Sequence[Band], index: int) -> float:
    """Height of ``bands[index]`` and of every following band it is kept with."""
    height = bands[index].height
    while bands[index].keep_with_next and index + 1 < len(bands):
        index += 1
        height += bands[index].height
    return height
