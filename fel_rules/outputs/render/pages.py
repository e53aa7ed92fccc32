"""Page sizes of the PDF: carta (letter, the default), media carta (half letter) and an 80 mm ticket roll."""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.lib.units import mm

__all__ = ["MAX_PAGE_HEIGHT", "PAGES", "PageSize"]

#: The tallest page a PDF may have (200 inches): a ticket longer than this continues on another page.
MAX_PAGE_HEIGHT = 14_400.0


@dataclass(frozen=True)
class PageSize:
    """One page format: its size, its margins, the base font size, and how its blocks are arranged."""

    name: str
    width: float
    height: float | None  # None: as tall as the content (a roll of paper)
    margin: float
    top: float  # room above the first line of text
    bottom: float  # room below the last line of the body, footer included
    font_size: float
    narrow: bool  # the header stacks: emisor first, then the document's box, full width
    ticket: bool  # one column: lines as a list, totals and QR one below the other

    @property
    def content_width(self) -> float:
        """Width between the margins."""
        return self.width - 2 * self.margin


PAGES: dict[str, PageSize] = {
    "carta": PageSize("carta", 215.9 * mm, 279.4 * mm, 14 * mm, 14 * mm, 22 * mm, 8.5, False, False),
    "media-carta": PageSize("media-carta", 139.7 * mm, 215.9 * mm, 9 * mm, 10 * mm, 17 * mm, 7.5, True, False),
    "ticket": PageSize("ticket", 80 * mm, None, 4 * mm, 6 * mm, 8 * mm, 7.5, True, True),
}
