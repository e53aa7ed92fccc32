"""Never a false "VÁLIDO": unreadable values and stripped certified documents.

* An amount, quantity, integer or date the rules cannot read is an error (schema stage, agreeing
  with a conformant XSD validator, and ``FEL-DAT-01`` in the rules stage), never "not applicable";
  its PDF is never printed as valid and its verifier QR never ends in ``monto=``.
* A document that carries dte:Certificacion but not the signatures certification implies is not a
  pre-signature document: it is invalid and never printed as certified.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest
import xmlschema
from lxml import etree

from fel_rules import RenderError
from fel_rules.checks import CheckInput, get_check_kind
from fel_rules.checks.base import RuleEnv
from fel_rules.document.schema import SchemaSet, check_schema
from fel_rules.expressions.language import Evaluator
from fel_rules.outputs.render import RenderSettings, render_bytes
from fel_rules.outputs.render.view import verifier_url
from fel_rules.testing.anulacion import Anulacion
from fel_rules.testing.builder import Invoice, Item
from fel_rules.testing.xmltools import NS_DS

from .conftest import EXAMPLES

CERTIFIED = (EXAMPLES / "factura-certificada.xml").read_bytes()
PRESIGNATURE = (EXAMPLES / "factura-fact.xml").read_bytes()
SETTINGS = RenderSettings.from_env({})
DTE = "http://www.sat.gob.gt/dte/fel/0.2.0"

#: Amounts a reader might take for a number and no conformant validator accepts.
UNREADABLE = ["99 999.99", "5 5", "1 2", "1911\u00a0.50", "1\u2003911.50", "\u00a01911.50", "1911.50\u2028"]


def _with_gran_total(document: bytes, text: str) -> bytes:
    root = etree.fromstring(document)
    root.find(f".//{{{DTE}}}GranTotal").text = text
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def _stripped(document: bytes) -> bytes:
    root = etree.fromstring(document)
    for signature in root.findall(f"{{{NS_DS}}}Signature"):
        root.remove(signature)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def _ids(report, stage: str | None = None) -> set[str]:
    return {i.rule_id for i in report.issues if i.severity.value == "error" and stage in (None, i.stage)}


# --------------------------------------------------------------------------------------------
# class 1: unreadable amounts


@pytest.mark.parametrize("text", UNREADABLE, ids=repr)
def test_unreadable_amounts_are_errors(validator, text):
    report = validator.validate_bytes(_with_gran_total(PRESIGNATURE, text))
    assert not report.valid
    schema = [i for i in report.issues if i.rule_id == "FEL-XSD-01"]
    assert [i.location.field for i in schema] == ["GranTotal"], [i.message for i in report.issues]
    assert "no es un decimal válido" in schema[0].message
    (unreadable,) = [i for i in report.issues if i.rule_id == "FEL-DAT-01"]
    assert unreadable.severity.value == "error" and unreadable.stage == "rules"
    assert unreadable.location.field == "GranTotal" and "FEL-TOT-03" in unreadable.message
    assert report.document.gran_total == text.strip(" ")
    assert report.totals.total is None


def test_unreadable_amounts_schema_agrees_with_libxml2():
    """The schema stage reads simple values as a conformant validator (libxml2) does."""
    types = ["decimal", "integer", "positiveInteger", "int", "dateTime", "token"]
    xsd = ('<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="r"><xs:complexType>'
           '<xs:sequence>' + "".join(f'<xs:element name="{t}" type="xs:{t}" minOccurs="0"/>' for t in types)
           + '</xs:sequence><xs:attribute name="a" type="xs:decimal"/></xs:complexType></xs:element></xs:schema>')
    explainer = xmlschema.XMLSchema10(xsd)
    stage = SchemaSet("test", "0", None, lambda: explainer)  # xmlschema alone, the reference engine
    libxml2 = etree.XMLSchema(etree.fromstring(xsd))
    values = ["12", " 12 ", "\t12\n", "1.5", *UNREADABLE, "1_2", "\u0661\u0662", "+1", "-0", "abc", "1 abc",
              "2026-03-02T09:15:00-06:00", "2026-03-02T09:15:00\u00a0", "a\u00a0b"]
    documents = [etree.fromstring(f"<r><{name}>{value}</{name}></r>") for value in values for name in types]
    for value in values:
        documents.append(etree.fromstring('<r a=""/>'))
        documents[-1].set("a", value)
    for document in documents:
        verdict = check_schema(stage, document).status == "passed"
        assert verdict == libxml2.validate(document), etree.tostring(document, encoding="unicode")


def test_unreadable_amounts_are_errors_even_where_the_schema_reads_text(validator):
    """A many-binding with one unreadable value is never summed without it (schema: Monto is text)."""
    from fel_rules.checks import Unreadable

    kind = get_check_kind("expression")
    params = kind.Params.model_validate({
        "context": "/r", "let": {"montos": {"path": "m", "many": True}}, "assert": "sum(montos) > 100",
    })
    check = kind(params, RuleEnv(rule_id="X", namespaces={}))
    root = etree.fromstring("<r><m>60</m><m>5 0</m><m>60</m></r>")
    evaluator = Evaluator(tolerance=Decimal("0.01"), rounding=ROUND_HALF_UP)
    findings = list(check.check(CheckInput(root=root, evaluator=evaluator)))
    assert findings == [Unreadable(xpath="/r/m[2]", line=1, field="m", raw="5 0", kind="decimal")]


def test_unreadable_line_amount_leaves_the_report_totals_unknown(validator):
    root = etree.fromstring(PRESIGNATURE)
    root.find(f".//{{{DTE}}}Item//{{{DTE}}}MontoGravable").text = "1 0"
    report = validator.validate_bytes(etree.tostring(root))
    assert not report.valid and report.totals.subtotal is None and report.totals.iva is None
    assert {"FEL-XSD-01", "FEL-DAT-01"} <= _ids(report)


def test_a_line_with_otros_descuento_is_valid_and_its_totals_add_up(validator):
    """SAT takes OtrosDescuento out of MontoGravable (FEL_RCP226) but not out of Total (FEL_RCP348): a document
    computed that way is valid, and its printed subtotal (without IVA) + IVA is its gran total."""
    item = Item.goods("Cemento", "1", "112.00", otros_descuento="11.20", monto_gravable="90.00",
                      monto_impuesto="10.80", total="112.00")
    report = validator.validate_bytes(Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=[item]).to_xml())
    assert report.valid, [issue.rule_id for issue in report.issues]
    assert (report.totals.subtotal, report.totals.iva, report.totals.total) == ("101.20", "10.80", "112.00")


def test_unreadable_gran_total_is_never_printed_as_valid_nor_given_a_qr(validator):
    document = _with_gran_total(CERTIFIED, "99 999.99")
    with pytest.raises(RenderError):
        render_bytes(document, settings=SETTINGS, validator=validator)
    forced = render_bytes(document, settings=SETTINGS, validator=validator, force=True)
    assert "NO VÁLIDO" in forced.view.watermarks and forced.view.qr_url is None
    assert forced.view.gran_total == "99 999.99"
    facts = validator.inspect_bytes(document).facts
    assert verifier_url(facts) is None


# --------------------------------------------------------------------------------------------
# class 2: certified documents stripped of their signatures


def test_certified_document_without_signatures_is_invalid(validator):
    original = validator.validate_bytes(CERTIFIED)
    assert original.valid and original.document.certified
    stripped = validator.validate_bytes(_stripped(CERTIFIED))
    assert not stripped.valid and not stripped.document.certified
    assert "FEL-XSD-02" not in {i.rule_id for i in stripped.issues}  # not a pre-signature document
    assert {"FEL-XSD-01", "FEL-FIR-05", "FEL-FEC-03"} <= _ids(stripped)
    assert stripped.counts.error > original.counts.error


@pytest.mark.parametrize("kept, fired", [("#DatosEmision", "FEL-FEC-03"), ("#DatosCertificados", "FEL-FIR-05")])
def test_certified_document_without_signatures_is_invalid_with_one_role_missing(validator, kept, fired):
    root = etree.fromstring(CERTIFIED)
    for signature in root.findall(f"{{{NS_DS}}}Signature"):
        if signature.find(f"{{{NS_DS}}}SignedInfo/{{{NS_DS}}}Reference").get("URI") != kept:
            root.remove(signature)
    report = validator.validate_bytes(etree.tostring(root))
    assert not report.valid and not report.document.certified
    assert _ids(report, "rules") == {fired}


def test_certified_annulment_without_signatures_is_invalid(validator):
    invoice = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)],
                      items=[Item.goods("Cemento", cantidad="1", precio_unitario="85.00")])
    invoice.certify("5D8A3F21-9C4B-4E7A-B2D6-0F1E8C7A4B93", "2026-03-02T09:15:27-06:00")
    annulment = Anulacion.for_invoice(invoice, "2026-03-16T08:00:00-06:00", "Error en los datos")
    annulment.certify("2026-03-16T08:00:04-06:00")
    signed = validator.validate_bytes(annulment.to_xml())
    assert signed.valid and signed.document.certified, [i.message for i in signed.issues]
    stripped = validator.validate_bytes(annulment.to_xml(signed=False))
    assert not stripped.valid and not stripped.document.certified
    assert {"FEL-XSD-01", "FEL-ANU-06", "FEL-ANU-07"} <= _ids(stripped)


def test_certified_document_without_signatures_is_never_printed_as_certified(validator):
    document = _stripped(CERTIFIED)
    with pytest.raises(RenderError):
        render_bytes(document, settings=SETTINGS, validator=validator)
    view = render_bytes(document, settings=SETTINGS, validator=validator, force=True).view
    assert view.watermarks == ["DOCUMENTO NO CERTIFICADO", "NO VÁLIDO"]
    assert (view.uuid, view.serie, view.numero, view.certificador, view.fecha_certificacion, view.qr_url) == (None,) * 6
    signed = render_bytes(CERTIFIED, settings=SETTINGS, validator=validator).view
    assert signed.watermarks == [] and signed.qr_url.endswith("&monto=1911.50")
