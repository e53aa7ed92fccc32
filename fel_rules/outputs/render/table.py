"""Tables as bands: columns as wide as their content (one flexible column takes the rest), every cell wrapped
to its column, a header repeated on each page, and a row taller than a page continued on the next one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reportlab.lib.colors import Color
from reportlab.pdfgen.canvas import Canvas

from .compose import Band, Lines
from .fonts import line_height
from .kit import Kit
from .textfit import wrap

__all__ = ["Column", "table_bands"]

_PAD = 3.5  # points left and right of a cell's text
_TOP, _BOTTOM = 2.6, 3.0  # points above and below a row's text
_ROW_LINES = 8  # lines of a row per band: a longer row continues on further bands


@dataclass(frozen=True)
class Column:
    """One column: its title, how its cells align, whether it takes the width left (``flex``), how wide it may
    grow at most (a share of the table), and the style of its cells."""

    title: str
    align: str = "left"
    flex: bool = False
    bold: bool = False
    muted: bool = False
    max_share: float = 0.3
    min_width: float = 0.0  # points


def table_bands(kit: Kit, columns: Sequence[Column], rows: Sequence[Sequence[str | None]], *,
                size: float | None = None, header: bool = True, zebra: bool = True,
                min_flex_share: float = 0.4) -> list[Band]:
    """The bands of a table spanning the content width: the header (kept with the first row) and one band per
    row, or one per few lines of a tall row (which so fills the page and goes on on the next one)."""
    size = size or kit.size - 0.5
    cells = [[kit.clean(cell) for cell in row] for row in rows]
    widths = _widths(kit, columns, cells, size, header, min_flex_share)
    theme = kit.theme
    bands: list[Band] = []
    head: Band | None = None
    if header:
        titles = [Lines(tuple(wrap(kit.clean(c.title), theme.bold, size, w - 2 * _PAD)), theme.bold, size,
                        theme.accent_text, c.align) for c, w in zip(columns, widths, strict=True)]
        head = _band(titles, widths, fill=theme.header_fill, keep=True)
        bands.append(head)
    # a tall row is laid out in bands of a few lines: the page takes as many as it has room for
    limit = max(1, min(_ROW_LINES, int((0.45 * kit.body_room - _TOP - _BOTTOM) / line_height(size))))
    for index, row in enumerate(cells):
        laid = []
        for column, width, cell in zip(columns, widths, row, strict=True):
            font = theme.bold if column.bold else theme.font
            color = theme.muted if column.muted else theme.ink
            laid.append(Lines(tuple(wrap(cell, font, size, width - 2 * _PAD)), font, size, color, column.align))
        fill = theme.zebra if zebra and index % 2 else None
        tallest = max(len(lines.lines) for lines in laid)
        for start in range(0, tallest, limit):  # a tall row continues on further bands, without gaps
            piece = laid if tallest <= limit else [
                Lines(lines.lines[start:start + limit], lines.font, lines.size, lines.color, lines.align)
                for lines in laid]
            bands.append(_band(piece, widths, fill=fill, header=head, top=start == 0,
                               bottom=start + limit >= tallest))
    if len(bands) > (1 if header else 0):
        last = bands[-1]
        bands[-1] = Band(last.height, _ruled(last, theme.rule, kit.width), header=last.header)
    return bands


def _widths(kit: Kit, columns: Sequence[Column], cells: list[list[str]], size: float, header: bool,
            min_flex_share: float) -> list[float]:
    """Each fixed column as wide as its widest cell (or title), within its maximum share; the flexible one gets
    the rest, at least ``min_flex_share`` of the table (the fixed ones narrow in proportion when needed)."""
    total = kit.width
    natural = []
    for index, column in enumerate(columns):
        if column.flex:
            natural.append(0.0)
            continue
        widest = max((kit.measure(row[index], size=size, bold=column.bold) for row in cells if row[index]),
                     default=0.0)
        if header:
            widest = max(widest, kit.measure(kit.clean(column.title), size=size, bold=True))
        natural.append(min(max(widest + 2 * _PAD + 0.5, column.min_width), column.max_share * total))
    fixed = sum(natural)
    room = total * (1 - min_flex_share) if any(c.flex for c in columns) else total
    if fixed > room:
        natural = [width * room / fixed for width in natural]
        fixed = room
    flex = total - fixed
    flexible = [i for i, c in enumerate(columns) if c.flex]
    if not flexible:  # no flexible column: spread what is left over all of them
        return [width + flex / len(columns) for width in natural]
    return [flex / len(flexible) if c.flex else natural[i] for i, c in enumerate(columns)]


def _band(cells: list[Lines], widths: list[float], *, fill: Color | None, keep: bool = False,
          header: Band | None = None, top: bool = True, bottom: bool = True) -> Band:
    pad_top, pad_bottom = (_TOP if top else 0.0), (_BOTTOM if bottom else 0.0)
    height = pad_top + pad_bottom + max(lines.height for lines in cells)

    def draw(canvas: Canvas, x: float, y: float) -> None:
        if fill is not None:
            canvas.setFillColor(fill)
            canvas.rect(x, y - height, sum(widths), height, stroke=0, fill=1)
        left = x
        for lines, width in zip(cells, widths, strict=True):
            lines.draw(canvas, left + _PAD, y - pad_top, width - 2 * _PAD)
            left += width

    return Band(height, draw, keep_with_next=keep, header=header)


def _ruled(band: Band, color: Color, width: float):
    """``band``'s drawing with a rule under it (the end of the table)."""

    def draw(canvas: Canvas, x: float, y: float) -> None:
        band.draw(canvas, x, y)
        canvas.setStrokeColor(color)
        canvas.setLineWidth(0.6)
        canvas.line(x, y - band.height, x + width, y - band.height)

    return draw
