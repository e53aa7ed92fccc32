"""Agreement between the project's FEL schema set (xsd/) and SAT's official schemas.

The project validates FEL documents against its own schema set, written to accept
exactly what SAT's current schemas accept. These tests compare both sets on SAT's
reference samples and on mutated documents: the verdict (valid / invalid) and the
paths of the reported errors must be the same.

SAT's schemas and samples are reference data kept outside the repository, in
``<workspace>/shared/fel-reference`` (the patched, offline-loadable copy of SAT's
schemas is ``xsd/patched-offline/fel-bundle.xsd``). When that folder is absent the
comparison tests are skipped; the tests that only need this repository still run.
"""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
import xmlschema
from lxml import etree

REPO = Path(__file__).resolve().parents[1]
OUR_BUNDLE = REPO / "xsd" / "fel-bundle.xsd"
REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "fel-reference"
SAT_BUNDLE = REFERENCE / "xsd" / "patched-offline" / "fel-bundle.xsd"
SAMPLES = REFERENCE / "samples"

DTE = "http://www.sat.gob.gt/dte/fel/0.2.0"
ANU = "http://www.sat.gob.gt/dte/fel/0.1.0"
DS = "http://www.w3.org/2000/09/xmldsig#"
NS = {
    "dte": DTE,
    "anu": ANU,
    "ds": DS,
    "cfc": "http://www.sat.gob.gt/dte/fel/CompCambiaria/0.1.0",
    "cno": "http://www.sat.gob.gt/face2/ComplementoReferenciaNota/0.1.0",
    "cex": "http://www.sat.gob.gt/face2/ComplementoExportaciones/0.1.0",
}

needs_reference = pytest.mark.skipif(
    not SAT_BUNDLE.is_file(),
    reason=f"SAT reference data not found at {REFERENCE} (expected xsd/patched-offline/fel-bundle.xsd)",
)

# A structurally valid (not cryptographically valid) issuer signature, so that unsigned
# samples can serve as valid starting points for mutations.
DUMMY_SIGNATURE = f"""<ds:Signature xmlns:ds="{DS}"><ds:SignedInfo>
<ds:CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>
<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>
<ds:Reference URI="#DatosEmision"><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>
<ds:DigestValue>AAAA</ds:DigestValue></ds:Reference></ds:SignedInfo>
<ds:SignatureValue>AAAA</ds:SignatureValue></ds:Signature>"""


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def our_schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(OUR_BUNDLE))


@pytest.fixture(scope="module")
def sat_schema() -> xmlschema.XMLSchema:
    if not SAT_BUNDLE.is_file():
        pytest.skip(f"SAT reference data not found at {REFERENCE}")
    return xmlschema.XMLSchema(str(SAT_BUNDLE))


# --------------------------------------------------------------------------- helpers


def strip_adenda(root: etree._Element) -> None:
    for ns in (DTE, ANU):
        for adenda in root.findall(f"{{{ns}}}SAT/{{{ns}}}Adenda"):
            adenda.getparent().remove(adenda)


def error_paths(schema: xmlschema.XMLSchema, root: etree._Element) -> set[tuple[str, str]]:
    """(path, error class) of every error; a set, since SAT's schemas can report the same
    pattern failure once per derivation step."""
    return {(e.path, type(e).__name__) for e in schema.iter_errors(root)}


def assert_agree(sat_schema, our_schema, root, label: str) -> set[tuple[str, str]]:
    sat_errors = error_paths(sat_schema, root)
    our_errors = error_paths(our_schema, root)
    assert (not sat_errors) == (not our_errors), (
        f"{label}: verdict differs: SAT {'valid' if not sat_errors else sorted(sat_errors)} "
        f"vs ours {'valid' if not our_errors else sorted(our_errors)}"
    )
    assert sat_errors == our_errors, \
        f"{label}: error paths differ: SAT {sorted(sat_errors)} vs ours {sorted(our_errors)}"
    return sat_errors


def load(relative: str, sign: bool = False) -> etree._Element:
    root = etree.parse(str(SAMPLES / relative)).getroot()
    strip_adenda(root)
    if sign and root.find(f"{{{DS}}}Signature") is None:
        root.append(etree.fromstring(DUMMY_SIGNATURE))
    return root


def sample_files() -> list:
    if not SAMPLES.is_dir():
        skip = pytest.mark.skip(reason=f"SAT samples not found at {SAMPLES}")
        return [pytest.param(None, marks=skip, id="no-samples")]
    files = sorted(
        p for p in SAMPLES.rglob("*") if p.is_file() and p.suffix.lower() == ".xml"
    )
    return [pytest.param(p, id=str(p.relative_to(SAMPLES))) for p in files]


# --------------------------------------------------------------------------- own set only


def test_bundle_compiles_offline(monkeypatch):
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("schema loading tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    schema = xmlschema.XMLSchema(str(OUR_BUNDLE))
    assert schema.validity == "valid"


def test_roots_are_the_only_global_fel_elements(our_schema):
    fel_globals = {k for k in our_schema.maps.elements if "sat.gob.gt" in k}
    assert f"{{{DTE}}}GTDocumento" in fel_globals
    assert f"{{{ANU}}}GTAnulacionDocumento" in fel_globals
    # one global element per complement namespace, nothing else
    per_namespace = {}
    for name in fel_globals:
        per_namespace.setdefault(name[1:].split("}")[0], []).append(name)
    assert all(len(names) == 1 for names in per_namespace.values()), per_namespace
    assert len(per_namespace) == 20  # documento, anulación and 18 complements


def test_xmldsig_comes_from_xmlschema_bundled_copy(our_schema):
    locations = [s.url for s in our_schema.maps.namespaces[DS]]
    assert locations and all("xmlschema" in url and url.startswith("file:") for url in locations)


def test_adenda_is_not_declared(our_schema):
    doc = etree.fromstring(
        f'<dte:Adenda xmlns:dte="{DTE}"/>'
    )
    assert f"{{{DTE}}}Adenda" not in our_schema.maps.elements
    assert not our_schema.is_valid(doc)


# --------------------------------------------------------------------------- SAT samples


@needs_reference
@pytest.mark.parametrize("path", sample_files())
def test_sample_agreement(path, sat_schema, our_schema):
    try:
        root = etree.parse(str(path)).getroot()
    except etree.XMLSyntaxError as exc:
        pytest.skip(f"sample is not well-formed XML: {exc}")
    strip_adenda(root)
    errors = assert_agree(sat_schema, our_schema, root, path.name)
    if root.find(f"{{{DS}}}Signature") is None:
        # unsigned samples must at least report the missing issuer signature, at the root
        assert any(p.count("/") == 1 for p, _ in errors), errors


# --------------------------------------------------------------------------- mutations


def _x(root, path):
    found = root.xpath(path, namespaces=NS)
    assert found, f"mutation target not found: {path}"
    return found[0]


def _set(path, attr, value):
    return lambda root: _x(root, path).set(attr, value)


def _text(path, value):
    def apply(root):
        _x(root, path).text = value
    return apply


def _remove(path):
    def apply(root):
        node = _x(root, path)
        node.getparent().remove(node)
    return apply


def _swap_with_next(path):
    def apply(root):
        node = _x(root, path)
        node.addprevious(node.getnext())
    return apply


def _duplicate(path, times):
    def apply(root):
        node = _x(root, path)
        for _ in range(times):
            node.addnext(copy.deepcopy(node))
    return apply


def _rename_namespace(old, new):
    def apply(root):
        for el in root.iter():
            if isinstance(el.tag, str):
                el.tag = el.tag.replace(old, new)
    return apply


FACTURA = "megaprint-examples/FACTURA.xml"
CAMBIARIA = "megaprint-examples/FACTURA CAMBIARIA.xml"
EXPORT = "megaprint-examples/Factura Complemento Exportacion.xml"
NOTA = "megaprint-examples/NOTA DE CREDITO.xml"
ANULACION = "megaprint-examples/Anulacion.xml"
CERTIFIED = "certified/fpeq-certified.xml"
ITEM = "//dte:Item[1]"

# (id, sample, expected verdict under SAT's schemas, mutation)
MUTATIONS = [
    ("baseline-certified", CERTIFIED, True, lambda r: None),
    ("baseline-factura-signed", FACTURA, True, lambda r: None),
    ("tipo-withdrawn-FACA", FACTURA, False, _set("//dte:DatosGenerales", "Tipo", "FACA")),
    ("moneda-unknown", FACTURA, False, _set("//dte:DatosGenerales", "CodigoMoneda", "XYZ")),
    ("nit-leading-zero", FACTURA, False, _set("//dte:Emisor", "NITEmisor", "0123456789")),
    ("nit-lowercase-k", FACTURA, False, _set("//dte:Emisor", "NITEmisor", "1234567k")),
    ("nit-uppercase-K", FACTURA, True, _set("//dte:Emisor", "NITEmisor", "1234567K")),
    ("afiliacion-withdrawn-PEE", FACTURA, False, _set("//dte:Emisor", "AfiliacionIVA", "PEE")),
    ("correo-list", FACTURA, True, _set("//dte:Emisor", "CorreoEmisor", "ab@cd.com;ef@gh.com")),
    ("correo-comma-list", FACTURA, False, _set("//dte:Emisor", "CorreoEmisor", "ab@cd.com,ef@gh.com")),
    ("receptor-ext-id", FACTURA, True, _set("//dte:Receptor", "IDReceptor", "PAS-123/45")),
    ("pais-not-listed", FACTURA, False, _text("//dte:DireccionEmisor/dte:Pais", "XX")),
    ("pais-padded", FACTURA, True, _text("//dte:DireccionEmisor/dte:Pais", " GT ")),
    ("negative-amount", FACTURA, False, _text(ITEM + "/dte:Precio", "-1.00")),
    ("eleven-fraction-digits", FACTURA, False, _text(ITEM + "/dte:PrecioUnitario", "1.00000000001")),
    ("ten-fraction-digits", FACTURA, True, _text(ITEM + "/dte:PrecioUnitario", "1.0000000001")),
    ("item-order-swapped", FACTURA, False, _swap_with_next(ITEM + "/dte:Descripcion")),
    ("two-impuesto", FACTURA, True, _duplicate(ITEM + "/dte:Impuestos/dte:Impuesto", 1)),
    ("three-impuesto", FACTURA, False, _duplicate(ITEM + "/dte:Impuestos/dte:Impuesto", 2)),
    ("unknown-element", FACTURA, False, lambda r: _x(r, ITEM + "/dte:Total").addnext(etree.Element(f"{{{DTE}}}Foo"))),
    ("missing-required-attribute", FACTURA, False, lambda r: _x(r, ITEM).attrib.pop("BienOServicio")),
    ("cert-uuid-lowercase", CERTIFIED, False,
     lambda r: setattr(_x(r, "//dte:NumeroAutorizacion"), "text", _x(r, "//dte:NumeroAutorizacion").text.lower())),
    ("cert-time-utc-offset", CERTIFIED, False, _text("//dte:FechaHoraCertificacion", "2021-01-30T18:55:42+00:00")),
    ("cert-time-no-zone", CERTIFIED, True, _text("//dte:FechaHoraCertificacion", "2021-01-30T18:55:42")),
    ("cambiaria-wrong-namespace", CAMBIARIA, False, _rename_namespace("CompCambiaria/0.1.0", "CompCambiaria/0.2.0")),
    ("cambiaria-negative-abono", CAMBIARIA, False, _text("//cfc:MontoAbono", "-1")),
    ("export-incoterm-padded", EXPORT, False, _text("//cex:INCOTERM", " CFR ")),
    ("nota-complete-reference", NOTA, True,
     lambda r: (_set("//cno:ReferenciasNota", "SerieDocumentoOrigen", "40A3AC05")(r),
                _set("//cno:ReferenciasNota", "NumeroDocumentoOrigen", "1094927464")(r))),
    ("nota-without-serie-origen", NOTA, False, lambda r: None),
    ("anulacion-signed", ANULACION, True, lambda r: None),
    ("anulacion-motivo-too-long", ANULACION, False, _set("//anu:DatosGenerales", "MotivoAnulacion", "m" * 256)),
    ("anulacion-wrong-namespace", ANULACION, False, _rename_namespace("/fel/0.1.0}", "/fel/0.2.0}")),
]


@needs_reference
@pytest.mark.parametrize(
    "sample, expected_valid, mutate",
    [pytest.param(s, v, m, id=i) for i, s, v, m in MUTATIONS],
)
def test_mutation_agreement(sample, expected_valid, mutate, sat_schema, our_schema):
    root = load(sample, sign=True)
    mutate(root)
    errors = assert_agree(sat_schema, our_schema, root, sample)
    assert (not errors) == expected_valid, sorted(errors)
