"""What the PDF says and how: units of measure, tax names, the subtotal's wording, de-duplicated addresses, the
caption, the adenda (printed, escaped, bounded, never changing a verdict), the embedded font and its missing
glyphs, page formats, logos by emisor, and a certified sample whose QR decodes."""

from __future__ import annotations

import io
import json
import shutil

import pypdf

from fel_rules.batch import BatchOptions, run_batch
from fel_rules.cli.app import PAGE_NAMES, main
from fel_rules.outputs.render import RenderSettings, render_bytes
from fel_rules.outputs.render.settings import PageName
from fel_rules.testing.builder import Direccion, Impuesto, Invoice, Item

from .conftest import EXAMPLES, FEL_REFERENCE, requires_shared
from .test_render import decode_qr, pdf_pages

UUID = "5D8A3F21-9C4B-4E7A-B2D6-0F1E8C7A4B93"
LOGO = EXAMPLES / "logo.png"
SETTINGS = RenderSettings.from_env({}, logo=LOGO)


def certified(uuid: str = UUID, **changes) -> bytes:
    changes.setdefault("frases", [(1, 1)])
    return Invoice(**changes).certify(uuid, "2026-03-02T09:15:27-06:00").to_xml()


def text_of(pdf: bytes) -> str:
    return "\n".join(pdf_pages(pdf))


def test_units_tax_names_subtotal_and_caption(validator):
    fuel = Item.goods("Gasolina superior", "10", "32.50", unidad_medida="GAL",
                      otros_impuestos=[Impuesto("PETROLEO", 1, "47.00", cantidad_unidades_gravables="10")])
    result = render_bytes(certified(items=[fuel]), settings=SETTINGS, validator=validator)
    assert result.report.valid
    text = text_of(result.pdf)
    for fragment in ("DOCUMENTO TRIBUTARIO ELECTRÓNICO", "U/M", "GAL", "Subtotal (sin impuestos)", "IDP", "Q 47.00"):
        assert fragment in text, fragment
    assert "PETROLEO" not in text
    assert result.view.totals[-1] == ("IDP", "Q 47.00")
    english = render_bytes(certified(items=[fuel]), settings=RenderSettings.from_env({}, lang="en"),
                           validator=validator)
    assert english.view.totals[-1] == ("IDP (fuel tax)", "Q 47.00")
    only_iva = render_bytes((EXAMPLES / "factura-certificada.xml").read_bytes(), settings=SETTINGS,
                            validator=validator)
    assert only_iva.view.totals[0][0] == "Subtotal (sin IVA)"


def test_the_address_names_each_place_once(validator):
    repeated = Direccion(direccion="8 Calle Barrio El Porvenir, zona 5, Guastatoya, EL PROGRESO",
                         codigo_postal="02001", municipio="Guastatoya", departamento="El Progreso")
    plain = Direccion(direccion="4a. Calle 12-35, Zona 1", codigo_postal="09001", municipio="Quetzaltenango",
                      departamento="Quetzaltenango", pais="GT")
    foreign = Direccion(direccion="1200 Brickell Ave", codigo_postal=None, municipio="Miami", departamento="Florida",
                        pais="US")
    data = certified(emisor_direccion=repeated, receptor_id="38461528", receptor_nombre="CLIENTE",
                     receptor_direccion=foreign)
    view = render_bytes(data, settings=SETTINGS, validator=validator).view
    assert view.emisor.address == "8 Calle Barrio El Porvenir, zona 5, Guastatoya, EL PROGRESO (C.P. 02001)"
    assert view.receptor.address == "1200 Brickell Ave, Miami, Florida, US"
    view = render_bytes(certified(emisor_direccion=plain), settings=SETTINGS, validator=validator).view
    assert view.emisor.address == "4a. Calle 12-35, Zona 1, Quetzaltenango (C.P. 09001)"


ADENDA = {"NumeroOrden": "OC-2026-00457", "Vendedor": "María José Xicará",
          "Observaciones": "Entregar en bodega 3 <b>antes</b> de las 10:00 & avisar"}


def test_the_adenda_is_printed_as_text_and_changes_no_verdict(validator):
    with_adenda, without = certified(adenda=ADENDA), certified()
    result = render_bytes(with_adenda, settings=SETTINGS, validator=validator)
    assert result.view.adenda == [("Numero orden", "OC-2026-00457"), ("Vendedor", "María José Xicará"),
                                  ("Observaciones", "Entregar en bodega 3 <b>antes</b> de las 10:00 & avisar")]
    text = text_of(result.pdf)
    assert "Información adicional" in text and "<b>antes</b> de las 10:00 & avisar" in text

    def verdict(report) -> dict:  # the adenda's lines move the signature's line number, nothing else
        data = report.to_dict(include_run=False)
        data["document"].pop("sha256")
        for issue in data["issues"]:
            issue["location"].pop("line")
        return data

    outcome = validator.inspect_bytes(with_adenda)
    report, facts = outcome.report, outcome.facts
    assert facts.adenda and validator.inspect_bytes(without).facts.adenda == []
    assert verdict(report) == verdict(validator.validate_bytes(with_adenda)) == verdict(
        validator.validate_bytes(without))


def test_the_adenda_is_bounded(validator):
    adenda = {f"Campo{n}": "x" * 2000 for n in range(30)}
    view = render_bytes(certified(adenda=adenda), settings=SETTINGS, validator=validator).view
    assert len(view.adenda) == 21 and view.adenda[-1] == ("…", "y 10 datos más")
    assert all(len(value) <= 500 for _, value in view.adenda)


def test_the_font_is_embedded_and_covers_mayan_greek_and_cyrillic(validator):
    data = certified(emisor_nombre_comercial="Tejidos Kʼicheʼ Ixoqibʼ", receptor_id="CF",
                     receptor_nombre="Иван Петров Ωμέγα")
    result = render_bytes(data, settings=SETTINGS, validator=validator)
    assert result.missing_glyphs == () and result.warnings == []
    text = text_of(result.pdf)
    assert "Tejidos Kʼicheʼ Ixoqibʼ" in text and "Иван Петров Ωμέγα" in text
    fonts = set()
    for page in pypdf.PdfReader(io.BytesIO(result.pdf)).pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            fonts.add(str(font["/BaseFont"]))
            assert "/FontFile2" in font["/FontDescriptor"].get_object(), font["/BaseFont"]
    assert fonts and all("FiraSans" in name for name in fonts), fonts


def test_characters_without_a_glyph_are_shown_and_reported(validator, tmp_path, capsys):
    data = certified(items=[Item.goods("Té 中文 😀", "1", "10.00")])
    result = render_bytes(data, settings=SETTINGS, validator=validator)
    assert result.missing_glyphs == ("中", "文", "😀")
    assert "Té [U+4E2D][U+6587] [U+1F600]" in text_of(result.pdf)
    source = tmp_path / "cjk.xml"
    source.write_bytes(data)
    assert main(["render", str(source), "--out", str(tmp_path / "cjk.pdf")]) == 0
    err = capsys.readouterr().err
    assert err == ("fel-rules: aviso: caracteres sin glifo en la fuente del PDF, impresos como [U+código] (3): "
                   "中 (U+4E2D), 文 (U+6587), 😀 (U+1F600)\n")
    assert main(["render", str(source), "--out", str(tmp_path / "cjk.pdf"), "--lang", "en"]) == 0
    said = "fel-rules: warning: characters without a glyph in the PDF's font, printed as [U+code] (3)"
    assert said in capsys.readouterr().err


def test_a_control_character_in_plain_ascii_text_is_dropped_as_elsewhere(validator):
    """XML allows DEL (U+007F), which no face draws: it is dropped from an all-ASCII text as from any other
    (a format or control character is invisible), never printed as a box."""
    data = certified(items=[Item.goods("Tornillo\x7f de acero", "1", "10.00"),
                            Item.goods("Té\x7f verde", "1", "10.00")])
    result = render_bytes(data, settings=SETTINGS, validator=validator)
    assert result.missing_glyphs == ()
    text = text_of(result.pdf)
    assert "Tornillo de acero" in text and "Té verde" in text and "\x7f" not in text


def _page_size(pdf: bytes, index: int = 0) -> tuple[float, float]:
    box = pypdf.PdfReader(io.BytesIO(pdf)).pages[index].mediabox
    return round(float(box.width), 1), round(float(box.height), 1)


def test_page_formats(validator, tmp_path, capsys):
    assert PAGE_NAMES == PageName.__args__
    data = (EXAMPLES / "factura-certificada.xml").read_bytes()
    sizes = {}
    for page in PAGE_NAMES:
        result = render_bytes(data, settings=RenderSettings.from_env({}, logo=LOGO, page=page), validator=validator)
        sizes[page] = _page_size(result.pdf)
        assert len(pdf_pages(result.pdf)) == 1 and decode_qr(result.pdf) == [result.view.qr_url]
    assert sizes["carta"] == (612.0, 792.0) and sizes["media-carta"] == (396.0, 612.0)
    width, height = sizes["ticket"]
    assert width == 226.8 and 500 < height < 1400  # 80 mm wide, as tall as its content
    longer = render_bytes(certified(items=[Item.goods(f"Artículo {n}", "1", "5.00") for n in range(1, 31)]),
                          settings=RenderSettings.from_env({}, page="ticket"), validator=validator)
    assert _page_size(longer.pdf)[1] > height and len(pdf_pages(longer.pdf)) == 1
    assert main(["render", str(EXAMPLES / "factura-certificada.xml"), "--page", "media-carta",
                 "--out", str(tmp_path / "m.pdf")]) == 0
    assert _page_size((tmp_path / "m.pdf").read_bytes()) == (396.0, 612.0)


def _image_widths(pdf: bytes) -> set[int]:
    widths = set()
    for page in pypdf.PdfReader(io.BytesIO(pdf)).pages:
        for image in page.images:
            widths.add(image.image.width)
    return widths


def test_batch_logos_by_emisor(tmp_path, capsys):
    from PIL import Image

    folder, logos = tmp_path / "xml", tmp_path / "logos"
    folder.mkdir()
    logos.mkdir()
    Image.new("RGB", (123, 40), "navy").save(logos / "85372641.png")
    Image.new("RGB", (77, 30), "darkgreen").save(logos / "7602637K.jpg")
    for name, nit in (("a", "85372641"), ("b", "7602637K"), ("c", "38461528")):
        uuid = f"{UUID[:-1]}{'ABC'.index(name.upper())}"
        (folder / f"{name}.xml").write_bytes(certified(uuid, emisor_nit=nit))
    out = tmp_path / "out"
    code = main(["batch", str(folder), "--out", str(out), "--logo-dir", str(logos), "--logo", str(LOGO),
                 "--page", "media-carta", "--workers", "1"])
    assert code == 0, capsys.readouterr()
    default = _image_widths(render_bytes(certified(), settings=SETTINGS).pdf)
    assert _image_widths((out / "a.pdf").read_bytes()) == {123}
    assert _image_widths((out / "b.pdf").read_bytes()) == {77}
    assert _image_widths((out / "c.pdf").read_bytes()) == default
    assert _page_size((out / "a.pdf").read_bytes()) == (396.0, 612.0)
    manifest = json.loads((out / "manifest.json").read_text())
    assert [entry["pdf"] for entry in manifest["entries"]] == ["a.pdf", "b.pdf", "c.pdf"]
    # a new logo for one emisor: --resume renders again instead of keeping the PDFs made with the old one
    Image.new("RGB", (99, 40), "maroon").save(logos / "85372641.png")
    code = main(["batch", str(folder), "--out", str(out), "--logo-dir", str(logos), "--logo", str(LOGO),
                 "--page", "media-carta", "--workers", "1", "--resume"])
    assert code == 0 and _image_widths((out / "a.pdf").read_bytes()) == {99}


def test_batch_refuses_a_missing_logo_folder(tmp_path, capsys):
    folder = tmp_path / "xml"
    folder.mkdir()
    shutil.copy(EXAMPLES / "factura-certificada.xml", folder)
    assert main(["batch", str(folder), "--out", str(tmp_path / "out"), "--logo-dir", str(tmp_path / "nada")]) == 2
    assert "No existe la carpeta de logos" in capsys.readouterr().err


def test_batch_options_carry_the_page(tmp_path):
    folder = tmp_path / "xml"
    folder.mkdir()
    shutil.copy(EXAMPLES / "factura-certificada.xml", folder)
    settings = RenderSettings.from_env({}, page="ticket")
    run_batch(BatchOptions(folder, tmp_path / "out", workers=1, progress=False, render_settings=settings))
    assert _page_size((tmp_path / "out" / "factura-certificada.pdf").read_bytes())[0] == 226.8


@requires_shared
def test_a_certified_sample(validator):
    data = (FEL_REFERENCE / "samples" / "certified" / "fpeq-certified.xml").read_bytes()
    result = render_bytes(data, settings=SETTINGS, validator=validator)
    text = text_of(result.pdf)
    assert result.view.emisor.address == "8 CALLE BARRIO EL PORVENIR, zona 5, Guastatoya, EL PROGRESO (C.P. 1)"
    assert "8 CALLE BARRIO EL PORVENIR" in text and "Guastatoya, Guastatoya" not in " ".join(text.split())
    assert decode_qr(result.pdf) == [result.view.qr_url] and "numero=40706AFC-E320-41F3-A54C-944A1F34FA04" in \
        result.view.qr_url
