"""The body of the PDF: the lines, the totals (and in words), the frases, the complements' summaries, the adenda
and the certification with SAT's verifier QR, each as bands measured from their content."""

from __future__ import annotations

from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from .compose import Band, Block, Lines, Part, stack
from .kit import Kit
from .qr import draw_qr
from .table import Column, table_bands
from .view import InvoiceView, Section

__all__ = ["body_bands"]


def body_bands(view: InvoiceView, kit: Kit, qr_size: float) -> list[Band]:
    """Every band under the header and the parties, in order."""
    gap = Band(3 * mm, lambda *args: None)
    bands = [*_items(view, kit), gap, _totals(view, kit)]
    if view.frases:
        bands += [gap, _title(view.labels["frases"], kit)] + [_bullet(text, kit) for text in view.frases]
    for section in view.sections:
        bands += [gap, _title(section.title, kit), *_section(section, kit)]
    if view.adenda:
        section = Section(title=view.labels["adenda"], pairs=view.adenda)
        bands += [gap, _title(section.title, kit), *_section(section, kit)]
    bands += [gap, _certification(view, kit, qr_size)]
    return bands


def _items(view: InvoiceView, kit: Kit) -> list[Band]:
    if kit.page.ticket:
        return _item_list(view, kit)
    labels, items = view.labels, view.items
    amount = (15 if kit.page.narrow else 19) * mm
    columns = [Column("#", "right", muted=True), Column(labels["cantidad"], "right", min_width=amount * 0.6)]
    cells: list[list[str | None]] = [[item.number, item.quantity] for item in items]
    if any(item.unit for item in items):
        columns.append(Column(labels["um"], "center"))
        for row, item in zip(cells, items, strict=True):
            row.append(item.unit)
    columns += [Column(labels["bs"], "center"), Column(labels["descripcion"], flex=True),
                Column(labels["unitario"], "right", min_width=amount)]
    for row, item in zip(cells, items, strict=True):
        row += [item.kind, item.description, item.unit_price]
    if any(_nonzero(item.discount) for item in items):  # a column of zeros says nothing
        columns.append(Column(labels["descuento"], "right", min_width=amount))
        for row, item in zip(cells, items, strict=True):
            row.append(item.discount)
    columns.append(Column(labels["total"], "right", bold=True, min_width=amount))
    for row, item in zip(cells, items, strict=True):
        row.append(item.total)
    return table_bands(kit, columns, cells)


def _nonzero(amount: str) -> bool:
    return any(digit not in "0.,-" for digit in amount)


def _item_list(view: InvoiceView, kit: Kit) -> list[Band]:
    """A ticket's lines: the description, then quantity × unit price on the left and the total on the right."""
    width, labels = kit.width, view.labels
    bands = [_rule_band(kit)]
    for item in view.items:
        parts: list[Part] = [kit.text(item.description, width), 0.5]
        detail = " ".join(part for part in (item.quantity, item.unit) if part)
        detail = f"{detail} {labels['por']} {item.unit_price}"
        if _nonzero(item.discount):
            detail += f" − {item.discount}"
        parts.append(_left_right(kit, detail, item.total, width))
        block = stack([1.5, *parts, 1.5])
        bands.append(Band(block.height, _at(block, width)))
    bands.append(_rule_band(kit))
    return bands


def _left_right(kit: Kit, left: str, right: str, width: float, *, bold: bool = True, left_bold: bool = False,
                size: float | None = None) -> Block:
    """A label on the left and an amount on the right of one line, or the amount below when they would touch."""
    right_lines = kit.text(right, width, bold=bold, size=size, align="right")
    right_width = max(kit.measure(line, size=right_lines.size, bold=bold) for line in right_lines.lines)
    room = width - right_width - 3 * mm
    if room < width / 3:
        return stack([kit.text(left, width, bold=left_bold, size=size), right_lines])
    left_lines = kit.text(left, room, bold=left_bold, size=size)

    def paint(canvas: Canvas, x: float, top: float, _width: float) -> None:
        left_lines.draw(canvas, x, top, room)
        right_lines.draw(canvas, x, top, width)

    return Block(max(left_lines.height, right_lines.height), paint)


def _totals(view: InvoiceView, kit: Kit) -> Band:
    """The totals on the right (grand total last, larger) and the amount in words on the left; one below the
    other when the page is narrow or the amounts are long."""
    width, labels, size = kit.width, view.labels, kit.size
    rows: list[tuple[str, str, bool]] = [(label, value, False) for label, value in view.totals]
    rows.append((labels["gran_total"], view.gran_total, True))
    big = size + 2.5
    natural = max(kit.measure(kit.clean(label), size=big if grand else size, bold=grand)
                  + kit.measure(kit.clean(value), size=big if grand else size, bold=grand)
                  for label, value, grand in rows) + 6 * mm
    words = [kit.text(f"{labels['en_letras']}:", width, bold=True, size=size - 0.5)]
    block_width = width if kit.page.ticket else min(max(natural, (56 if kit.page.narrow else 72) * mm), 0.6 * width)
    lines: list[Part] = []
    for label, value, grand in rows:
        if grand:
            lines += [2.0, _rule(kit, block_width, kit.theme.accent, 1.0), 2.0]
        lines.append(_left_right(kit, label, value, block_width, bold=grand, left_bold=grand,
                                 size=big if grand else size))
        lines.append(1.0)
    amounts = stack(lines)
    words_width = width - block_width - kit.gap
    if words_width >= 0.35 * width:
        words.append(kit.text(view.gran_total_words, words_width, size=size - 0.5))
        left = stack(words)
        height = max(left.height, amounts.height)

        def draw(canvas: Canvas, x: float, top: float) -> None:
            left.draw(canvas, x, top - (height - left.height), words_width)
            amounts.draw(canvas, x + width - block_width, top, block_width)

        return Band(height, draw)
    words.append(kit.text(view.gran_total_words, width, size=size - 0.5))
    whole = stack([amounts, 2 * mm, *words])
    return Band(whole.height, _at(whole, width))


def _title(text: str, kit: Kit) -> Band:
    lines = kit.text(text, kit.width, bold=True, size=kit.size + 1, color=kit.theme.accent)
    block = stack([lines, 1.5])
    return Band(block.height, _at(block, kit.width), keep_with_next=True)


def _bullet(text: str, kit: Kit) -> Band:
    indent = 3 * mm
    lines = kit.text(text, kit.width - indent)
    bullet = Lines(("•",), kit.font(), kit.size, kit.theme.ink)

    def draw(canvas: Canvas, x: float, top: float) -> None:
        bullet.draw(canvas, x, top, indent)
        lines.draw(canvas, x + indent, top, kit.width - indent)

    return Band(lines.height + 1.0, draw)


def _section(section: Section, kit: Kit) -> list[Band]:
    if section.headers:
        columns = [Column(header, flex=True) for header in section.headers]
        return table_bands(kit, columns, section.rows, zebra=False)
    columns = [Column("", muted=True, max_share=0.35), Column("", flex=True)]
    return table_bands(kit, columns, [list(pair) for pair in section.pairs], header=False, zebra=False,
                       min_flex_share=0.5)


def _certification(view: InvoiceView, kit: Kit, qr_size: float) -> Band:
    """SAT's verifier QR beside (on a ticket: above) the authorization, certifier and certification date; or the
    note that there is no QR."""
    labels, width = view.labels, kit.width
    if view.qr_url is None:
        block = kit.small(labels["sin_certificar"], width)
        return Band(block.height, _at(block, width))
    ticket = kit.page.ticket
    qr = min(qr_size, width * (0.6 if ticket else 0.3))
    text_width = width if ticket else width - qr - kit.gap
    align = "center" if kit.page.ticket else "left"
    lines: list[Part] = [kit.text(labels["verificar"], text_width, bold=True, align=align), 1.0,
                         kit.text(f"{labels['autorizacion']}: {view.uuid}", text_width, align=align)]
    if view.certificador:
        lines += [1.0, kit.text(f"{labels['certificador']}: {view.certificador}", text_width, align=align)]
    if view.fecha_certificacion:
        lines += [1.0, kit.text(f"{labels['certificacion']}: {view.fecha_certificacion}", text_width, align=align)]
    text = stack(lines)
    url = view.qr_url
    if ticket:
        height = qr + 2 * mm + text.height
        left = (width - qr) / 2

        def draw_below(canvas: Canvas, x: float, top: float) -> None:
            draw_qr(canvas, url, x + left, top - qr, qr)
            text.draw(canvas, x, top - qr - 2 * mm, width)

        return Band(height, draw_below)
    height = max(qr, text.height)

    def draw(canvas: Canvas, x: float, top: float) -> None:
        draw_qr(canvas, url, x, top - qr, qr)
        text.draw(canvas, x + qr + kit.gap, top - (height - text.height) / 2, text_width)

    return Band(height, draw)


def _rule(kit: Kit, width: float, color, thickness: float) -> Block:
    def paint(canvas: Canvas, x: float, top: float, _width: float) -> None:
        canvas.setStrokeColor(color)
        canvas.setLineWidth(thickness)
        canvas.line(x, top, x + width, top)

    return Block(0.0, paint)


def _rule_band(kit: Kit) -> Band:
    rule = _rule(kit, kit.width, kit.theme.rule, 0.6)
    return Band(1.0, lambda canvas, x, top: rule.draw(canvas, x, top - 0.5, kit.width))


def _at(block: Lines | Block, width: float):
    """A band's drawing of ``block`` across ``width``."""
    return lambda canvas, x, top: block.draw(canvas, x, top, width)

