"""The ``signature`` check kind and the FEL-FIR-* rules (XMLDSig + XAdES signatures).

Signed fixtures are made at test time (fel_rules/testing/signing.py): a self-signed RSA test certificate built with
``cryptography`` and fixed signing times, so the tests do not depend on SAT's sample alone. The
SAT-certified sample (../shared) is used when present: as stored it was re-indented after
certification (its digests no longer match), and restored to its signed form it verifies.
"""

from __future__ import annotations

import base64
import hashlib
from decimal import Decimal

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.serialization import Encoding
from lxml import etree

from fel_rules.checks import CheckInput, get_check_kind
from fel_rules.checks.signature import SignatureCheck
from fel_rules.checks.signature_params import SignatureParams
from fel_rules.core.namespaces import DS, DTE
from fel_rules.testing.signing import (
    C14N,
    ENVELOPED,
    EXC_C14N,
    SHA256,
    XADES,
    Signer,
    canonicalize,
    fill,
    make_certificate,
    sign,
    signature_element,
    utc,
)
from fel_rules.xmldsig import certificates as xmldsig_certificates
from fel_rules.xmldsig import verify as xmldsig_verify

from .conftest import EXAMPLES, FEL_REFERENCE, requires_shared

NS = {"ds": DS, "dte": DTE, "xades": XADES}
SAT_SAMPLE = FEL_REFERENCE / "samples" / "certified" / "fpeq-certified.xml"
FIR = ("FEL-FIR-01", "FEL-FIR-02", "FEL-FIR-03", "FEL-FIR-04")


@pytest.fixture(scope="session")
def key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="session")
def signer(key) -> Signer:
    """Valid during 2026 only: expired 'today' once 2026 is over, valid at the fixed signing time."""
    return Signer(key, make_certificate(key, utc("2026-01-01T00:00:00"), utc("2026-12-31T23:59:59")))


def without_signatures(document: bytes) -> bytes:
    """``document`` with the root's ds:Signature elements removed (signed content untouched)."""
    root = etree.fromstring(document)
    for signature in root.findall(f"{{{DS}}}Signature"):
        root.remove(signature)
    return etree.tostring(root.getroottree(), xml_declaration=True, encoding="UTF-8")


def edit(document: bytes, xpath: str, value: str | None = None, *, attribute: str | None = None) -> bytes:
    """Set an element's text (or an attribute) at ``xpath`` — a change after signing."""
    root = etree.fromstring(document)
    found = root.xpath(xpath, namespaces={**NS, "dte": etree.QName(root).namespace})
    assert found, xpath
    for node in found:
        if attribute:
            node.set(attribute, value)
        else:
            node.text = value
    return etree.tostring(root.getroottree(), xml_declaration=True, encoding="UTF-8")


# --------------------------------------------------------------------------------------------
# fixtures and helpers


CERTIFIED = without_signatures((EXAMPLES / "factura-certificada.xml").read_bytes())
ANNULMENT = (EXAMPLES / "anulacion.xml").read_bytes()


@pytest.fixture(scope="session")
def signed(signer) -> bytes:
    """The certified example signed by its issuer (#DatosEmision) and its certifier (#DatosCertificados)."""
    return sign(CERTIFIED, signer, "#DatosEmision", "#DatosCertificados")


@pytest.fixture(scope="session")
def signed_annulment(signer) -> bytes:
    return sign(ANNULMENT, signer, "#DatosAnulacion", "#DatosCertificados")


def fir(report) -> list:
    return [issue for issue in report.issues if issue.rule_id in FIR]


def fired(report) -> set[str]:
    return {issue.rule_id for issue in fir(report)}


def assert_no_crash(report) -> None:
    assert not [i for i in report.issues if i.stage == "engine"], [i.message for i in report.issues]


def restored_sat_sample() -> bytes:
    """SAT's sample with the indentation that was added inside dte:DTE after certification removed."""
    root = etree.fromstring(SAT_SAMPLE.read_bytes())
    dte = root.find("dte:SAT/dte:DTE", NS)
    for node in dte.iter():
        if node.text is not None and not node.text.strip() and len(node):
            node.text = None
        if node is not dte and node.tail is not None and not node.tail.strip():
            node.tail = None
    return etree.tostring(root.getroottree(), xml_declaration=True, encoding="UTF-8")


# --------------------------------------------------------------------------------------------
# the check kind


def test_fir_kind_is_registered_with_its_params():
    assert get_check_kind("signature") is SignatureCheck
    with pytest.raises(ValueError):
        SignatureParams(reference="DatosEmision")  # a same-document reference: '#id'
    with pytest.raises(ValueError):
        SignatureParams(reference="#DatosEmision", other=1)


def test_fir_rules_are_loaded_for_each_role(validator):
    rules = {rule.id: rule for rule in validator.catalog.rules if rule.id in FIR}
    assert {rid: (r.document, r.spec.params["reference"], r.spec.refs.sat_code_text) for rid, r in rules.items()} == {
        "FEL-FIR-01": ("documento", "#DatosEmision", "FEL_RCP361"),
        "FEL-FIR-02": ("documento", "#DatosCertificados", "FEL_RCP364"),
        "FEL-FIR-03": ("anulacion", "#DatosAnulacion", "FEL_ANU370"),
        "FEL-FIR-04": ("anulacion", "#DatosCertificados", "FEL_ANU373"),
    }
    for rule in rules.values():  # the fixed note: what is not checked
        assert "cadena de certificados de SAT" in rule.spec.hint and "NIT" in rule.spec.hint
        assert "SAT's certificate chain" in rule.spec.hint_en and "NIT" in rule.spec.hint_en


# --------------------------------------------------------------------------------------------
# SAT's certified sample


@requires_shared
def test_fir_sat_sample_restored_to_its_signed_form_verifies(validator):
    """Both real signatures (issuer, SAT as certifier) verify; their certificates expired in 2021/2022
    but were valid at xades:SigningTime (2021-01-31)."""
    report = validator.validate_bytes(restored_sat_sample())
    assert fir(report) == []
    assert report.valid


@requires_shared
def test_fir_sat_sample_as_stored_was_reindented_after_signing(validator):
    """The stored copy was pretty-printed after certification: its signed data is intact, so it is valid with one
    warning that says so in plain words; it prints without --force."""
    report = validator.validate_path(SAT_SAMPLE)
    assert fir(report) == [] and report.valid
    (warning,) = [i for i in report.issues if i.rule_id == "FEL-FIR-06"]
    assert warning.severity.value == "warning" and warning.refs.sat_code == "FEL_RCP361, FEL_RCP364"
    assert warning.message.startswith("El archivo se reformateó después de firmarlo, pero los datos firmados están "
                                      "intactos.")
    assert "#DatosEmision, #DatosCertificados" in warning.hint and "--profile estricto" in warning.hint
    assert warning.location.xpath == "/dte:GTDocumento/ds:Signature[1]/ds:SignedInfo/ds:Reference[1]/ds:DigestValue"
    assert warning.location.line == 52
    assert [i.rule_id for i in report.issues if i.severity.value == "info"] == ["FEL-FIR-08"]


@requires_shared
def test_fir_sat_sample_as_stored_is_an_error_under_the_strict_profile():
    from fel_rules import Config, Validator

    report = Validator(Config(profile="estricto")).validate_path(SAT_SAMPLE)
    assert not report.valid
    assert [(i.rule_id, i.severity.value) for i in report.issues if i.severity.value == "error"] == [
        ("FEL-FIR-06", "error")]


# --------------------------------------------------------------------------------------------
# repo-made signatures


def test_fir_signed_document_verifies_with_no_finding(validator, signed):
    report = validator.validate_bytes(signed)
    assert_no_crash(report)
    assert fir(report) == []
    assert not [i for i in report.issues if i.rule_id == "FEL-XSD-02"]  # it is signed


def test_fir_certificate_expired_today_is_judged_at_signing_time(validator, key):
    old = Signer(key, make_certificate(key, utc("2019-01-01T00:00:00"), utc("2020-01-01T00:00:00")))
    document = sign(CERTIFIED, old, "#DatosEmision", signing_time="2019-06-30T12:00:00-06:00")
    assert fir(validator.validate_bytes(document)) == []


def test_fir_unsigned_document_yields_nothing_and_keeps_the_schema_information(validator):
    report = validator.validate_bytes((EXAMPLES / "factura-fact.xml").read_bytes())
    assert fir(report) == []
    found = [(i.rule_id, i.severity.value) for i in report.issues if i.rule_id == "FEL-XSD-02"]
    assert found == [("FEL-XSD-02", "info")]


def test_fir_unsigned_document_costs_nothing(validator):
    doc = CheckInput(root=etree.fromstring(CERTIFIED), facts=None, config=validator.config,  # type: ignore[arg-type]
                     evaluator=None, source=CERTIFIED)  # type: ignore[arg-type]
    check = SignatureCheck(SignatureParams(reference="#DatosEmision"), None)  # type: ignore[arg-type]
    assert list(check.check(doc)) == []
    assert doc.memo == {}  # not even re-parsed


def test_fir_altered_emission_data_breaks_both_signatures(validator, signed):
    """The certifier's #DatosCertificados (dte:DTE) contains the issuer's #DatosEmision."""
    report = validator.validate_bytes(edit(signed, "//dte:Receptor", "OTRO CLIENTE", attribute="NombreReceptor"))
    assert {(i.rule_id, i.location.field) for i in fir(report)} == {("FEL-FIR-01", "DigestValue"),
                                                                   ("FEL-FIR-02", "DigestValue")}
    issuer = next(i for i in fir(report) if i.rule_id == "FEL-FIR-01")
    assert issuer.location.xpath.startswith("/dte:GTDocumento/ds:Signature[1]/")
    assert issuer.message == ("La firma del emisor no es válida: cambiaron los datos de emisión (montos, NIT, "
                              "nombres o líneas). Pida al emisor el XML original, tal como lo devolvió el "
                              "certificador.")
    assert "'#DatosEmision' no coincide" in issuer.hint and "sangría" not in issuer.hint
    assert not report.valid


def test_fir_altered_certification_data_breaks_only_the_certifier_signature(validator, signed):
    report = validator.validate_bytes(edit(signed, "//dte:Certificacion/dte:NombreCertificador", "OTRO"))
    assert [(i.rule_id, i.location.field) for i in fir(report)] == [("FEL-FIR-02", "DigestValue")]
    assert fir(report)[0].location.xpath.startswith("/dte:GTDocumento/ds:Signature[2]/")


SIGNED_EXAMPLE = (EXAMPLES / "factura-certificada.xml").read_bytes()  # signed by the project, as users get it


def _reindented(document: bytes, space: str = "    ") -> bytes:
    """``document`` with its signed data re-indented by an editor (the signatures left as they are)."""
    root = etree.fromstring(document)
    etree.indent(root.find("dte:SAT", NS), space=space, level=1)
    return etree.tostring(root.getroottree(), xml_declaration=True, encoding="UTF-8")


def _errors(report) -> list[tuple[str, str]]:
    return [(i.rule_id, i.message) for i in report.issues if i.severity.value == "error"]


@pytest.mark.parametrize("space", ["    ", "\t", ""])
def test_cause_reindented_example_is_valid_with_one_warning(validator, space):
    """The signed example re-indented (4 spaces, tabs, or compacted): valid, one FEL-FIR-06 warning."""
    report = validator.validate_bytes(_reindented(SIGNED_EXAMPLE, space))
    assert report.valid and _errors(report) == []
    assert [(i.rule_id, i.severity.value) for i in report.issues if i.rule_id.startswith("FEL-FIR")] == [
        ("FEL-FIR-08", "info"), ("FEL-FIR-06", "warning")]


def test_cause_question_marks_name_a_character_set_conversion(validator):
    """Accented letters turned into "?" on the way (a wrong character-set conversion)."""
    damaged = SIGNED_EXAMPLE.replace("FERRETERÍA".encode(), b"FERRETER?A")
    report = validator.validate_bytes(damaged)
    assert _errors(report) == [
        ("FEL-FIR-01", "La firma del emisor no es válida: una conversión de caracteres cambió letras con tilde por "
                       "«?». Pida al emisor el XML original, tal como lo devolvió el certificador."),
        ("FEL-FIR-02", "La firma del certificador no es válida: una conversión de caracteres cambió letras con tilde "
                       "por «?». Pida al emisor el XML original, tal como lo devolvió el certificador."),
    ]


def test_cause_changed_amount_names_the_emission_data(validator):
    """A total changed after signing: the issuer's digest of #DatosEmision fails, and the certifier's with it."""
    root = etree.fromstring(SIGNED_EXAMPLE)
    total = root.find(".//dte:Totales/dte:GranTotal", NS)
    total.text = str(Decimal(total.text) + Decimal("100"))
    report = validator.validate_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
    messages = dict(_errors(report))
    assert messages["FEL-FIR-01"] == ("La firma del emisor no es válida: cambiaron los datos de emisión (montos, NIT, "
                                      "nombres o líneas). Pida al emisor el XML original, tal como lo devolvió el "
                                      "certificador.")
    assert messages["FEL-FIR-02"].startswith("La firma del certificador no es válida: cambiaron los datos de emisión")
    assert not report.valid


def test_cause_changed_certification_names_the_certification_data(validator):
    """Only dte:Certificacion changed: the issuer's signature holds, so the change is located there."""
    report = validator.validate_bytes(SIGNED_EXAMPLE.replace(b"<dte:NombreCertificador>", b"<dte:NombreCertificador>X"))
    assert _errors(report) == [
        ("FEL-FIR-02", "La firma del certificador no es válida: se modificaron los datos de certificación "
                       "(autorización, fecha). Pida al emisor el XML original, tal como lo devolvió el certificador."),
    ]


def test_cause_removed_signature_is_named(validator):
    root = etree.fromstring(SIGNED_EXAMPLE)
    root.remove(root.find("ds:Signature", NS))  # the issuer's
    report = validator.validate_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
    (rule_id, message), = _errors(report)
    assert rule_id == "FEL-FIR-05"
    assert message == ("Falta la firma del emisor: el documento está certificado, pero se la quitaron. Pida al emisor "
                       "el XML original, tal como lo devolvió el certificador.")


def test_reindented_and_altered_stays_an_error(validator):
    root = etree.fromstring(_reindented(SIGNED_EXAMPLE))
    root.find(".//dte:Receptor", NS).set("NombreReceptor", "OTRO CLIENTE")
    report = validator.validate_bytes(etree.tostring(root))
    assert {rule for rule, _ in _errors(report)} == {"FEL-FIR-01", "FEL-FIR-02"}
    assert not [i for i in report.issues if i.rule_id in ("FEL-FIR-06", "FEL-FIR-08")]


def test_reindented_signed_info_too_is_still_only_reformatted(validator, signer):
    """A certifier's layout (no whitespace in the data, a line break between the elements of each signature),
    then everything compacted: digests and signature values verify once laid out again."""
    compact = etree.tostring(etree.fromstring(CERTIFIED, etree.XMLParser(remove_blank_text=True)))
    signed = sign(compact, signer, "#DatosEmision", "#DatosCertificados")
    squeezed = etree.tostring(etree.fromstring(signed, etree.XMLParser(remove_blank_text=True)))
    report = validator.validate_bytes(squeezed)
    assert report.valid and {i.rule_id for i in report.issues if i.rule_id.startswith("FEL-FIR")} == {
        "FEL-FIR-08", "FEL-FIR-06"}


def test_every_signature_message_leads_with_a_short_sentence(validator, validator_en):
    """The first sentence of every FEL-FIR message, for every problem code and cause, is ≤ 120 characters."""
    from fel_rules.checks.signature import _DAMAGED, _PLAIN
    from fel_rules.core.catalogue import render_values
    from fel_rules.core.templates import render_template
    from fel_rules.core.text import Text

    causes = {cause for cause, _ in _PLAIN.values()} | {_DAMAGED[0], "emission_changed", "certification_changed",
                                                        "annulment_changed", "properties_changed", "charset"}
    actions = {action for _, action in _PLAIN.values()} | {_DAMAGED[1]}
    for each in (validator, validator_en):
        lang = each.config.lang
        for rule in each.catalog.rules:
            if not rule.id.startswith("FEL-FIR"):
                continue
            template = rule.spec.message_en if lang == "en" and rule.spec.message_en else rule.spec.message
            for cause in causes:
                for action in actions:
                    values = render_values({"causa": Text(f"signature.cause.{cause}"),
                                            "accion": Text(f"signature.action.{action}"),
                                            "autorizacion": "5D8A3F21-9C4B-4E7A-B2D6-0F1E8C7A4B93"}, lang)
                    first = render_template(template, values).split(". ")[0]
                    assert len(first) <= 120, (rule.id, lang, first)


def test_fir_altered_signature_value(validator, signed):
    root = etree.fromstring(signed)
    value = root.find("ds:Signature/ds:SignatureValue", NS)
    raw = bytearray(base64.b64decode(value.text))
    raw[10] ^= 1
    value.text = base64.b64encode(bytes(raw)).decode()
    report = validator.validate_bytes(etree.tostring(root))
    assert [(i.rule_id, i.location.field) for i in fir(report)] == [("FEL-FIR-01", "SignatureValue")]
    assert "el valor de la firma no corresponde al certificado incluido" in fir(report)[0].message
    assert "no corresponde a ds:SignedInfo" in fir(report)[0].hint


def test_fir_altered_signed_info_breaks_the_signature_value(validator, signed):
    edited = edit(signed, "(//ds:Reference)[1]", "urn:other", attribute="Id")
    assert [(i.rule_id, i.location.field) for i in fir(validator.validate_bytes(edited))] == [
        ("FEL-FIR-01", "SignatureValue")]


@pytest.mark.parametrize(("signing_time", "problem"), [
    ("2025-12-31T17:59:59-06:00", "anterior al inicio de la vigencia"),   # 2025-12-31T23:59:59Z: not yet valid
    ("2027-01-01T00:00:00Z", "posterior al vencimiento"),
])
def test_fir_signing_time_outside_the_certificate_validity(validator, signer, signing_time, problem):
    report = validator.validate_bytes(sign(CERTIFIED, signer, "#DatosEmision", signing_time=signing_time))
    issues = fir(report)
    assert [(i.rule_id, i.location.field) for i in issues] == [("FEL-FIR-01", "SigningTime")]
    assert "se firmó cuando el certificado no estaba vigente" in issues[0].message
    assert problem in issues[0].hint
    assert issues[0].expected == "2026-01-01T00:00:00Z – 2026-12-31T23:59:59Z"
    assert issues[0].actual == signing_time


def test_fir_signing_time_without_zone_is_guatemala_time(validator, signer):
    # 2025-12-31T19:00:00 in Guatemala is 2026-01-01T01:00:00Z: inside the validity
    document = sign(CERTIFIED, signer, "#DatosEmision", signing_time="2025-12-31T19:00:00")
    assert fir(validator.validate_bytes(document)) == []


@pytest.mark.parametrize(("xpath", "attribute", "field"), [
    ("//ds:SignatureMethod", "Algorithm", "SignatureMethod"),
    ("//ds:CanonicalizationMethod", "Algorithm", "CanonicalizationMethod"),
    ("(//ds:Reference)[1]/ds:DigestMethod", "Algorithm", "DigestMethod"),
    ("(//ds:Transform)[1]", "Algorithm", "Transform"),
])
def test_fir_unknown_algorithm_is_a_finding(validator, signer, xpath, attribute, field):
    document = sign(CERTIFIED, signer, "#DatosEmision")
    report = validator.validate_bytes(edit(document, xpath, "http://example.com/rot13", attribute=attribute))
    assert_no_crash(report)
    issues = fir(report)
    assert (("FEL-FIR-01", field) in {(i.rule_id, i.location.field) for i in issues})
    unsupported = next(i for i in issues if i.location.field == field)
    assert "la firma usa un algoritmo que fel-rules no verifica" in unsupported.message
    assert "no soportado: 'http://example.com/rot13'" in unsupported.hint


@pytest.mark.parametrize(("xpath", "field"), [
    ("//ds:SignatureValue", "SignatureValue"),
    ("(//ds:Reference)[1]/ds:DigestValue", "DigestValue"),
    ("//ds:X509Certificate", "X509Certificate"),
])
@pytest.mark.parametrize("garbage", ["¡esto no es base64!", "QUJD=QUJD", "", "AAAA"])
def test_fir_garbage_base64_is_a_finding_not_a_crash(validator, signer, xpath, field, garbage):
    document = sign(CERTIFIED, signer, "#DatosEmision")
    report = validator.validate_bytes(edit(document, xpath, garbage))
    assert_no_crash(report)
    assert ("FEL-FIR-01", field) in {(i.rule_id, i.location.field) for i in fir(report)}


def test_fir_malformed_signatures_are_findings(validator, signer):
    document = sign(CERTIFIED, signer, "#DatosEmision")
    root = etree.fromstring(document)
    signature = root.find("ds:Signature", NS)
    signature.remove(signature.find("ds:SignatureValue", NS))
    report = validator.validate_bytes(etree.tostring(root))
    assert_no_crash(report)
    assert [(i.rule_id, i.location.field) for i in fir(report)] == [("FEL-FIR-01", "SignatureValue")]

    bare = etree.fromstring(CERTIFIED)
    etree.SubElement(etree.SubElement(etree.SubElement(bare, f"{{{DS}}}Signature"), f"{{{DS}}}SignedInfo"),
                     f"{{{DS}}}Reference", URI="#DatosEmision")
    report = validator.validate_bytes(etree.tostring(bare))
    assert_no_crash(report)
    assert {i.location.field for i in fir(report)} == {
        "DigestMethod", "X509Certificate", "CanonicalizationMethod", "SigningTime"}


def test_fir_certificate_not_named_by_xades_is_a_finding(validator, signer, key):
    other = make_certificate(key, utc("2026-01-01T00:00:00"), utc("2026-12-31T23:59:59"), name="OTRO")
    document = edit(sign(CERTIFIED, signer, "#DatosEmision"), "//ds:X509Certificate",
                    base64.b64encode(other.public_bytes(Encoding.DER)).decode())
    # same key, so the value still verifies: only XAdES ties the signature to the certificate
    assert [(i.rule_id, i.location.field) for i in fir(validator.validate_bytes(document))] == [
        ("FEL-FIR-01", "SigningCertificate")]


def test_fir_non_rsa_certificate_is_a_finding(validator, signer):
    ec_key = ec.generate_private_key(ec.SECP256R1())
    ec_cert = make_certificate(ec_key, utc("2026-01-01T00:00:00"), utc("2026-12-31T23:59:59"))
    document = edit(sign(CERTIFIED, signer, "#DatosEmision"), "//ds:X509Certificate",
                    base64.b64encode(ec_cert.public_bytes(Encoding.DER)).decode())
    hints = [i.hint for i in fir(validator.validate_bytes(document)) if i.location.field == "SignatureValue"]
    assert hints and "no RSA" in hints[0]


def test_fir_without_xades_the_validity_cannot_be_judged(validator, signer):
    root = etree.fromstring(sign(CERTIFIED, signer, "#DatosEmision"))
    signature = root.find("ds:Signature", NS)
    signed_info = signature.find("ds:SignedInfo", NS)
    signed_info.remove(signed_info.findall("ds:Reference", NS)[1])
    signature.remove(signature.find("ds:Object", NS))
    fill(root, signature, signer)
    issues = fir(validator.validate_bytes(etree.tostring(root)))
    assert [(i.rule_id, i.location.field) for i in issues] == [("FEL-FIR-01", "SigningTime")]
    assert "la firma está incompleta o dañada" in issues[0].message
    assert "no lleva propiedades XAdES" in issues[0].hint


def test_fir_unsigned_signed_properties_are_a_finding(validator, signer):
    root = etree.fromstring(sign(CERTIFIED, signer, "#DatosEmision"))
    signature = root.find("ds:Signature", NS)
    signed_info = signature.find("ds:SignedInfo", NS)
    signed_info.remove(signed_info.findall("ds:Reference", NS)[1])
    fill(root, signature, signer)
    assert [i.location.field for i in fir(validator.validate_bytes(etree.tostring(root)))] == ["SignedProperties"]


def test_fir_exclusive_c14n_is_supported(validator, signer):
    document = sign(CERTIFIED, signer, "#DatosEmision", "#DatosCertificados",
                    c14n=EXC_C14N, reference_c14n=EXC_C14N)
    assert fir(validator.validate_bytes(document)) == []


def test_fir_verified_against_the_bytes_as_received(validator, signed):
    """Comments are outside a '#id' reference; PIs are inside it; dte:Adenda is outside the signed data."""
    text = signed.decode()
    commented = text.replace("<dte:Receptor ", "<!-- nota --><dte:Receptor ", 1)
    assert fir(validator.validate_bytes(commented.encode())) == []
    with_pi = text.replace("<dte:Receptor ", "<?nota algo?><dte:Receptor ", 1)
    report = validator.validate_bytes(with_pi.encode())
    assert {(i.rule_id, i.location.field) for i in fir(report)} == {("FEL-FIR-01", "DigestValue"),
                                                                   ("FEL-FIR-02", "DigestValue")}
    with_adenda = text.replace("</dte:DTE>", "</dte:DTE><dte:Adenda><Extra>libre</Extra></dte:Adenda>", 1)
    assert with_adenda != text
    assert fir(validator.validate_bytes(with_adenda.encode())) == []


def test_fir_duplicate_id_is_refused_as_ambiguous(validator, signed):
    """Signature wrapping: a second element with the signed ID (here in dte:Adenda) is not followed."""
    root = etree.fromstring(signed)
    original = root.find("dte:SAT/dte:DTE/dte:DatosEmision", NS)
    adenda = etree.SubElement(root.find("dte:SAT", NS), f"{{{DTE}}}Adenda")
    adenda.append(etree.fromstring(etree.tostring(original)))
    report = validator.validate_bytes(etree.tostring(root))
    assert ("FEL-FIR-01", "Reference") in {(i.rule_id, i.location.field) for i in fir(report)}
    assert any("ambigua" in i.hint for i in fir(report))


def test_fir_reference_to_adenda_content_is_refused(validator, signed):
    root = etree.fromstring(signed)
    original = root.find("dte:SAT/dte:DTE/dte:DatosEmision", NS)
    adenda = etree.SubElement(root.find("dte:SAT", NS), f"{{{DTE}}}Adenda")
    adenda.append(etree.fromstring(etree.tostring(original)))
    original.set("ID", "Otro")  # what the rules read is no longer what was signed
    report = validator.validate_bytes(etree.tostring(root))
    assert any(i.location.field == "Reference" and "dte:Adenda" in i.hint for i in fir(report))


def test_fir_whole_document_reference_with_enveloped_signature(validator, signer):
    """URI="" covers the whole document minus the signature itself (the enveloped-signature transform)."""
    root = etree.fromstring(CERTIFIED)
    unsigned_c14n = etree.tostring(root.getroottree(), method="c14n", with_comments=False)
    signature = signature_element(signer, "#DatosEmision", "xmldsig-doc")
    root.append(signature)
    fill(root, signature, signer)
    whole = etree.SubElement(signature.find("ds:SignedInfo", NS), f"{{{DS}}}Reference", URI="")
    transforms = etree.SubElement(whole, f"{{{DS}}}Transforms")
    etree.SubElement(transforms, f"{{{DS}}}Transform", Algorithm=ENVELOPED)
    etree.SubElement(whole, f"{{{DS}}}DigestMethod", Algorithm=SHA256)
    digest = hashlib.sha256(unsigned_c14n).digest()
    etree.SubElement(whole, f"{{{DS}}}DigestValue").text = base64.b64encode(digest).decode()
    signed_info = canonicalize(signature.find("ds:SignedInfo", NS), C14N)
    value = signer.key.sign(signed_info, padding.PKCS1v15(), hashes.SHA256())
    signature.find("ds:SignatureValue", NS).text = base64.b64encode(value).decode()
    document = etree.tostring(root)
    assert fir(validator.validate_bytes(document)) == []
    altered = document.replace(b"</dte:GTDocumento>", b"<!-- x --></dte:GTDocumento>")  # comments are outside ""
    assert fir(validator.validate_bytes(altered)) == []
    altered = document.replace(b'Version="0.1"', b'Version="0.2"')
    assert [(i.rule_id, i.location.field) for i in fir(validator.validate_bytes(altered))] == [
        ("FEL-FIR-01", "DigestValue")]


def test_fir_work_is_bounded(validator, signed, monkeypatch):
    """A SignedInfo with hundreds of references is refused before any of them is digested."""
    digested = []
    canonical = xmldsig_verify.canonical_reference
    monkeypatch.setattr(xmldsig_verify, "canonical_reference",
                        lambda *args: digested.append(args) or canonical(*args))
    validator.validate_bytes(signed)
    normal = len(digested)  # both signatures, every reference
    root = etree.fromstring(signed)
    signed_info = root.find("ds:Signature/ds:SignedInfo", NS)
    reference = signed_info.find("ds:Reference", NS)
    for _ in range(500):
        signed_info.append(etree.fromstring(etree.tostring(reference)))
    digested.clear()
    report = validator.validate_bytes(etree.tostring(root))
    assert [(i.rule_id, i.location.field) for i in fir(report)] == [("FEL-FIR-01", "Reference")]
    assert len(digested) == normal - 2  # the certifier's two references only; none of the issuer's 502


def test_fir_annulment_signatures(validator, signed_annulment):
    report = validator.validate_bytes(signed_annulment)
    assert_no_crash(report)
    assert fir(report) == []
    altered = edit(signed_annulment, "//dte:DatosGenerales", "Otro motivo", attribute="MotivoAnulacion")
    report = validator.validate_bytes(altered)
    assert {(i.rule_id, i.refs.sat_code) for i in fir(report)} == {("FEL-FIR-03", "FEL_ANU370"),
                                                                  ("FEL-FIR-04", "FEL_ANU373")}


def test_fir_invoice_rules_do_not_judge_annulments(validator, signed_annulment):
    altered = edit(signed_annulment, "//dte:DatosGenerales", "Otro motivo", attribute="MotivoAnulacion")
    assert not fired(validator.validate_bytes(altered)) & {"FEL-FIR-01", "FEL-FIR-02"}


def test_fir_english_messages(validator_en, signed):
    report = validator_en.validate_bytes(edit(signed, "//dte:Certificacion/dte:NombreCertificador", "OTRO"))
    (issue,) = fir(report)
    assert issue.message == ("The certifier's signature is not valid: the certification data (authorization, date) "
                             "was changed. Ask the issuer for the original XML, as the certifier returned it.")
    assert issue.hint.startswith("Technical detail: the digest of reference '#DatosCertificados' does not match")
    assert "SAT's certificate chain" in issue.hint


def test_fir_reads_the_document_at_most_once_and_each_certificate_once(validator, signed, monkeypatch):
    """What keeps verification cheap: the FIR rules verify on the engine's tree when the received bytes have
    nothing the engine dropped (comments, processing instructions, dte:Adenda), else share one re-read of the
    bytes per document; and an issuer's certificate is parsed once, not once per document."""
    reads = []
    parsers = xmldsig_verify._SOURCE_PARSERS

    class Counting:
        def get(self):  # (asked for once per re-read)
            reads.append(1)
            return parsers.get()

    monkeypatch.setattr(xmldsig_verify, "_SOURCE_PARSERS", Counting())
    validator.validate_bytes(signed)
    assert reads == []
    parsed = xmldsig_certificates._read_cached.cache_info().misses
    assert fir(validator.validate_bytes(signed)) == []
    assert reads == [] and xmldsig_certificates._read_cached.cache_info().misses == parsed
    for dropped in (b"<!-- nota -->", b"<?nota de impresion?>", b"<dte:Adenda><Pedido>7</Pedido></dte:Adenda>"):
        changed = signed.replace(b"</dte:SAT>", dropped + b"</dte:SAT>", 1)
        assert changed != signed
        assert fir(validator.validate_bytes(changed)) == [], dropped
    assert len(reads) == 3


def test_a_certificate_is_digested_from_the_bytes_its_signature_embeds(signed):
    """A certificate's digests are of its DER as the signature embeds it, the encoding cryptography itself gives
    back: for the project's signed example, a builder-signed document and SAT's certified sample when present."""
    documents = [SIGNED_EXAMPLE, signed]
    if SAT_SAMPLE.exists():
        documents.append(SAT_SAMPLE.read_bytes())
    read = 0
    for document in documents:
        for element in etree.fromstring(document).iterfind("ds:Signature//ds:X509Certificate", NS):
            certificate = xmldsig_certificates.read_certificate(element.text)
            assert certificate.der == base64.b64decode("".join(element.text.split()))
            assert certificate.der == certificate.x509.public_bytes(Encoding.DER)
            assert certificate.digest("sha256") == hashlib.sha256(certificate.der).digest()
            read += 1
    assert read >= 4


def test_fir_a_certificate_read_before_does_not_make_a_failing_signature_pass(validator, signed):
    """Certificates are kept between documents, verdicts are not: after the same certificates verified a
    document, a document carrying them with an altered signature value, altered signed content or an altered
    signing certificate digest still fails, in any order, and the intact one still passes afterwards."""
    root = etree.fromstring(signed)
    value = root.find("ds:Signature/ds:SignatureValue", NS)
    raw = bytearray(base64.b64decode(value.text))
    raw[-1] ^= 1
    value.text = base64.b64encode(bytes(raw)).decode()
    altered_value = etree.tostring(root)
    altered_content = edit(signed, "//dte:Receptor", "OTRO CLIENTE", attribute="NombreReceptor")
    texts = {element.text for element in etree.fromstring(signed).iterfind("ds:Signature//ds:X509Certificate", NS)}
    for document in (altered_value, altered_content):
        assert {element.text for element in etree.fromstring(document).iterfind(
            "ds:Signature//ds:X509Certificate", NS)} == texts  # the very same certificates
    expected = {altered_value: [("FEL-FIR-01", "SignatureValue")],
                altered_content: [("FEL-FIR-01", "DigestValue"), ("FEL-FIR-02", "DigestValue")]}
    for order in ((signed, altered_value, altered_content), (altered_content, altered_value, signed)):
        for document in order:
            found = sorted((i.rule_id, i.location.field) for i in fir(validator.validate_bytes(document)))
            assert found == expected.get(document, []), found
    misses = xmldsig_certificates._read_cached.cache_info().misses
    assert fir(validator.validate_bytes(altered_value)) and fir(validator.validate_bytes(signed)) == []
    assert xmldsig_certificates._read_cached.cache_info().misses == misses  # the certificates came from the cache
