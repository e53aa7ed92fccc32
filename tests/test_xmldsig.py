"""fel_rules.xmldsig on its own: the codes and values verification returns, without a rule or a report."""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from fel_rules.core.namespaces import DS
from fel_rules.testing.signing import TEST_SIGNER, XADES, sign
from fel_rules.xmldsig import (
    MAX_SIGNATURES,
    PROBLEM_VALUES,
    Problem,
    ProblemCode,
    SignedDocument,
    role_uris,
    verify_signature,
)
from fel_rules.xmldsig.canonical import decode_base64
from fel_rules.xmldsig.xades import parse_signing_time

from .conftest import EXAMPLES

NS = {"ds": DS, "xades": XADES}
UNSIGNED = (EXAMPLES / "factura-certificada.xml").read_bytes()


def _unsigned() -> bytes:
    root = etree.fromstring(UNSIGNED)
    for signature in root.findall("ds:Signature", NS):
        root.remove(signature)
    return etree.tostring(root)


SIGNED = sign(_unsigned(), TEST_SIGNER, "#DatosEmision", "#DatosCertificados")


def problems(document: bytes, role: str = "#DatosEmision") -> list[Problem]:
    found = list(SignedDocument.read(document, etree.fromstring(document)).verify_role(role))
    for problem in found:  # every problem carries exactly the values its code declares
        assert set(problem.values) == set(PROBLEM_VALUES[problem.code]), problem
    return found


def changed(document: bytes, xpath: str, **attributes: str) -> bytes:
    root = etree.fromstring(document)
    for node in root.xpath(xpath, namespaces={**NS, "dte": etree.QName(root).namespace}):
        for name, value in attributes.items():
            node.set(name, value)
    return etree.tostring(root)


def test_every_code_declares_its_values():
    assert set(PROBLEM_VALUES) == set(ProblemCode)


def test_a_signed_document_has_no_problem_in_either_role():
    assert problems(SIGNED) == [] and problems(SIGNED, "#DatosCertificados") == []


def test_roles_are_the_references_other_than_the_xades_properties():
    document = SignedDocument.read(SIGNED, etree.fromstring(SIGNED))
    assert [role_uris(signature) for signature in document.signatures] == [{"#DatosEmision"}, {"#DatosCertificados"}]


def test_a_changed_document_is_a_digest_mismatch_with_both_digests():
    found = problems(changed(SIGNED, "//dte:Receptor", NombreReceptor="OTRO"))
    assert [(p.code, p.field, dict(p.values)) for p in found] == [
        (ProblemCode.DIGEST_MISMATCH, "DigestValue", {"uri": "#DatosEmision"})]
    assert base64.b64decode(found[0].expected) != base64.b64decode(found[0].actual)


def test_a_reindented_document_is_said_to_be_reindented():
    compact = etree.tostring(etree.fromstring(_unsigned(), etree.XMLParser(remove_blank_text=True)))
    root = etree.fromstring(sign(compact, TEST_SIGNER, "#DatosEmision"))
    etree.indent(root.find("{*}SAT"), space="  ")
    codes = {p.code for p in problems(etree.tostring(root))}
    assert ProblemCode.DIGEST_MISMATCH_REINDENTED in codes


@pytest.mark.parametrize(("uri", "code"), [
    ("#Nadie", ProblemCode.REFERENCE_NOT_FOUND),
    ("http://example.com/x", ProblemCode.REFERENCE_URI_UNSUPPORTED),
])
def test_references_that_cannot_be_followed(uri, code):
    document = changed(SIGNED, "(//ds:Signature)[1]/ds:SignedInfo/ds:Reference[1]", URI=uri)
    found = problems(document, uri)
    assert (found[0].code, found[0].values["uri"]) == (code, uri)


def test_a_reference_without_uri_says_so_with_none():
    root = etree.fromstring(SIGNED)
    reference = root.find("ds:Signature/ds:SignedInfo/ds:Reference[2]", NS)
    del reference.attrib["URI"]
    signature = root.find("ds:Signature", NS)
    found = list(verify_signature(signature, SignedDocument.read(None, root), "#DatosEmision"))
    assert any(p.code == ProblemCode.REFERENCE_URI_UNSUPPORTED and p.values == {"uri": None} for p in found)


def test_an_unknown_algorithm_is_named():
    found = problems(changed(SIGNED, "(//ds:SignatureMethod)[1]", Algorithm="urn:rot13"))
    assert [(p.code, dict(p.values), p.actual) for p in found] == [
        (ProblemCode.UNSUPPORTED_SIGNATURE_METHOD, {"algorithm": "urn:rot13"}, "urn:rot13")]


def test_signing_outside_the_certificate_validity_gives_the_window():
    document = sign(_unsigned(), TEST_SIGNER, "#DatosEmision", signing_time="2027-01-01T00:00:00Z")
    [found] = problems(document)
    assert found.code == ProblemCode.SIGNED_AFTER_VALIDITY
    assert dict(found.values) == {"time": "2027-01-01T00:00:00Z", "not_before": "2026-01-01T00:00:00Z",
                                  "not_after": "2026-12-31T23:59:59Z"}
    assert found.expected == "2026-01-01T00:00:00Z – 2026-12-31T23:59:59Z"


def test_too_many_signatures_stop_the_work():
    root = etree.fromstring(SIGNED)
    issuer = root.find("ds:Signature", NS)
    for _ in range(MAX_SIGNATURES):
        root.append(etree.fromstring(etree.tostring(issuer)))
    found = problems(etree.tostring(root))
    assert found[-1].code == ProblemCode.TOO_MANY_SIGNATURES
    assert dict(found[-1].values) == {"limit": MAX_SIGNATURES, "role": "#DatosEmision"}


def test_bytes_that_do_not_parse_fall_back_to_the_given_tree():
    tree = etree.fromstring(SIGNED)
    assert SignedDocument.read(b"<roto", tree).root is tree


@pytest.mark.parametrize(("text", "expected"), [
    ("2026-03-05T22:20:00.000Z", datetime(2026, 3, 5, 22, 20, tzinfo=UTC)),
    ("2026-03-05T16:20:00-06:00", datetime(2026, 3, 5, 22, 20, tzinfo=UTC)),
    ("2026-03-05T16:20:00", datetime(2026, 3, 5, 22, 20, tzinfo=UTC)),  # no zone: Guatemala time
    ("2026-03-05T16:20:00.5+00:00", datetime(2026, 3, 5, 16, 20, 0, 500000, tzinfo=UTC)),
])
def test_signing_times(text, expected):
    assert parse_signing_time(text) == expected


@pytest.mark.parametrize("text", ["2026-03-05", "2026-13-05T00:00:00Z", "2026-03-05T00:00:00+15:00", "ayer"])
def test_signing_times_that_are_not(text):
    assert parse_signing_time(text) is None


@pytest.mark.parametrize(("text", "expected"), [
    ("QUJD", b"ABC"), (" QU\nJD ", b"ABC"), ("QUJD=QUJD", None), ("¡no!", None), ("", None), (None, None),
])
def test_base64_is_strict(text, expected):
    assert decode_base64(text) == expected


def test_guatemala_is_six_hours_behind():
    assert parse_signing_time("2026-01-01T00:00:00").utcoffset() == -timedelta(hours=6)


def test_child_steps_find_what_elementpath_finds():
    """The child lookup agrees with lxml's find: comments and processing instructions skipped, namespaces and local
    names exact."""
    from fel_rules.xmldsig.tree import child

    root = etree.fromstring(
        '<r xmlns="urn:a" xmlns:b="urn:b"><!-- c --><x><?p q?><y n="1"/><b:y n="2"/><y n="3"/></x>'
        '<b:x><y n="4"/></b:x><x><y n="5"/><z><y n="6"/></z></x><x/></r>')
    for tag in ("{urn:a}x", "{urn:b}x", "x", "{urn:a}y"):
        assert child(root, tag) == root.find(tag), tag
    assert child(root, "{urn:a}y") is None


def _compact_base64(text: str | None) -> bytes | None:
    """The definition: whitespace dropped, then strict base64; ``None`` when absent, empty or invalid."""
    if text is None:
        return None
    compact = "".join(text.split())
    if not compact:
        return None
    try:
        return binascii.a2b_base64(compact, strict_mode=True)
    except (binascii.Error, ValueError):
        return None


@settings(max_examples=500)
@given(st.one_of(st.none(), st.text(alphabet="QUJDREVGab+/=0 \n\t\r\x0b\x1c\xa0\u2003é!", max_size=24),
                 st.binary(max_size=18).map(lambda raw: base64.b64encode(raw).decode())))
def test_base64_decodes_as_its_compact_form(text):
    assert decode_base64(text) == _compact_base64(text)
