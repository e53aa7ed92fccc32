"""The font subsets a PDF embeds are kept between PDFs, compressed (reportlab makes and compresses one of each face for
every PDF): a kept subset is the one reportlab makes, and a PDF is the same, byte for byte, whether its subsets were
kept or made and compressed anew."""

from __future__ import annotations

import pytest
from reportlab.pdfbase import pdfdoc, pdfmetrics
from reportlab.pdfbase.ttfonts import TTFontFace

from fel_rules import Validator
from fel_rules.outputs.render import build_view
from fel_rules.outputs.render.fonts import BOLD, REGULAR, register_fonts
from fel_rules.outputs.render.pdf import render_view
from fel_rules.outputs.render.subsets import SUBSETS_KEPT, _keeping_subsets

from .conftest import EXAMPLES


def _faces() -> list[TTFontFace]:
    register_fonts()
    return [pdfmetrics.getFont(name).face for name in (REGULAR, BOLD)]


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
    for face in _faces():
        monkeypatch.delattr(face, "makeSubset")  # (reportlab's own methods, nothing kept)
        monkeypatch.delattr(face, "addSubsetObjects")
    assert kept == [render_view(view).pdf] * 2


def _is_font_file(data: bytes) -> bool:
    return data[:4] in (b"\x00\x01\x00\x00", b"true")


def test_the_font_files_are_compressed_by_the_kept_filter(monkeypatch):
    """The subset streams never go through reportlab's own filter (the document's other streams do): if reportlab
    ever registers them where they are not looked for, this says so."""
    validator = Validator()
    outcome = validator.inspect_bytes((EXAMPLES / "factura-certificada.xml").read_bytes(), path="x.xml")
    view = build_view(outcome.facts, outcome.report, frases=validator.catalog.catalogues.frases)
    compressed: list[bytes] = []
    encode = pdfdoc.PDFZCompress.encode
    monkeypatch.setattr(pdfdoc.PDFZCompress, "encode", lambda data: compressed.append(data) or encode(data))
    render_view(view)
    assert compressed and not any(_is_font_file(data) for data in compressed)
    for face in _faces():
        monkeypatch.delattr(face, "addSubsetObjects")
    render_view(view)
    assert sum(_is_font_file(data) for data in compressed) == 2  # (reportlab's own: one font file a face)


def test_pdfs_rendered_at_once_on_several_threads_are_reportlabs_own_and_so_are_the_next(monkeypatch):
    """reportlab reads a face through one shared file position: two subsets made at once could come out wrong, and
    a kept wrong subset would stay in every later PDF of those characters. One subset is made at a time."""
    import random
    import sys
    from concurrent.futures import ThreadPoolExecutor

    from fel_rules.testing.builder import Item, sample_invoice

    faces = _faces()
    validator, rng = Validator(), random.Random(4)
    letters = [chr(code) for code in (*range(0x41, 0x5B), *range(0xC0, 0x180), *range(0x391, 0x3A9),
                                      *range(0x410, 0x450))]
    views = []
    for _ in range(10):  # (new subsets: none of them kept yet)
        items = [Item.goods("".join(rng.choice(letters) for _ in range(40)), "1", "1.00") for _ in range(5)]
        outcome = validator.inspect_bytes(sample_invoice("FACT", items=items).to_xml())
        views.append(build_view(outcome.facts, outcome.report, frases=validator.catalog.catalogues.frases))
    with monkeypatch.context() as plain:
        for face in faces:
            plain.delattr(face, "makeSubset")
            plain.delattr(face, "addSubsetObjects")
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
