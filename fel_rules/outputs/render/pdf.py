"""Lay out an :class:`~fel_rules.outputs.render.view.InvoiceView` as a PDF (deterministic bytes): the header, the
parties and the body as measured bands stacked down the pages, then on each page the watermarks, the running head
and the footer with "Página N de M".

The PDF's streams are binary (compressed; the logo's JPEG as it is), not also ASCII85-encoded as reportlab writes them
by default: a tenth smaller, and some 2 ms less to write a one-page invoice (:func:`_binary_streams`). reportlab's
setting for that (``rl_config.useA85``) is the whole process's, and other reportlab code may rely on it: it is left
as it is. A page's contents are compressed at zlib's fastest level (:data:`_QUICK_FLATE`): a one-page invoice's
20–25 KB of operators take some 0.15–0.2 ms instead of 0.5 ms, for under 1 KB more a page.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

from reportlab.lib.units import mm
from reportlab.pdfbase.pdfdoc import PDFImageXObject, PDFPage, PDFStream
from reportlab.pdfbase.pdfutils import asciiBase85Decode
from reportlab.pdfgen.canvas import Canvas

from .body import body_bands
from .compose import Band, Placed, paginate
from .fonts import ascent
from .head import header_band, parties_band
from .kit import Kit
from .logo import logo_reader
from .pages import MAX_PAGE_HEIGHT, PAGES, PageSize
from .subsets import deflated
from .textfit import shorten, width_of
from .themes import THEMES, Theme
from .view import InvoiceView

__all__ = ["RenderedPdf", "render_view"]


class _QuickFlate:
    """A Flate filter (for reportlab's streams) at zlib's fastest level; reportlab's own uses the default level."""

    pdfname = "FlateDecode"

    @staticmethod
    def encode(content: str | bytes) -> bytes:
        return deflated(content, 1)


_QUICK_FLATE = _QuickFlate()
_RUNNING_HEAD = 8 * mm  # room taken by the running head on the pages after the first
_SMALL = 7.0  # points: running head and footer


@dataclass(frozen=True)
class RenderedPdf:
    """The PDF's bytes, and the characters no face of the PDF could draw (printed as ``[U+XXXX]``)."""

    pdf: bytes
    missing: tuple[str, ...] = ()


def render_view(view: InvoiceView, *, theme_name: str = "clasico", logo: bytes | None = None,
                qr_size_mm: float = 30, header_mm: float = 28, page: str = "carta") -> RenderedPdf:
    """The PDF of ``view`` (same view, theme, logo and page format → same bytes)."""
    theme, size = THEMES[theme_name], PAGES[page]
    height = size.height or MAX_PAGE_HEIGHT
    kit = Kit(size, theme, view.labels, height - size.top - _RUNNING_HEAD - size.bottom)
    reader = logo_reader(logo) if logo else None
    space = Band(4 * mm if not size.narrow else 3 * mm, lambda *args: None)
    bands = [header_band(view, kit, reader, header_mm * mm), space, parties_band(view, kit), space,
             *body_bands(view, kit, qr_size_mm * mm)]
    if size.height is None:  # a roll: the page is as tall as what it holds
        height = min(MAX_PAGE_HEIGHT, size.top + sum(band.height for band in bands) + size.bottom + 1)
    pages = paginate(bands, height - size.top, height - size.top - _RUNNING_HEAD, size.bottom)
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(size.width, height), invariant=1, initialFontName=theme.font,
                    initialFontSize=size.font_size)  # no page refers to a font that is not embedded
    canvas.setTitle(" ".join(part for part in (view.title, view.serie, view.numero) if part))
    canvas.setAuthor(view.emisor.name)
    canvas.setSubject("FEL")
    canvas.setCreator("fel-rules")
    for number, placed in enumerate(pages, 1):
        _page(canvas, view, kit, size, theme, height, placed, number, len(pages))
    _binary_streams(canvas._doc)
    canvas.save()
    return RenderedPdf(buffer.getvalue(), tuple(sorted(kit.clean.missing)))


def _binary_streams(document) -> None:
    """Make the page contents and the JPEG images of ``document`` (reportlab's, all pages drawn, not yet saved)
    binary streams, as reportlab writes them with ``rl_config.useA85`` off: the contents compressed (at the fastest
    level), a JPEG as it is. An object of another shape is left as reportlab made it."""
    for page in document.Pages.pages:  # (a page's contents are made when saved, unless already there)
        if isinstance(page, PDFPage) and page.compression and not page.Contents and page.stream:
            page.Contents = PDFStream(content=page.stream, filters=[_QUICK_FLATE])
    for found in document.idToObject.values():
        if isinstance(found, PDFImageXObject) and tuple(found._filters) == ("ASCII85Decode", "DCTDecode"):
            found.streamContent = asciiBase85Decode(found.streamContent)
            found._filters = ("DCTDecode",)


def _page(canvas: Canvas, view: InvoiceView, kit: Kit, size: PageSize, theme: Theme, height: float,
          placed: list[Placed], number: int, pages: int) -> None:
    _watermarks(canvas, view, kit, size.width, height)
    if number > 1:
        heading = " · ".join(part for part in (view.title, view.emisor.commercial_name or view.emisor.name,
                                               "-".join(p for p in (view.serie, view.numero) if p)) if part)
        canvas.setFont(theme.font, _SMALL)
        canvas.setFillColor(theme.muted)
        canvas.drawString(size.margin, height - size.top - ascent(_SMALL),
                          shorten(kit.clean(heading), theme.font, _SMALL, kit.width))
    for item in placed:
        item.band.draw(canvas, size.margin, item.top)
    if not size.ticket or pages > 1:
        _footer(canvas, view, kit, size, theme, number, pages)
    canvas.showPage()


def _footer(canvas: Canvas, view: InvoiceView, kit: Kit, size: PageSize, theme: Theme, number: int,
            pages: int) -> None:
    baseline = size.bottom - 9 * mm if not size.ticket else 2 * mm
    baseline = max(baseline, 2 * mm)
    canvas.setStrokeColor(theme.rule)
    canvas.setLineWidth(0.5)
    canvas.line(size.margin, baseline + 3.5 * mm, size.width - size.margin, baseline + 3.5 * mm)
    canvas.setFont(theme.font, _SMALL)
    canvas.setFillColor(theme.muted)
    page = kit.clean(view.labels["pagina"].format(page=number, pages=pages))
    canvas.drawRightString(size.width - size.margin, baseline, page)
    footer = " · ".join(part for part in (view.uuid, view.certificador) if part)
    room = kit.width - width_of(page, theme.font, _SMALL) - 4 * mm
    if footer and room > 10 * mm:
        canvas.drawString(size.margin, baseline, shorten(kit.clean(footer), theme.font, _SMALL, room))


def _watermarks(canvas: Canvas, view: InvoiceView, kit: Kit, width: float, height: float) -> None:
    """The watermarks along the page's diagonal, under everything else, always inside the page."""
    if not view.watermarks:
        return
    theme = kit.theme
    diagonal = math.hypot(width, height)
    canvas.saveState()
    canvas.setFillColor(theme.watermark)
    canvas.translate(width / 2, height / 2)
    canvas.rotate(math.degrees(math.atan2(height, width)))
    count = len(view.watermarks)
    for index, text in enumerate(view.watermarks):
        size = min(72.0, 0.7 * diagonal / width_of(text, theme.bold, 1), 0.25 * min(width, height))
        canvas.setFont(theme.bold, size)
        canvas.drawCentredString(0, (count - 1) * 0.65 * size - index * 1.3 * size - size / 3, text)
    canvas.restoreState()
