"""Lay out an :class:`~fel_rules.outputs.render.view.InvoiceView` as a PDF with reportlab (deterministic bytes)."""

from __future__ import annotations

import copy
import io
from functools import lru_cache
from xml.sax.saxutils import escape

from PIL import Image as PILImage
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    Flowable,
    KeepTogether,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from .qr import QRCodeFlowable
from .themes import THEMES, Theme
from .view import InvoiceView

__all__ = ["render_view"]

_MARGIN = 14 * mm
_WIDTH = LETTER[0] - 2 * _MARGIN


class _Styles:
    """Paragraph styles of one theme."""

    def __init__(self, theme: Theme) -> None:
        base = ParagraphStyle("base", fontName=theme.font, fontSize=8.5, leading=10.5)
        self.body = base
        self.small = ParagraphStyle("small", parent=base, fontSize=7.5, leading=9, textColor=theme.muted)
        self.bold = ParagraphStyle("bold", parent=base, fontName=theme.bold)
        self.name = ParagraphStyle("name", parent=base, fontName=theme.bold, fontSize=12, leading=14.5)
        self.title = ParagraphStyle("title", parent=base, fontName=theme.bold, fontSize=13, leading=16,
                                    textColor=theme.accent_text, alignment=TA_RIGHT)
        self.box = ParagraphStyle("box", parent=base, textColor=theme.accent_text, alignment=TA_RIGHT, fontSize=8)
        self.cell = ParagraphStyle("cell", parent=base, fontSize=8, leading=9.6)
        self.cell_right = ParagraphStyle("cell_right", parent=self.cell, alignment=TA_RIGHT)
        self.head = ParagraphStyle("head", parent=base, fontName=theme.bold, fontSize=8, textColor=theme.accent_text)
        self.head_right = ParagraphStyle("head_right", parent=self.head, alignment=TA_RIGHT)
        self.section = ParagraphStyle("section", parent=base, fontName=theme.bold, fontSize=9.5,
                                      textColor=theme.accent, spaceBefore=4, spaceAfter=2)
        self.total = ParagraphStyle("total", parent=base, fontName=theme.bold, fontSize=11, alignment=TA_RIGHT)


def _p(text: str | None, style: ParagraphStyle) -> Paragraph:
    return Paragraph(escape(text or ""), style)


def render_view(view: InvoiceView, *, theme_name: str = "clasico", logo: bytes | None = None,
                qr_size_mm: float = 30, header_mm: float = 28) -> bytes:
    """The PDF bytes of ``view`` (same view, theme and logo → same bytes)."""
    theme = THEMES[theme_name]
    styles = _Styles(theme)
    buffer = io.BytesIO()
    document = SimpleDocTemplate(
        buffer, pagesize=LETTER, leftMargin=_MARGIN, rightMargin=_MARGIN, topMargin=_MARGIN,
        bottomMargin=_MARGIN + 8 * mm, title=f"{view.title} {view.serie or ''} {view.numero or ''}".strip(),
        author=view.emisor.name, subject="FEL", creator="fel-rules", invariant=1,
    )
    story = [
        _header(view, styles, theme, logo, header_mm),
        Spacer(1, 4 * mm),
        _parties(view, styles, theme),
        Spacer(1, 4 * mm),
        _items(view, styles, theme),
        Spacer(1, 3 * mm),
        KeepTogether([_totals(view, styles, theme)]),
    ]
    if view.frases:
        story += [_p(view.labels["frases"], styles.section)] + [_p(f"• {text}", styles.body) for text in view.frases]
    for section in view.sections:
        story.append(KeepTogether([_p(section.title, styles.section), _section(section, styles, theme)]))
    story += [Spacer(1, 4 * mm), KeepTogether([_certification(view, styles, theme, qr_size_mm)])]
    page = _PageDecor(view, theme)
    document.build(story, onFirstPage=page, onLaterPages=page, canvasmaker=_numbered_canvas(view, theme))
    return buffer.getvalue()


def _header(view: InvoiceView, styles: _Styles, theme: Theme, logo: bytes | None, header_mm: float) -> Table:
    height = header_mm * mm
    logo_cell: object = ""
    logo_width = 0.0
    if logo:
        reader = _image_reader(logo)
        width, h = reader.getSize()
        scale = min(height / h, 48 * mm / width)
        logo_width = width * scale
        logo_cell = _Logo(reader, width * scale, h * scale)
    emisor = view.emisor
    emisor_cell = [_p(emisor.commercial_name or emisor.name, styles.name)]
    if emisor.commercial_name and emisor.commercial_name != emisor.name:
        emisor_cell.append(_p(emisor.name, styles.body))
    establishment = f" · {emisor.establishment}" if emisor.establishment else ""
    emisor_cell.append(_p(f"{emisor.id_label} {emisor.id_value}{establishment}", styles.body))
    if emisor.address:
        emisor_cell.append(_p(emisor.address, styles.small))
    labels = view.labels
    box = [_p(view.title, styles.title)]
    if view.serie or view.numero:
        box.append(_p(f"{labels['serie']} {view.serie or '—'} · {labels['numero']} {view.numero or '—'}", styles.box))
    if view.fecha_emision:
        box.append(_p(f"{labels['emision']}: {view.fecha_emision}", styles.box))
    box_width = 68 * mm
    logo_column = (logo_width + 4 * mm) if logo else 0.001
    cells = [[logo_cell, emisor_cell, box]]
    widths = [logo_column, _WIDTH - logo_column - box_width, box_width]
    _, needed = Table(cells, colWidths=widths).wrap(_WIDTH, LETTER[1])
    table = Table(cells, colWidths=widths, rowHeights=[max(height, needed)])  # long names make the band taller
    table.setStyle(TableStyle([
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("BACKGROUND", (2, 0), (2, 0), theme.header_fill),
        ("LEFTPADDING", (0, 0), (0, 0), 0),
        ("RIGHTPADDING", (2, 0), (2, 0), 8),
    ]))
    return table


def _image_reader(data: bytes) -> ImageReader:
    """A reader of the logo for one PDF: a copy of the reader prepared once per process (decoded once), with
    its own file, since a reader keeps a file position and PDFs rendered at the same time (MCP tool calls on
    several threads) must not share one."""
    prepared = _prepared_reader(data)
    reader = copy.copy(prepared)
    reader.fp = io.BytesIO(prepared.fp.getvalue())
    reader.jpeg_fh = reader._jpeg_fh  # bound to this copy, not to the prepared reader
    return reader


@lru_cache(maxsize=8)
def _prepared_reader(data: bytes) -> ImageReader:
    """The logo as reportlab reads it, prepared once per process."""
    return _JpegReader(io.BytesIO(_flat_jpeg(data)))


class _JpegReader(ImageReader):
    """A reader of a JPEG that reportlab embeds as it is. reportlab asks a reader for its pixels only to name
    the image inside the PDF (a digest of them); the JPEG's own bytes name it as well, without decoding and
    hashing every pixel of the logo on each PDF."""

    def getRGBData(self) -> bytes:  # noqa: N802 - reportlab's API
        self._dataA = None  # flattened on white: no alpha channel, no soft mask
        return self.fp.getvalue()


@lru_cache(maxsize=8)
def _flat_jpeg(data: bytes) -> bytes:
    """The logo prepared once per process: flattened on white and stored as a JPEG, which reportlab
    embeds as it is (no decoding or recompression per PDF; about 4 ms saved per invoice)."""
    with PILImage.open(io.BytesIO(data)) as image:
        image.load()
        rgba = image.convert("RGBA")
    flat = PILImage.new("RGB", rgba.size, "white")
    flat.paste(rgba, mask=rgba.getchannel("A"))
    buffer = io.BytesIO()
    flat.save(buffer, format="JPEG", quality=92, optimize=True)
    return buffer.getvalue()


class _Logo(Flowable):
    """The logo drawn straight from a cached :class:`ImageReader`."""

    def __init__(self, reader: ImageReader, width: float, height: float) -> None:
        super().__init__()
        self.reader, self.width, self.height = reader, width, height

    def draw(self) -> None:
        self.canv.drawImage(self.reader, 0, 0, self.width, self.height)


def _parties(view: InvoiceView, styles: _Styles, theme: Theme) -> Table:
    labels, receptor = view.labels, view.receptor
    left = [_p(labels["receptor"].upper(), styles.small), _p(receptor.name, styles.bold),
            _p(f"{receptor.id_label}: {receptor.id_value}", styles.body)]
    if receptor.address:
        left.append(_p(receptor.address, styles.small))
    right = [_p(labels["autorizacion"].upper(), styles.small), _p(view.uuid or "—", styles.bold)]
    if view.fecha_certificacion:
        right.append(_p(f"{labels['certificacion']}: {view.fecha_certificacion}", styles.body))
    right.append(_p(f"{labels['moneda']}: {view.currency}", styles.body))
    table = Table([[left, right]], colWidths=[_WIDTH * 0.55, _WIDTH * 0.45], splitInRow=1)
    table.setStyle(TableStyle([
        ("BOX", (0, 0), (-1, -1), 0.6, theme.rule),
        ("LINEBEFORE", (1, 0), (1, 0), 0.6, theme.rule),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 5), ("BOTTOMPADDING", (0, 0), (-1, -1), 6),
    ]))
    return table


_ITEM_WIDTHS = [9 * mm, 16 * mm, 9 * mm, None, 23 * mm, 20 * mm, 25 * mm]
#: A description longer than this continues on further rows of its item (about 10 lines each, without
#: padding between them), so the table splits between pages whatever its length (SAT allows 10,000
#: characters; one row must fit on a page).
_PIECE_CHARS = 600


def _items(view: InvoiceView, styles: _Styles, theme: Theme) -> Table:
    labels = view.labels
    head = [_p("#", styles.head), _p(labels["cantidad"], styles.head_right), _p(labels["bs"], styles.head),
            _p(labels["descripcion"], styles.head), _p(labels["unitario"], styles.head_right),
            _p(labels["descuento"], styles.head_right), _p(labels["total"], styles.head_right)]
    rows = [head]
    zebra: list[tuple[int, int]] = []
    continued: list[int] = []
    for index, item in enumerate(view.items):  # plain strings where nothing wraps: cheaper than Paragraphs
        first, *rest = _pieces(item.description)
        if index % 2:
            zebra.append((len(rows), len(rows) + len(rest)))
        continued += range(len(rows), len(rows) + len(rest))
        rows.append([item.number, item.quantity, item.kind, _p(first, styles.cell),
                     item.unit_price, item.discount, item.total])
        rows += [["", "", "", _p(piece, styles.cell), "", "", ""] for piece in rest]
    fixed = sum(width for width in _ITEM_WIDTHS if width)
    widths = [width or (_WIDTH - fixed) for width in _ITEM_WIDTHS]
    table = Table(rows, colWidths=widths, repeatRows=1)
    commands = [
        ("BACKGROUND", (0, 0), (-1, 0), theme.header_fill),
        ("FONT", (0, 1), (-1, -1), theme.font, 8),
        ("ALIGN", (1, 1), (1, -1), "RIGHT"),
        ("ALIGN", (4, 1), (-1, -1), "RIGHT"),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LINEBELOW", (0, -1), (-1, -1), 0.6, theme.rule),
        ("TOPPADDING", (0, 0), (-1, -1), 2.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 3.5),
    ]
    commands += [("BACKGROUND", (0, first), (-1, last), theme.zebra) for first, last in zebra]
    for row in continued:  # the next row goes on with this row's description: no gap between them
        commands += [("BOTTOMPADDING", (0, row), (-1, row), 0), ("TOPPADDING", (0, row + 1), (-1, row + 1), 0)]
    table.setStyle(TableStyle(commands))
    return table


def _pieces(text: str, size: int = _PIECE_CHARS) -> list[str]:
    """``text`` in pieces of at most ``size`` characters, cut between words where there is a space."""
    text = " ".join(text.split())  # a Paragraph collapses white space anyway
    pieces = []
    while len(text) > size:
        cut = text.rfind(" ", 0, size + 1)
        cut = cut if cut > 0 else size
        pieces.append(text[:cut])
        text = text[cut:].lstrip(" ")
    return [*pieces, text]


def _totals(view: InvoiceView, styles: _Styles, theme: Theme) -> Table:
    rows = [[_p(label, styles.cell_right), _p(value, styles.cell_right)] for label, value in view.totals]
    rows.append([_p(view.labels["gran_total"], styles.total), _p(view.gran_total, styles.total)])
    words = Paragraph(f"<b>{escape(view.labels['en_letras'])}:</b> {escape(view.gran_total_words)}", styles.body)
    inner = Table(rows, colWidths=[38 * mm, 34 * mm])
    inner.setStyle(TableStyle([
        ("LINEABOVE", (0, -1), (-1, -1), 1, theme.accent),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
    ]))
    outer = Table([[words, inner]], colWidths=[_WIDTH - 74 * mm, 74 * mm])
    outer.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "BOTTOM"), ("LEFTPADDING", (0, 0), (0, 0), 0)]))
    return outer


class _LeftTable(Table):
    """A left-aligned table whose pieces stay left-aligned when a row splits across pages (reportlab
    builds the pieces with ``self.__class__`` but forgets ``hAlign`` when it splits inside a row)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **{**kwargs, "hAlign": "LEFT"})


def _section(section, styles: _Styles, theme: Theme) -> Table:
    if section.headers:
        rows = [[_p(header, styles.head) for header in section.headers]]
        rows += [[_p(cell, styles.cell) for cell in row] for row in section.rows]
        table = _LeftTable(rows, colWidths=[32 * mm] * len(section.headers), splitInRow=1)
        table.setStyle(TableStyle([("BACKGROUND", (0, 0), (-1, 0), theme.header_fill),
                                   ("VALIGN", (0, 0), (-1, -1), "TOP"),
                                   ("LINEBELOW", (0, -1), (-1, -1), 0.6, theme.rule)]))
        return table
    rows = [[_p(label, styles.small), _p(value, styles.cell)] for label, value in section.pairs]
    table = _LeftTable(rows or [["", ""]], colWidths=[45 * mm, _WIDTH - 45 * mm], splitInRow=1)
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                               ("TOPPADDING", (0, 0), (-1, -1), 1), ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
                               ("LEFTPADDING", (0, 0), (0, -1), 0)]))
    return table


def _certification(view: InvoiceView, styles: _Styles, theme: Theme, qr_size_mm: float) -> Table:
    labels = view.labels
    if view.qr_url is None:
        return Table([[_p(labels["sin_certificar"], styles.small)]], colWidths=[_WIDTH])
    lines = [_p(labels["verificar"], styles.bold), _p(f"{labels['autorizacion']}: {view.uuid}", styles.body)]
    if view.certificador:
        lines.append(_p(f"{labels['certificador']}: {view.certificador}", styles.body))
    if view.fecha_certificacion:
        lines.append(_p(f"{labels['certificacion']}: {view.fecha_certificacion}", styles.body))
    size = qr_size_mm * mm
    table = Table([[QRCodeFlowable(view.qr_url, size), lines]], colWidths=[size + 5 * mm, _WIDTH - size - 5 * mm])
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("LEFTPADDING", (0, 0), (0, 0), 0)]))
    return table


class _PageDecor:
    """Watermark and running header, drawn under each page's content."""

    def __init__(self, view: InvoiceView, theme: Theme) -> None:
        self.view, self.theme = view, theme

    def __call__(self, canvas: Canvas, document) -> None:
        canvas.saveState()
        if self.view.watermarks:
            canvas.setFillColor(self.theme.watermark)
            canvas.translate(LETTER[0] / 2, LETTER[1] / 2)
            canvas.rotate(52)  # along the diagonal of a letter page
            count = len(self.view.watermarks)
            for index, text in enumerate(self.view.watermarks):
                size = min(72.0, 700 / stringWidth(text, self.theme.bold, 1))  # always inside the page
                canvas.setFont(self.theme.bold, size)
                canvas.drawCentredString(0, (count - 1) * 45 - index * 90 - size / 3, text)
        canvas.restoreState()
        if document.page > 1:
            canvas.saveState()
            canvas.setFont(self.theme.font, 7.5)
            canvas.setFillColor(self.theme.muted)
            view = self.view
            heading = (f"{view.title} · {view.emisor.commercial_name or view.emisor.name}"
                       + (f" · {view.serie}-{view.numero}" if view.serie else ""))
            canvas.drawString(_MARGIN, LETTER[1] - _MARGIN + 3 * mm, _fit(heading, self.theme.font, 7.5, _WIDTH))
            canvas.restoreState()


def _fit(text: str, font: str, size: float, width: float) -> str:
    """``text``, shortened with "…" to fit in ``width`` points on one line (running headers and footers)."""
    if stringWidth(text, font, size) <= width:
        return text
    while text and stringWidth(text + "…", font, size) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _numbered_canvas(view: InvoiceView, theme: Theme) -> type[Canvas]:
    """A canvas class that holds pages back until the end, to print "Página N de M" on each."""
    footer_left = " · ".join(part for part in (view.uuid, view.certificador) if part)

    class NumberedCanvas(Canvas):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self._held: list[dict] = []

        def showPage(self) -> None:  # noqa: N802 - reportlab's API
            self._held.append(dict(self.__dict__))
            self._startPage()

        def save(self) -> None:
            total = len(self._held)
            for number, state in enumerate(self._held, 1):
                self.__dict__.update(state)
                self.setFont(theme.font, 7.5)
                self.setFillColor(theme.muted)
                self.setStrokeColor(theme.rule)
                self.line(_MARGIN, _MARGIN + 4 * mm, LETTER[0] - _MARGIN, _MARGIN + 4 * mm)
                page = view.labels["pagina"].format(page=number, pages=total)
                if footer_left:
                    room = _WIDTH - stringWidth(page, theme.font, 7.5) - 6 * mm
                    self.drawString(_MARGIN, _MARGIN, _fit(footer_left, theme.font, 7.5, room))
                self.drawRightString(LETTER[0] - _MARGIN, _MARGIN, page)
                super().showPage()
            super().save()

    return NumberedCanvas

