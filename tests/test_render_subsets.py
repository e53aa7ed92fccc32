"""The font subsets a PDF embeds are kept between PDFs (reportlab makes one of each face for every PDF): a kept subset
is the one reportlab makes, and a PDF is the same, byte for byte, whether its subsets were kept or made anew."""

from __future__ import annotations

import pytest
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFontFace

from fel_rules import Validator
from fel_rules.outputs.render import build_view
from fel_rules.outputs.render.fonts import BOLD, REGULAR, SUBSETS_KEPT, _keeping_subsets, register_fonts
from fel_rules.outputs.render.pdf import render_view

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
        monkeypatch.delattr(face, "makeSubset")  # (reportlab's own method, nothing kept)
    assert kept == [render_view(view).pdf] * 2
