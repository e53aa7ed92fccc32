"""Tests of the FEL document builder (fel_rules.testing) and of the shipped examples."""

from __future__ import annotations

import importlib.util
from decimal import Decimal
from pathlib import Path
from types import ModuleType

import pytest
from lxml import etree

from fel_rules.testing.builder import (
    SAMPLE_KINDS,
    Abono,
    Anulacion,
    Cambiaria,
    Invoice,
    Item,
    ReferenciasNota,
    RetencionesFacturaEspecial,
    cui_is_valid,
    cui_with_check_digit,
    nit_is_valid,
    nit_with_check_digit,
    sample_invoice,
    uuid_serie_numero,
)
from fel_rules.testing.verify import (
    arithmetic_problems,
    is_missing_signature,
    xsd_errors,
    xsd_errors_except_signature,
)
from fel_rules.testing.xmltools import NS_ANULACION, NS_CFC, NS_CNO, NS_DS, NS_DTE

BUNDLE = Path(__file__).resolve().parents[2] / "shared/fel-reference/xsd/patched-offline/fel-bundle.xsd"
EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "examples"
NS = {"dte": NS_DTE, "cfc": NS_CFC, "cno": NS_CNO, "ds": NS_DS, "anu": NS_ANULACION}
UUID = "9E52C854-E18B-45C1-A77B-C87CF42F35F1"


@pytest.fixture(scope="module")
def schema():
    """SAT's patched offline bundle, compiled once for this module."""
    if not BUNDLE.exists():
        pytest.skip(f"SAT XSD bundle not available at {BUNDLE}")
    import xmlschema

    return xmlschema.XMLSchema(str(BUNDLE))


def parse(xml: bytes) -> etree._Element:
    return etree.fromstring(xml)


def dec(root: etree._Element, path: str) -> Decimal:
    return Decimal(root.findtext(path, namespaces=NS))


def three_line_invoice(**changes: object) -> Invoice:
    items = [
        Item.goods("Cemento gris 42.5 kg", cantidad="10", precio_unitario="85.00"),
        Item.goods("Varilla de hierro 3/8\"", cantidad="20", precio_unitario="38.50",
                   descuento="38.50"),
        Item.service("Flete a domicilio", cantidad="1", precio_unitario="75.00"),
    ]
    return Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items, **changes)


# -- (a) schema validity ----------------------------------------------------------------


@pytest.mark.parametrize("kind", SAMPLE_KINDS)
def test_default_documents_valid_except_signature(schema, kind):
    xml = sample_invoice(kind).to_xml()
    errors = xsd_errors(schema, xml)
    assert len(errors) == 1 and is_missing_signature(errors[0]), [str(e.reason) for e in errors]


@pytest.mark.parametrize("kind", SAMPLE_KINDS)
def test_default_documents_with_placeholder_signature_fully_valid(schema, kind):
    assert xsd_errors(schema, sample_invoice(kind).to_xml(signature=True)) == []


def test_certified_document_valid(schema):
    inv = sample_invoice("FACT").certify(uuid=UUID, fecha="2026-03-15T10:31:02-06:00")
    assert xsd_errors_except_signature(schema, inv.to_xml()) == []
    assert xsd_errors(schema, inv.to_xml(signature=True)) == []


@pytest.mark.parametrize("certified", [False, True])
def test_annulment_valid(schema, certified):
    inv = sample_invoice("FACT").certify(uuid=UUID, fecha="2026-03-15T10:31:02-06:00")
    anulacion = Anulacion.for_invoice(inv, "2026-03-16T08:00:00-06:00", "Datos del receptor erróneos")
    if certified:
        anulacion.certify("2026-03-16T08:00:04-06:00")
        assert xsd_errors(schema, anulacion.to_xml()) == []  # signed by its issuer and its certifier
    errors = xsd_errors(schema, anulacion.to_xml(signed=False))
    assert len(errors) == 1 and is_missing_signature(errors[0])
    assert xsd_errors(schema, anulacion.to_xml(signature=True)) == []


def test_annulment_data_are_attributes_in_namespace_010():
    anulacion = Anulacion(numero_documento=UUID, fecha_hora_anulacion="2026-03-16T08:00:00-06:00")
    root = parse(anulacion.to_xml())
    assert root.tag == f"{{{NS_ANULACION}}}GTAnulacionDocumento"
    datos = root.find("anu:SAT/anu:AnulacionDTE/anu:DatosGenerales", NS)
    assert datos.get("ID") == "DatosAnulacion"
    assert datos.get("NumeroDocumentoAAnular") == UUID
    assert len(datos) == 0


def test_deliberate_defects_are_reported_by_the_schema(schema):
    note = sample_invoice("NCRE", omit={"@SerieDocumentoOrigen"}).to_xml()
    assert any("SerieDocumentoOrigen" in e for e in xsd_errors_except_signature(schema, note))
    no_gravable = sample_invoice("FACT", items=[Item.goods("X", "1", "1.00", omit={"Total"})])
    assert xsd_errors_except_signature(schema, no_gravable.to_xml())
    bad_type = sample_invoice("FACT", attributes={"DatosGenerales": {"Tipo": "XXXX"}})
    assert any("Tipo" in e for e in xsd_errors_except_signature(schema, bad_type.to_xml()))


def test_adenda_is_written_under_sat_and_rejected_by_the_schema(schema):
    xml = sample_invoice("FACT", adenda={"CodigoCliente": "C-0042"}).to_xml()
    adenda = parse(xml).find("dte:SAT/dte:Adenda", NS)
    assert adenda is not None and adenda.findtext("CodigoCliente") == "C-0042"
    assert xsd_errors_except_signature(schema, xml)


def test_placeholder_signature_structure():
    root = parse(sample_invoice("FACT").to_xml(signature=True))
    signature = root.find("ds:Signature", NS)
    assert signature is not None and signature.getprevious().tag == f"{{{NS_DTE}}}SAT"
    reference = signature.find("ds:SignedInfo/ds:Reference", NS)
    assert reference.get("URI") == "#DatosEmision"
    assert reference.find("ds:DigestValue", NS).text
    assert signature.find("ds:SignatureValue", NS).text
    assert parse(sample_invoice("FACT").to_xml()).find("ds:Signature", NS) is None


def test_output_format():
    xml = sample_invoice("FACT").to_xml()
    assert xml.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<dte:GTDocumento ')
    assert b'\n  <dte:SAT ClaseDocumento="dte">\n' in xml
    assert xml.endswith(b"</dte:GTDocumento>\n")
    assert xml == sample_invoice("FACT").to_xml()


# -- (b) arithmetic ---------------------------------------------------------------------


def test_three_line_invoice_arithmetic_is_exact():
    root = parse(three_line_invoice().to_xml())
    items = root.findall(".//dte:Item", NS)
    assert len(items) == 3
    totals = [dec(item, "dte:Total") for item in items]
    assert totals == [Decimal("850.00"), Decimal("731.50"), Decimal("75.00")]
    assert dec(root, ".//dte:GranTotal") == sum(totals) == Decimal("1656.50")
    iva_sum = Decimal(0)
    for item, total in zip(items, totals, strict=True):
        gravable = dec(item, ".//dte:MontoGravable")
        impuesto = dec(item, ".//dte:MontoImpuesto")
        assert gravable + impuesto == total
        assert abs(gravable * Decimal("0.12") - impuesto) <= Decimal("0.01")
        iva_sum += impuesto
    total_iva = root.find(".//dte:TotalImpuesto", NS)
    assert total_iva.get("NombreCorto") == "IVA"
    assert Decimal(total_iva.get("TotalMontoImpuesto")) == iva_sum
    assert arithmetic_problems(etree.tostring(root)) == []


def test_rounding_is_half_up():
    line = Item.goods("Varilla", "20", "38.50", descuento="38.50").amounts("gravado")
    # 731.50 / 1.12 = 653.125 exactly: half-up gives 653.13 (banker's rounding would give 653.12).
    assert line.impuestos[0].monto_gravable.text == "653.13"
    assert line.impuestos[0].monto_impuesto.text == "78.37"


def test_configurable_decimals_match_a_sat_certified_document():
    # MontoGravable 8010.589286 / MontoImpuesto 961.270714 come from a SAT-certified DTE.
    inv = Invoice(items=[Item.goods("Lote", "1", "8971.86")], decimals=6)
    tax = inv.amounts().lines[0].impuestos[0]
    assert (tax.monto_gravable.text, tax.monto_impuesto.text) == ("8010.589286", "961.270714")
    assert inv.amounts().lines[0].total.text == "8971.860000"


def test_floats_are_refused():
    with pytest.raises(TypeError):
        Invoice(items=[Item.goods("X", 1, 85.0)]).to_xml()


def test_exempt_and_untaxed_lines():
    inv = Invoice(frases=[(1, 1), (4, 8)], items=[
        Item.service("Colegiatura", "1", "650.00", iva="exento"),
        Item.goods("Uniforme", "1", "240.00")])
    exempt, taxed = inv.amounts().lines
    assert exempt.impuestos[0].codigo_unidad_gravable == "2"
    assert exempt.impuestos[0].monto_gravable.text == "650.00"
    assert exempt.impuestos[0].monto_impuesto.text == "0.00"
    assert inv.amounts().total_impuestos["IVA"].text == "25.71"
    fpeq = parse(sample_invoice("FPEQ").to_xml())
    assert fpeq.find(".//dte:Impuestos", NS) is None
    assert fpeq.find(".//dte:TotalImpuestos", NS) is None
    assert fpeq.find(".//dte:Emisor", NS).get("AfiliacionIVA") == "PEQ"


def test_overrides_follow_downstream_and_omit_removes():
    inv = three_line_invoice()
    inv.items[0].total = "900.00"
    inv.items[1].monto_gravable = "600.00"
    inv.items[2].omit = {"MontoGravable"}
    root = parse(inv.to_xml())
    items = root.findall(".//dte:Item", NS)
    assert dec(items[0], "dte:Total") == Decimal("900.00")
    assert dec(root, ".//dte:GranTotal") == Decimal("900.00") + Decimal("731.50") + Decimal("75.00")
    assert dec(items[1], ".//dte:MontoImpuesto") == Decimal("131.50")
    assert items[2].find(".//dte:MontoGravable", NS) is None
    assert items[2].find(".//dte:MontoImpuesto", NS) is not None
    problems = arithmetic_problems(etree.tostring(root))
    assert any(p.startswith("line 1") for p in problems)
    assert any(p.startswith("line 2") for p in problems)


def test_document_overrides():
    inv = three_line_invoice(gran_total="1.00", total_impuestos={"IVA": "0.00", "BOMBEROS": "1.50"},
                             omit={"Frases", "Emisor@CorreoEmisor"})
    root = parse(inv.to_xml())
    assert root.findtext(".//dte:GranTotal", namespaces=NS) == "1.00"
    names = [t.get("NombreCorto") for t in root.findall(".//dte:TotalImpuesto", NS)]
    assert names == ["IVA", "BOMBEROS"]
    assert root.find(".//dte:Frases", NS) is None


def test_cambiaria_abonos_sum_to_gran_total():
    inv = Invoice(tipo="FCAM", items=[Item.goods("Servicio", "1", "100.00")],
                  complementos=[Cambiaria.plazos("2026-04-01", "2026-05-01", "2026-06-01")])
    root = parse(inv.to_xml())
    montos = [Decimal(m.text) for m in root.iterfind(".//cfc:MontoAbono", NS)]
    assert montos == [Decimal("33.33"), Decimal("33.33"), Decimal("33.34")]
    explicit = Cambiaria(abonos=[Abono(1, "2026-04-01", "60.00"), Abono(2, "2026-05-01")])
    root = parse(inv.replace(complementos=[explicit]).to_xml())
    assert [m.text for m in root.iterfind(".//cfc:MontoAbono", NS)] == ["60.00", "40.00"]


def test_factura_especial_retentions():
    inv = sample_invoice("FESP", items=[Item.goods("Café en uva, quintal", "25", "310.00")])
    assert inv.complementos and isinstance(inv.complementos[0], RetencionesFacturaEspecial)
    root = parse(inv.to_xml())
    ns = {"cfe": "http://www.sat.gob.gt/face2/ComplementoFacturaEspecial/0.1.0"}
    values = [root.findtext(f".//cfe:{tag}", namespaces=ns)
              for tag in ("RetencionISR", "RetencionIVA", "TotalMenosRetenciones")]
    # MontoGravable 6919.64 x 5 % = 345.982 -> 345.98; IVA 830.36; 7750 - both = 6573.66
    assert values == ["345.98", "830.36", "6573.66"]
    assert root.find(".//dte:Receptor", NS).get("TipoEspecial") == "CUI"


# -- (c) identifiers --------------------------------------------------------------------


def test_nit_check_digits():
    assert nit_with_check_digit("1252133") == "12521337"
    assert nit_is_valid("12521337")
    assert nit_is_valid("16693949")
    assert not nit_is_valid("12521338")
    assert nit_with_check_digit("1000002") == "1000002K"
    assert nit_is_valid("1000002-k")
    assert not nit_is_valid("11200188K")  # placeholder NIT seen in a certifier demo


def test_cui_check_digit():
    assert cui_is_valid("2263175360101")  # CUI of a certifier example
    cui = cui_with_check_digit("25874196", 1, 1)
    assert len(cui) == 13 and cui_is_valid(cui)
    assert not cui_is_valid(cui[:8] + str((int(cui[8]) + 1) % 10) + cui[9:])
    with pytest.raises(ValueError):
        cui_with_check_digit("25874196", 23, 1)


# -- (d) UUID -> Serie / Numero ---------------------------------------------------------


def test_uuid_serie_numero():
    assert uuid_serie_numero("9E52C854-E18B-45C1-A77B-C87CF42F35F1") == ("9E52C854", "3784000961")
    assert uuid_serie_numero("40706AFC-E320-41F3-A54C-944A1F34FA04") == ("40706AFC", "3810542067")


def test_certify_and_reference_note():
    origin = sample_invoice("FACT", fecha="2026-03-02T09:15:00-06:00")
    origin.certify(uuid=UUID, fecha="2026-03-02T09:15:27-06:00")
    autorizacion = parse(origin.to_xml()).find(".//dte:Certificacion/dte:NumeroAutorizacion", NS)
    assert (autorizacion.text, autorizacion.get("Serie"), autorizacion.get("Numero")) == (
        UUID, "9E52C854", "3784000961")
    note = sample_invoice("NCRE", complementos=[ReferenciasNota.of(origin, motivo="Devolución")])
    ref = parse(note.to_xml()).find(".//cno:ReferenciasNota", NS)
    assert ref.get("NumeroAutorizacionDocumentoOrigen") == UUID
    assert ref.get("SerieDocumentoOrigen") == "9E52C854"
    assert ref.get("NumeroDocumentoOrigen") == "3784000961"
    assert ref.get("FechaEmisionDocumentoOrigen") == "2026-03-02"


# -- shipped examples -------------------------------------------------------------------


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("examples_generate", EXAMPLES_DIR / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_examples_are_up_to_date_and_deterministic(generator):
    built = generator.build_examples()
    assert built == generator.build_examples()
    for name, xml in built.items():
        assert (EXAMPLES_DIR / name).read_bytes() == xml, f"{name}: run examples/generate.py"


def test_examples_valid_except_signature(schema, generator):
    """Pre-signature examples lack only the issuer's ds:Signature; the certified one is signed."""
    for name, xml in generator.build_examples().items():
        errors = xsd_errors(schema, xml)
        if b"Certificacion>" in xml:
            assert errors == [], (name, errors)
        else:
            assert len(errors) == 1 and is_missing_signature(errors[0]), (name, errors)


def test_examples_arithmetic_and_identifiers(generator):
    for name, xml in generator.build_examples().items():
        root = parse(xml)
        if root.tag.endswith("GTAnulacionDocumento"):
            assert nit_is_valid(root.find(".//anu:DatosGenerales", NS).get("NITEmisor"))
            continue
        assert arithmetic_problems(xml) == [], name
        assert nit_is_valid(root.find(".//dte:Emisor", NS).get("NITEmisor")), name
        receptor = root.find(".//dte:Receptor", NS)
        identifier = receptor.get("IDReceptor")
        if receptor.get("TipoEspecial") == "CUI":
            assert cui_is_valid(identifier), name
        elif identifier != "CF":
            assert nit_is_valid(identifier), name
        certificador = root.findtext(".//dte:NITCertificador", namespaces=NS)
        assert certificador is None or nit_is_valid(certificador), name
