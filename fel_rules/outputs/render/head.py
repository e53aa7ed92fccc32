"""The top of the first page: the emisor (logo, names, NIT, address), the document's box (type, serie and número,
emission date) and the parties (receptor; authorization, certification, currency). Every part is measured from
its content: a long name makes the band taller, never runs into its neighbour."""

from __future__ import annotations

from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

from .compose import Band, Block, Part, beside, boxed, stack
from .kit import Kit
from .view import InvoiceView

__all__ = ["header_band", "parties_band"]


def header_band(view: InvoiceView, kit: Kit, logo: ImageReader | None, min_height: float) -> Band:
    """The emisor and the document's box: side by side on a wide page (logo | emisor | box), one below the other
    on a narrow one."""
    page = kit.page
    if page.ticket:
        return _stacked_header(view, kit, logo, centered=True)
    if page.narrow:
        return _stacked_header(view, kit, logo, centered=False)
    width, gap = kit.width, kit.gap
    box_width = 64 * mm
    picture = _logo(logo, 44 * mm, min_height)
    logo_width = picture_width(logo, 44 * mm, min_height)
    emisor_width = width - box_width - gap - (logo_width + gap if logo_width else 0)
    emisor = stack(_emisor(view, kit, emisor_width))
    box_inner = _document_box(view, kit, box_width - 2 * _BOX_PAD, "left")
    height = max(min_height, emisor.height, picture.height, box_inner.height + 2 * _BOX_PAD)
    box = boxed(box_inner, _BOX_PAD, fill=kit.theme.header_fill, height=height)

    def draw(canvas: Canvas, x: float, top: float) -> None:
        left = x
        if logo_width:
            picture.draw(canvas, left, top - (height - picture.height) / 2, logo_width)
            left += logo_width + gap
        emisor.draw(canvas, left, top - (height - emisor.height) / 2, emisor_width)
        box.draw(canvas, x + width - box_width, top, box_width)

    return Band(height, draw)


_BOX_PAD = 3 * mm


def _stacked_header(view: InvoiceView, kit: Kit, logo: ImageReader | None, *, centered: bool) -> Band:
    """Narrow pages: logo and emisor, then the document's box across the page."""
    width, gap = kit.width, kit.gap
    if centered:  # a ticket: everything centred, one below the other
        picture = _logo(logo, 40 * mm, 18 * mm)
        emisor = stack(_emisor(view, kit, width, align="center"))
        parts: list[Part] = [_centred(picture, picture_width(logo, 40 * mm, 18 * mm), width), 2.0] if logo else []
        top_part: Block = stack([*parts, emisor])
    else:
        picture = _logo(logo, 30 * mm, 20 * mm)
        logo_width = picture_width(logo, 30 * mm, 20 * mm)
        emisor_width = width - (logo_width + gap if logo else 0)
        emisor = stack(_emisor(view, kit, emisor_width))
        top_part = beside([(logo_width, picture), (emisor_width, emisor)], gap) if logo else emisor
    inner = width - 2 * _BOX_PAD
    if centered:  # a thermal roll prints no solid fill: the box is outlined, its text in ink
        box = boxed(_document_box(view, kit, inner, "center", ink=True), _BOX_PAD, stroke=kit.theme.ink)
    else:  # the type on the left, serie, número and date on the right
        half = (inner - gap) / 2
        left = stack(_box_title(view, kit, half, "left", kit.theme.accent_text))
        right = stack(_box_numbers(view, kit, half, "left", kit.theme.accent_text))
        box = boxed(beside([(half, left), (half, right)], gap), _BOX_PAD, fill=kit.theme.header_fill)
    whole = stack([top_part, 3 * mm, box])
    return Band(whole.height, lambda canvas, x, top: whole.draw(canvas, x, top, width))


def _emisor(view: InvoiceView, kit: Kit, width: float, align: str = "left") -> list[Part]:
    emisor, size = view.emisor, kit.size
    big = size + 4.5
    parts: list[Part] = [kit.text(emisor.commercial_name or emisor.name, width, bold=True, align=align,
                                  sizes=(big, big - 1, big - 2, big - 3.5), max_lines=2)]
    if emisor.commercial_name and emisor.commercial_name != emisor.name:
        parts += [1.5, kit.text(emisor.name, width, sizes=(size, size - 0.5, size - 1), max_lines=3, align=align)]
    establishment = f" · {emisor.establishment}" if emisor.establishment else ""
    parts += [1.5, kit.text(f"{emisor.id_label} {emisor.id_value}{establishment}", width, align=align)]
    if emisor.address:
        parts += [1.5, kit.small(emisor.address, width, align=align)]
    return parts


def _document_box(view: InvoiceView, kit: Kit, inner: float, align: str, *, ink: bool = False) -> Block:
    """Inside the box: the caption, the document type, serie and número in large type, the date."""
    color = kit.theme.ink if ink else kit.theme.accent_text
    return stack([*_box_title(view, kit, inner, align, color), *_box_numbers(view, kit, inner, align, color)])


def _box_title(view: InvoiceView, kit: Kit, inner: float, align: str, color) -> list[Part]:
    size = kit.size
    big = size + 6.5
    return [kit.text(view.labels["dte"].upper(), inner, size=size - 2.5, bold=True, color=color, align=align), 1.0,
            kit.text(view.title, inner, bold=True, color=color, align=align, sizes=(big, big - 2, big - 4),
                     max_lines=2)]


def _box_numbers(view: InvoiceView, kit: Kit, inner: float, align: str, color) -> list[Part]:
    labels, size = view.labels, kit.size
    parts: list[Part] = []
    if view.serie or view.numero:
        half = (inner - 2 * mm) / 2
        numbers = size + 3.5
        columns = []
        for label, value in ((labels["serie"], view.serie), (labels["numero"], view.numero)):
            columns.append((half, stack([
                kit.text(label.upper(), half, size=size - 2, color=color, align=align),
                kit.text(value or "—", half, bold=True, color=color, align=align,
                         sizes=(numbers, numbers - 1.5, numbers - 3), max_lines=1),
            ])))
        parts += [2.5, beside(columns, 2 * mm)]
    if view.fecha_emision:
        parts += [2.5, kit.text(labels["emision"].upper(), inner, size=size - 2, color=color, align=align),
                  kit.text(view.fecha_emision, inner, color=color, align=align)]
    return parts


def parties_band(view: InvoiceView, kit: Kit) -> Band:
    """Two boxes: the receptor, and the authorization (number, certification date, currency); side by side,
    or one below the other on a ticket."""
    labels, receptor = view.labels, view.receptor
    width, gap, pad = kit.width, kit.gap, 2.5 * mm
    halves = kit.page.ticket
    box_width = width if halves else (width - gap) / 2
    inner = box_width - 2 * pad
    left: list[Part] = [kit.small(labels["receptor"].upper(), inner, bold=True), 1.0,
                        kit.text(receptor.name, inner, bold=True), 1.0,
                        kit.text(f"{receptor.id_label}: {receptor.id_value}", inner)]
    if receptor.address:
        left += [1.0, kit.small(receptor.address, inner)]
    right: list[Part] = [kit.small(labels["autorizacion"].upper(), inner, bold=True), 1.0,
                         kit.text(view.uuid or "—", inner, bold=True)]
    if view.fecha_certificacion:
        right += [1.0, kit.text(f"{labels['certificacion']}: {view.fecha_certificacion}", inner)]
    right += [1.0, kit.text(f"{labels['moneda']}: {view.currency}", inner)]
    stroke = kit.theme.rule
    if halves:
        whole = stack([boxed(stack(left), pad, stroke=stroke), 2 * mm, boxed(stack(right), pad, stroke=stroke)])
    else:
        height = max(stack(left).height, stack(right).height) + 2 * pad
        whole = beside([(box_width, boxed(stack(left), pad, stroke=stroke, height=height)),
                        (box_width, boxed(stack(right), pad, stroke=stroke, height=height))], gap)
    return Band(whole.height, lambda canvas, x, top: whole.draw(canvas, x, top, width))


def picture_width(logo: ImageReader | None, max_width: float, max_height: float) -> float:
    """Width of the logo scaled into ``max_width`` × ``max_height`` (0 without a logo)."""
    if logo is None:
        return 0.0
    width, height = logo.getSize()
    return width * min(max_height / height, max_width / width)


def _logo(logo: ImageReader | None, max_width: float, max_height: float) -> Block:
    if logo is None:
        return Block(0.0, lambda *args: None)
    width, height = logo.getSize()
    scale = min(max_height / height, max_width / width)
    drawn_width, drawn_height = width * scale, height * scale

    def paint(canvas: Canvas, x: float, top: float, _width: float) -> None:
        canvas.drawImage(logo, x, top - drawn_height, drawn_width, drawn_height)

    return Block(drawn_height, paint)


def _centred(block: Block, block_width: float, width: float) -> Block:
    return Block(block.height, lambda canvas, x, top, _w: block.draw(canvas, x + (width - block_width) / 2, top,
                                                                      block_width))
