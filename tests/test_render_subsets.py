"""The font subsets a PDF embeds are kept between PDFs, compressed, with their widths written and their Unicode maps
compressed (reportlab makes all of it for every PDF): a kept subset is the one reportlab makes, and a PDF is the same,
byte for byte, whether its subsets were kept or made anew."""

from __future__ import annotations

import pytest
from reportlab.pdfbase import pdfdoc, pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont, TTFontFace

from fel_rules import Validator
from fel_rules.outputs.render import build_view, pdf
from fel_rules.outputs.render.fonts import BOLD, REGULAR, register_fonts
from fel_rules.outputs.render.pdf import render_view
from fel_rules.outputs.render.subsets import SUBSETS_KEPT, _keeping_subsets

from .conftest import EXAMPLES


def _faces() -> list[TTFontFace]:
    return [font.face for font in _fonts()]


def _fonts() -> list[TTFont]:
    register_fonts()
    return [pdfmetrics.getFont(name) for name in (REGULAR, BOLD)]


def _unkept(monkeypatch) -> None:
    """reportlab's own methods from now on: nothing kept."""
    for font in _fonts():
        monkeypatch.delattr(font.face, "makeSubset")
        monkeypatch.delattr(font.face, "addSubsetObjects")
        monkeypatch.delattr(font, "addObjects")


def test_a_kept_subset_is_the_one_reportlab_makes():
    ascii_first = [0, *range(1, 32), *range(32, 127)]
    for face in _faces():
        for subset in (ascii_first, [0, ord("ñ"), ord("á"), 65, 66], [0, ord("á"), ord("ñ"), 65, 66]):
            assert face.makeSubset(list(subset)) == TTFontFace.makeSubset(face, list(subset))
            assert face.makeSubset(list(subset)) == TTFontFace.makeSubset(face, list(subset))  # (now kept)


def test_the_same_characters_in_the_same_order_are_made_once():
    made: list[list[int]] = []
    make = _keeping_subsets(lambda subset: made.append(subset) or bytes(subset))
    assert make([0, 65, 66]) == make([0, 65, 66]) == bytes([0, 65, 66])
    assert make([0, 66, 65]) == bytes([0, 66, 65])  # (another order is another subset)
    assert made == [[0, 65, 66], [0, 66, 65]]
    for code in range(SUBSETS_KEPT):  # (bounded: the least recently used go)
        make([0, code])
    make([0, 65, 66])
    assert made[-1] == [0, 65, 66]


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("factura-*.xml")), ids=lambda path: path.name)
def test_a_pdf_is_the_same_with_kept_subsets(example, monkeypatch):
    validator = Validator()
    outcome = validator.inspect_bytes(example.read_bytes(), path=example.name)
    view = build_view(outcome.facts, outcome.report, frases=validator.catalog.catalogues.frases)
    kept = [render_view(view).pdf for _ in range(2)]  # (the second one from kept subsets)
    _unkept(monkeypatch)
    assert kept == [render_view(view).pdf] * 2


def _is_font_file(data: bytes | str) -> bool:
    return isinstance(data, bytes) and data[:4] in (b"\x00\x01\x00\x00", b"true")


def _is_unicode_map(data: bytes | str) -> bool:
    return isinstance(data, str) and "begincmap" in data


def test_the_subsets_objects_are_the_kept_ones(monkeypatch):
    """The subsets' font files and Unicode maps never go through a Flate filter (the page's contents go through the
    renderer's own), and their widths are written once: if reportlab ever registers these objects where they are not
    looked for, this says so."""
    validator = Validator()
    outcome = validator.inspect_bytes((EXAMPLES / "factura-certificada.xml").read_bytes(), path="x.xml")
    view = build_view(outcome.facts, outcome.report, frases=validator.catalog.catalogues.frases)
    compressed: list[bytes | str] = []
    encode = pdfdoc.PDFZCompress.encode
    monkeypatch.setattr(pdfdoc.PDFZCompress, "encode", lambda data: compressed.append(data) or encode(data))
    quick = pdf._QUICK_FLATE.encode
    monkeypatch.setattr(pdf._QUICK_FLATE, "encode", lambda data: compressed.append(data) or quick(data))
    written: list[object] = []
    array = pdfdoc.PDFTrueTypeFont.format
    monkeypatch.setattr(pdfdoc.PDFTrueTypeFont, "format", lambda font, doc: written.append(font.Widths) or array(
        font, doc))
    render_view(view)
    assert len(compressed) == 1 and " Tj " in compressed[0]  # the page's operators, and nothing else
    assert not any(_is_font_file(data) or _is_unicode_map(data) for data in compressed)
    assert len(written) == 2 and all(type(widths) is bytes for widths in written)
    _unkept(monkeypatch)
    render_view(view)
    assert sum(map(_is_font_file, compressed)) == 2  # (reportlab's own: a font file and a map a face)
    assert sum(map(_is_unicode_map, compressed)) == 2
    assert all(type(widths) is pdfdoc.PDFArray for widths in written[2:])


def test_pdfs_rendered_at_once_on_several_threads_are_reportlabs_own_and_so_are_the_next(monkeypatch):
    """reportlab reads a face through one shared file position: two subsets made at once could come out wrong, and
    a kept wrong subset would stay in every later PDF of those characters. One subset is made at a time."""
    import random
    import sys
    from concurrent.futures import ThreadPoolExecutor

    from fel_rules.testing.builder import Item, sample_invoice

    validator, rng = Validator(), random.Random(4)
    letters = [chr(code) for code in (*range(0x41, 0x5B), *range(0xC0, 0x180), *range(0x391, 0x3A9),
                                      *range(0x410, 0x450))]
    views = []
    for _ in range(10):  # (new subsets: none of them kept yet)
        items = [Item.goods("".join(rng.choice(letters) for _ in range(40)), "1", "1.00") for _ in range(5)]
        outcome = validator.inspect_bytes(sample_invoice("FACT", items=items).to_xml())
        views.append(build_view(outcome.facts, outcome.report, frases=validator.catalog.catalogues.frases))
    with monkeypatch.context() as plain:
        _unkept(plain)
        reference = [render_view(view).pdf for view in views]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (threads switch all the time: the race, when there is one, shows)
    try:
        with ThreadPoolExecutor(8) as pool:
            rendered = list(pool.map(lambda view: render_view(view).pdf, views * 2))
    finally:
        sys.setswitchinterval(interval)
    assert rendered == reference * 2
    assert [render_view(view).pdf for view in views] == reference
