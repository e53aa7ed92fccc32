"""Lines of text are written into the page as reportlab's own text object writes them: the same operators, joined the
same way, from the same subsets; a PDF is the same, byte for byte, either way."""

from __future__ import annotations

import io

import pytest
from reportlab.lib.colors import CMYKColor, Color
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from fel_rules import Validator
from fel_rules.outputs.render import build_view, compose
from fel_rules.outputs.render.fonts import BOLD, REGULAR, ascent, register_fonts
from fel_rules.outputs.render.pdf import render_view
from fel_rules.outputs.render.textops import write_lines
from fel_rules.testing.builder import Invoice, Item

from .conftest import EXAMPLES

#: Enough distinct characters for a face's second subset (a subset holds some 220 of them), and every character a
#: PDF string must escape.
_MANY = "".join(map(chr, [*range(0x100, 0x17F), *range(0x391, 0x3A9), *range(0x410, 0x450)]))
_LINES = ("Ferretería (El \\ Martillo)", "", "NIT 1234567-8 ) ( \\", _MANY, "ʼ última línea", "\u00a0a\u00a0")


def _reportlab_way(canvas: Canvas, lines, lefts, baseline: float, font: str, size: float, color, leading: float):
    text = canvas.beginText()
    text.setFont(font, size)
    text.setFillColor(color)
    for line, left in zip(lines, lefts, strict=True):
        text.setTextOrigin(left, baseline)
        text.textOut(line)
        baseline -= leading
    canvas.drawText(text)


def _page(draw, compression: int = 1) -> bytes:
    register_fonts()
    canvas = Canvas(io.BytesIO(), invariant=1, pageCompression=compression)
    for font, size, color in ((REGULAR, 9, Color(0.2, 0.3, 0.4)), (BOLD, 7.5, Color(1, 0, 0)),
                              (REGULAR, 9, Color(0, 0, 0, alpha=0.5)), (BOLD, 12, CMYKColor(0.1, 0.2, 0.3, 0.4))):
        lefts = [36.0 + index * 0.25 for index in range(len(_LINES))]
        draw(canvas, _LINES, lefts, 700.5, font, size, color, size * 1.3)
    canvas.showPage()
    return canvas.getpdfdata()


def test_the_operators_are_the_text_objects():
    assert _page(write_lines) == _page(_reportlab_way)


def test_the_text_is_there():
    pdf = _page(write_lines, compression=0)
    assert pdf.count(b" Tj") > 4 * 3 and pdf.count(b"\nBT ") == 4
    assert b"(Ferreter" in pdf and rb"\(El \\ Martillo\)" in pdf  # (escaped as a PDF string)
    assert b"/gRLs0 gs" in pdf  # the half-transparent colour's graphics state


def _old_draw(self, canvas, x, top, width):
    """``Lines.draw`` through reportlab's text object."""
    if not any(self.lines):
        return
    lefts = [x if self.align == "left" else
             x + (width - stringWidth(line, self.font, self.size)) * (1.0 if self.align == "right" else 0.5)
             for line in self.lines]
    _reportlab_way(canvas, self.lines, lefts, top - ascent(self.size), self.font, self.size, self.color,
                   self.leading)


@pytest.mark.parametrize("invoice", ["example", "odd characters"])
def test_a_pdf_is_the_same_either_way(invoice, monkeypatch):
    if invoice == "example":
        data = (EXAMPLES / "factura-certificada.xml").read_bytes()
    else:
        items = [Item.goods(f"{_MANY[k * 20:(k + 1) * 20]} (x\\y)", "1", "10.00") for k in range(12)]
        data = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items).to_xml()
    validator = Validator()
    outcome = validator.inspect_bytes(data, path="x.xml")
    view = build_view(outcome.facts, outcome.report, frases=validator.catalog.catalogues.frases)
    written = render_view(view).pdf
    monkeypatch.setattr(compose.Lines, "draw", _old_draw)
    assert render_view(view).pdf == written
