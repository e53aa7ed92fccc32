"""The PDF layout never collides, whatever the schema lets a document say: names, addresses and descriptions up to
their maximum lengths (NombreEmisor and NombreReceptor 400, NombreComercial 255, Direccion 200, Municipio and
Departamento 100, Descripcion 10,000 characters), in any script, without spaces or with runs of them, on every
page format. Checked on the PDF itself with pdfplumber (tests/pdf_geometry.py).

The quick run draws a few bounded examples; the ``slow`` one many more, with the full lengths.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from fel_rules.outputs.render import build_view
from fel_rules.outputs.render.pages import PAGES
from fel_rules.outputs.render.pdf import render_view
from fel_rules.outputs.render.textfit import wrap
from fel_rules.testing.builder import Direccion, Invoice, Item

from .conftest import EXAMPLES
from .pdf_geometry import collisions

UUID = "5D8A3F21-9C4B-4E7A-B2D6-0F1E8C7A4B93"
LOGO = (EXAMPLES / "logo.png").read_bytes()

_PROFILE = dict(deadline=None, database=None, derandomize=not os.environ.get("FEL_HYPOTHESIS_RANDOM"),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

#: Letters of the scripts the font covers, and some it does not (CJK, emoji, Arabic: printed as [U+XXXX]).
_ALPHABET = st.one_of(
    st.characters(min_codepoint=0x21, max_codepoint=0x7E),
    st.characters(min_codepoint=0xC0, max_codepoint=0x24F),
    st.sampled_from("ʼʻˀαβγδΩЖЯщЁ€—–“”…·•ñÑüÜ"),
    st.characters(min_codepoint=0x4E00, max_codepoint=0x4E40),
    st.sampled_from("😀🚚🇬🇹العربيةẍ"),
)


def _text(max_size: int) -> st.SearchStrategy[str]:
    """A non-blank text of at most ``max_size`` characters once the schema collapses its white space: one long
    word, words with single spaces, or words with runs of spaces."""
    words = st.lists(st.text(_ALPHABET, min_size=1, max_size=40), min_size=1, max_size=min(max_size // 2 + 1, 100))
    spaced = st.tuples(words, st.sampled_from([" ", "   ", " \t "])).map(lambda pair: pair[1].join(pair[0]))
    solid = st.text(_ALPHABET, min_size=1, max_size=min(max_size, 2000))
    return st.one_of(solid, spaced).map(lambda text: " ".join(text.split())[:max_size].strip() or "X")


def _long(max_size: int) -> st.SearchStrategy[str]:
    """Texts near ``max_size`` characters (the lengths that break layouts: a drawn text repeated up to a drawn
    length), or any shorter one."""
    tiled = st.tuples(_text(min(max_size, 300)), st.integers(max(1, max_size // 2), max_size)).map(
        lambda pair: (pair[0] * (pair[1] // len(pair[0]) + 1))[:pair[1]].strip() or "X")
    return st.one_of(_text(max_size), tiled)


def _documents(scale: float) -> st.SearchStrategy[bytes]:
    """Certified invoices whose texts reach ``scale`` times the schema's maximum lengths."""
    size = lambda limit: max(1, int(limit * scale))  # noqa: E731
    address = st.builds(Direccion, direccion=_long(size(200)), municipio=_text(size(100)),
                        departamento=_text(size(100)))
    items = st.lists(st.builds(Item.goods, _long(size(10_000)), st.sampled_from(["1", "12.5", "1234567"]),
                               st.sampled_from(["0.01", "85.00", "123456789.99"])), min_size=1, max_size=4)
    invoice = st.builds(Invoice, emisor_nombre=_long(size(400)), emisor_nombre_comercial=_long(size(255)),
                        emisor_direccion=address, receptor_id=st.just("38461528"),
                        receptor_nombre=_long(size(400)), receptor_direccion=address, frases=st.just([(1, 1)]),
                        items=items, adenda=st.one_of(st.none(), st.fixed_dictionaries({
                            "Observaciones": _text(600), "NumeroOrden": _text(30)})))
    return invoice.map(lambda document: document.certify(UUID, "2026-03-02T09:15:27-06:00").to_xml())


def _check(validator, data: bytes, page: str, logo: bool) -> None:
    outcome = validator.inspect_bytes(data)
    report, facts = outcome.report, outcome.facts
    view = build_view(facts, report, frases=validator.catalog.catalogues.frases, invalid=not report.valid)
    pdf = render_view(view, logo=LOGO if logo else None, page=page).pdf
    problems = collisions(pdf, PAGES[page].margin)
    note(f"page={page} logo={logo} emisor={view.emisor.name!r}")
    assert not problems, problems


@settings(max_examples=12, **_PROFILE)
@given(data=_documents(0.15), page=st.sampled_from(sorted(PAGES)), logo=st.booleans())
def test_no_text_collides(validator, data, page, logo):
    _check(validator, data, page, logo)


@pytest.mark.slow
@settings(max_examples=60, **_PROFILE)
@given(data=_documents(1.0), page=st.sampled_from(sorted(PAGES)), logo=st.booleans())
def test_no_text_collides_at_full_lengths(validator, data, page, logo):
    _check(validator, data, page, logo)


@settings(max_examples=200, **_PROFILE)
@given(text=_text(600), width=st.floats(3, 400), size=st.sampled_from([6.0, 8.5, 13.0]))
def test_wrapping_keeps_every_character_and_fits(text, width, size):
    from fel_rules.outputs.render.fonts import REGULAR, register_fonts
    from fel_rules.outputs.render.textfit import width_of

    register_fonts()
    lines = wrap(text, REGULAR, size, width)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    for line in lines:
        assert width_of(line, REGULAR, size) <= width or len(line) == 1, line


def test_the_checker_sees_collisions():
    """The check above can fail: text over text, across a box's edge, through a rule and past the margin."""
    import io

    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(400, 400), invariant=1)
    canvas.setFont("Helvetica", 10)
    canvas.drawString(50, 300, "Ferretería")
    canvas.drawString(60, 302, "encima")  # over the first text
    canvas.rect(100, 200, 60, 20)
    canvas.drawString(140, 205, "cruza la caja")  # across the box's right edge
    canvas.line(40, 153, 200, 153)
    canvas.drawString(50, 150, "tachado")  # a rule through it
    canvas.drawString(380, 100, "fuera")  # past the right margin
    canvas.showPage()
    canvas.save()
    problems = " | ".join(collisions(buffer.getvalue(), 30, limit=50))
    for expected in ("overlaps", "crosses the edge of a box", "crossed by a rule", "outside the margins"):
        assert expected in problems, (expected, problems)
