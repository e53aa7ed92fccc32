"""PDF rendering: every field and item is in the PDF, the QR decodes to SAT's verifier URL,
output is deterministic and atomic, and bad input gets a clear refusal."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pypdf
import pypdfium2
import pytest
import zxingcpp

from fel_rules import RenderError
from fel_rules.outputs.render import RenderSettings, render_bytes, render_file
from fel_rules.outputs.render.words import amount_in_words
from fel_rules.testing.builder import Invoice, Item

from .conftest import EXAMPLES

LOGO = EXAMPLES / "logo.png"
SETTINGS = RenderSettings.from_env({}, logo=LOGO)
UUID = "5D8A3F21-9C4B-4E7A-B2D6-0F1E8C7A4B93"
VERIFIER = "https://felpub.c.sat.gob.gt/verificador-web/publico/vistas/verificacionDte.jsf"


def pdf_pages(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages]


def decode_qr(pdf: bytes, page: int = 0) -> list[str]:
    document = pypdfium2.PdfDocument(pdf)
    image = document[page].render(scale=200 / 72).to_pil()
    return [result.text for result in zxingcpp.read_barcodes(image)]


@pytest.fixture(scope="module")
def long_invoice() -> bytes:
    items = [
        Item.goods(f"Tornillo de acero inoxidable modelo TX-{n:03d}, caja de 100 unidades"
                   + (" con arandela de presión y tuerca hexagonal, acabado galvanizado" if n % 7 == 0 else ""),
                   cantidad=str(1 + n % 5), precio_unitario=f"{10 + n}.25")
        for n in range(1, 301)
    ]
    invoice = Invoice(tipo="FACT", emisor_nit="85372641", receptor_id="CF", frases=[(1, 1)], items=items)
    return invoice.certify(UUID, "2026-03-02T09:15:27-06:00").to_xml()


def test_every_field_of_a_certified_invoice_is_printed(validator):
    result = render_bytes((EXAMPLES / "factura-certificada.xml").read_bytes(), settings=SETTINGS, validator=validator)
    text = "\n".join(pdf_pages(result.pdf))
    expected = [
        "FERRETERÍA EL QUETZAL", "FERRETERÍA EL QUETZAL, SOCIEDAD", "NIT 85372641", "Establecimiento 1",
        "Calzada Roosevelt 22-43, Zona 11, Guatemala (C.P. 01011)", "DOCUMENTO TRIBUTARIO ELECTRÓNICO", "Factura",
        "SERIE", "5D8A3F21", "NÚMERO", "2622180986", UUID,
        "FECHA DE EMISIÓN", "02/03/2026 09:15:00", "Fecha de certificación: 02/03/2026 09:15:27",
        "SUPERINTENDENCIA DE ADMINISTRACION TRIBUTARIA (NIT 16693949)",
        "CARLOS ENRIQUE MÉNDEZ RUIZ", "NIT: 38461528", "15 Avenida 4-28, Zona 13",
        "Cemento gris de uso general, bolsa 42.5 kg", "Varilla de hierro corrugado 3/8\" x 6 m",
        "Pintura látex blanca para interiores, galón", "850.00", "38.50", "731.50", "165.00", "330.00",
        "Subtotal (sin IVA)", "Q 1,706.70", "IVA", "Q 204.80", "Gran total", "Q 1,911.50",
        "Mil novecientos once quetzales con 50/100", "Sujeto a pagos trimestrales ISR", "Página 1 de 1",
    ]
    missing = [fragment for fragment in expected if fragment not in text]
    assert not missing, missing
    assert "DOCUMENTO NO CERTIFICADO" not in text


def test_the_qr_decodes_to_the_verifier_url(validator):
    result = render_bytes((EXAMPLES / "factura-certificada.xml").read_bytes(), settings=SETTINGS, validator=validator)
    url = (f"{VERIFIER}?tipo=autorizacion&numero={UUID}&emisor=85372641&receptor=38461528&monto=1911.50")
    assert result.view.qr_url == url
    assert decode_qr(result.pdf) == [url]


def test_three_hundred_lines_every_item_and_repeated_header(validator, long_invoice):
    result = render_bytes(long_invoice, settings=SETTINGS, validator=validator)
    pages = pdf_pages(result.pdf)
    assert len(pages) > 5
    text = "\n".join(pages)
    for n in range(1, 301):
        assert f"TX-{n:03d}" in text, n
    for number, page in enumerate(pages, 1):
        if "TX-" in page:
            assert "Descripción" in page and "P. unitario" in page, f"table header missing on page {number}"
        assert f"Página {number} de {len(pages)}" in page
    last = result.view.items[-1]
    assert (last.number, last.total) == ("300", "310.25")
    assert decode_qr(result.pdf, page=len(pages) - 1) == [result.view.qr_url]


def test_same_input_same_bytes(validator):
    data = (EXAMPLES / "factura-certificada.xml").read_bytes()
    first = render_bytes(data, settings=SETTINGS, validator=validator).pdf
    second = render_bytes(data, settings=SETTINGS, validator=validator).pdf
    assert hashlib.sha256(first).hexdigest() == hashlib.sha256(second).hexdigest()


def test_streams_are_binary_and_the_logo_is_its_jpeg(validator):
    """No stream is also ASCII85-encoded (reportlab's default): the logo is embedded as the JPEG it was made into,
    and pypdf reads the PDF whole. reportlab's own setting, the whole process's, is left as it was: other reportlab
    code in the process still draws with it (an inline image needs ASCII85)."""
    from PIL import Image
    from reportlab import rl_config
    from reportlab.pdfgen.canvas import Canvas

    setting = rl_config.useA85
    pdf = render_bytes((EXAMPLES / "factura-certificada.xml").read_bytes(), settings=SETTINGS, validator=validator).pdf
    assert rl_config.useA85 == setting == 1
    other = Canvas(io.BytesIO())
    other.drawInlineImage(Image.new("RGB", (8, 8), "red"), 10, 10, 8, 8)
    other.save()
    assert b"ASCII85Decode" not in pdf
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    images = reader.pages[0].images
    assert len(images) == 1 and images[0].data[:3] == b"\xff\xd8\xff"  # (a JPEG's first bytes)
    assert "FERRETERÍA EL QUETZAL" in reader.pages[0].extract_text()


@pytest.mark.parametrize("theme", ["clasico", "moderno"])
def test_uncertified_documents_get_a_watermark_and_no_qr(validator, theme):
    settings = RenderSettings.from_env({}, logo=LOGO, theme=theme)
    data = (EXAMPLES / "factura-cambiaria-fcam.xml").read_bytes()
    result = render_bytes(data, settings=settings, validator=validator)
    text = pdf_pages(result.pdf)[0]
    assert "DOCUMENTO NO CERTIFICADO" in text
    assert result.view.qr_url is None and decode_qr(result.pdf) == []
    for fragment in ["Factura Cambiaria", "Abonos (factura cambiaria)", "10/04/2026", "Q 2,407.50", "Q 4,815.00",
                     "Cuatro mil ochocientos quince quetzales con 00/100"]:
        assert fragment in text


def test_complement_summaries(validator):
    nota = render_bytes((EXAMPLES / "nota-credito-ncre.xml").read_bytes(), settings=SETTINGS, validator=validator)
    text = pdf_pages(nota.pdf)[0]
    assert "Nota de Crédito" in text and "Documento de origen" in text and UUID in text
    assert "5D8A3F21 / 2622180986" in text and "Devolución de 2 bolsas" in text
    especial = render_bytes((EXAMPLES / "factura-especial-fesp.xml").read_bytes(), settings=SETTINGS,
                            validator=validator)
    text = pdf_pages(especial.pdf)[0]
    assert "Retención ISR" in text and "Q 345.98" in text and "CUI: 2759184320912" in text
    export = render_bytes((EXAMPLES / "factura-exportacion.xml").read_bytes(), settings=SETTINGS, validator=validator)
    assert "PACIFIC BEAN IMPORTERS, INC." in pdf_pages(export.pdf)[0]


def test_view_snapshots(validator, snapshot_json):
    views = {}
    for name in ("factura-certificada", "factura-cambiaria-fcam", "nota-credito-ncre", "factura-especial-fesp",
                 "factura-exportacion", "factura-exenta", "factura-pequeno-fpeq"):
        result = render_bytes((EXAMPLES / f"{name}.xml").read_bytes(), settings=SETTINGS, validator=validator)
        views[name] = result.view.model_dump(mode="json", exclude={"labels"})
    assert views == snapshot_json


def test_english_labels(validator):
    settings = RenderSettings.from_env({}, lang="en")
    result = render_bytes((EXAMPLES / "factura-certificada.xml").read_bytes(), settings=settings)
    text = pdf_pages(result.pdf)[0]
    assert "Invoice" in text and "Grand total" in text and "Page 1 of 1" in text
    assert "Mil novecientos once quetzales con 50/100" in text  # the amount in words stays Spanish


# --- refusals: a clear message and no file left behind --------------------------------------------


def test_invalid_document_is_refused_unless_forced(validator, tmp_path):
    source = tmp_path / "mala.xml"
    source.write_bytes((EXAMPLES / "factura-fact.xml").read_bytes().replace(b"<dte:GranTotal>1911.50<",
                                                                             b"<dte:GranTotal>1900.00<"))
    with pytest.raises(RenderError) as info:
        render_file(source, tmp_path / "mala.pdf", settings=SETTINGS, validator=validator)
    assert "no es válido" in info.value.message and "FEL-TOT-03" in info.value.message
    assert list(tmp_path.iterdir()) == [source]
    result = render_file(source, tmp_path / "mala.pdf", settings=SETTINGS, validator=validator, force=True)
    assert "NO VÁLIDO" in pdf_pages(result.pdf)[0] and result.path.exists()


def test_schema_invalid_document_is_refused(validator, tmp_path):
    source = tmp_path / "esquema.xml"
    source.write_bytes((EXAMPLES / "factura-fact.xml").read_bytes().replace(b'Tipo="FACT"', b'Tipo="XXXX"'))
    with pytest.raises(RenderError) as info:
        render_file(source, tmp_path / "esquema.pdf", settings=SETTINGS, validator=validator)
    assert "FEL-XSD-01" in info.value.message and "'XXXX'" in info.value.message
    assert not (tmp_path / "esquema.pdf").exists()


def test_annulment_is_refused(validator, tmp_path):
    with pytest.raises(RenderError) as info:
        render_file(EXAMPLES / "anulacion.xml", tmp_path / "a.pdf", settings=SETTINGS, validator=validator)
    assert "anulación" in info.value.message and "annulment" in info.value.message_en
    assert list(tmp_path.iterdir()) == []


def test_not_xml_is_refused(validator, tmp_path):
    source = tmp_path / "x.xml"
    source.write_text("hola")
    with pytest.raises(RenderError) as info:
        render_file(source, tmp_path / "x.pdf", settings=SETTINGS, validator=validator)
    assert "FEL-XML-03" in info.value.message


@pytest.mark.parametrize("logo", ["missing", "corrupt", "truncated"])
def test_bad_logo(validator, tmp_path, logo):
    path = tmp_path / "logo.png"
    if logo == "corrupt":
        path.write_bytes(b"\x89PNG\r\n\x1a\nnot really a png")
    elif logo == "truncated":  # a header that reads well, and half the image: said as such, before any PDF
        data = LOGO.read_bytes()
        path.write_bytes(data[:len(data) // 2])
    settings = RenderSettings.from_env({}, logo=path)
    with pytest.raises(RenderError) as info:
        render_file(EXAMPLES / "factura-certificada.xml", tmp_path / "f.pdf", settings=settings, validator=validator)
    assert str(path) in info.value.message
    assert logo != "truncated" or "dañado o incompleto" in info.value.message
    assert not (tmp_path / "f.pdf").exists()


def test_unwritable_output_leaves_nothing(validator, tmp_path):
    blocker = tmp_path / "archivo"
    blocker.write_text("no soy una carpeta")
    with pytest.raises(RenderError) as info:
        render_file(EXAMPLES / "factura-certificada.xml", blocker / "f.pdf", settings=SETTINGS, validator=validator)
    assert "No se pudo escribir" in info.value.message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["archivo"]


def test_existing_pdf_is_replaced_whole(validator, tmp_path):
    target = tmp_path / "f.pdf"
    render_file(EXAMPLES / "factura-fact.xml", target, settings=SETTINGS, validator=validator)  # an earlier PDF
    result = render_file(EXAMPLES / "factura-certificada.xml", target, settings=SETTINGS, validator=validator)
    assert target.read_bytes() == result.pdf
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.pdf"]


def test_settings_from_environment(tmp_path):
    settings = RenderSettings.from_env({"FEL_RULES_THEME": "moderno", "FEL_RULES_QR_SIZE": "40",
                                        "FEL_RULES_OUTPUT_DIR": str(tmp_path)}, theme=None)
    assert (settings.theme, settings.qr_size_mm, settings.output_dir) == ("moderno", 40, tmp_path)
    assert RenderSettings.from_env({"FEL_RULES_THEME": "moderno"}, theme="clasico").theme == "clasico"
    with pytest.raises(Exception) as info:
        RenderSettings.from_env({"FEL_RULES_QR_SIZE": "mucho"})
    assert "FEL_RULES_QR_SIZE" in str(info.value)


@pytest.mark.parametrize(("amount", "currency", "words"), [
    ("0.50", "GTQ", "Cero quetzales con 50/100"),
    ("1", "GTQ", "Un quetzal con 00/100"),
    ("21", "GTQ", "Veintiún quetzales con 00/100"),
    ("1911.50", "GTQ", "Mil novecientos once quetzales con 50/100"),
    ("21000", "GTQ", "Veintiún mil quetzales con 00/100"),
    ("1000000", "GTQ", "Un millón de quetzales con 00/100"),
    ("2500000.75", "GTQ", "Dos millones quinientos mil quetzales con 75/100"),
    ("15.005", "USD", "Quince dólares estadounidenses con 01/100"),
])
def test_amount_in_words(amount, currency, words):
    from decimal import Decimal

    assert amount_in_words(Decimal(amount), currency) == words


def test_output_dir_default(validator, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = render_file(EXAMPLES / "factura-certificada.xml", settings=RenderSettings.from_env({}),
                         validator=validator)
    assert result.path == Path("out") / "factura-certificada.pdf" and result.path.exists()
