"""What every block of the PDF lays out with: the page format, the theme, the printed labels, and texts made
printable, wrapped and measured in the PDF's faces."""

from __future__ import annotations

from reportlab.lib.colors import Color
from reportlab.lib.units import mm

from .compose import Lines
from .fonts import TextCleaner
from .pages import PageSize
from .textfit import fit_lines, width_of, wrap
from .themes import Theme

__all__ = ["Kit"]


class Kit:
    """Lays out texts for one PDF; :attr:`clean` remembers the characters no face could draw."""

    def __init__(self, page: PageSize, theme: Theme, labels: dict[str, str], body_room: float) -> None:
        self.page, self.theme, self.labels = page, theme, labels
        self.clean = TextCleaner()
        self.size = page.font_size
        self.width = page.content_width
        self.body_room = body_room  # height of a page's body (between running head and footer)
        self.gap = (3 if page.narrow else 5) * mm

    def font(self, bold: bool = False) -> str:
        """The regular or the bold face."""
        return self.theme.bold if bold else self.theme.font

    def text(self, text: str | None, width: float, *, size: float | None = None, bold: bool = False,
             color: Color | None = None, align: str = "left", sizes: tuple[float, ...] | None = None,
             max_lines: int = 1) -> Lines:
        """``text`` made printable and wrapped to ``width``. With ``sizes`` (largest first), the first size at
        which it takes at most ``max_lines`` lines (the last one otherwise, with as many lines as it needs)."""
        font = self.font(bold)
        cleaned = self.clean(text)
        if sizes:
            size, lines = fit_lines(cleaned, font, sizes, width, max_lines)
        else:
            size = size or self.size
            lines = wrap(cleaned, font, size, width)
        return Lines(tuple(lines), font, size, color or self.theme.ink, align)

    def small(self, text: str | None, width: float, *, bold: bool = False, align: str = "left") -> Lines:
        """A label or a note: smaller, muted."""
        return self.text(text, width, size=self.size - 1.5, bold=bold, color=self.theme.muted, align=align)

    def measure(self, text: str, *, size: float | None = None, bold: bool = False) -> float:
        """Width of an already printable ``text``."""
        return width_of(text, self.font(bold), size or self.size)
