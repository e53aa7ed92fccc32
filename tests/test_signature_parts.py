"""What one walk reads of a ``ds:Signature`` (:class:`SignatureParts`, :func:`read_signed_properties`) must be what
lxml's ``find``/``findall`` find at the same child paths, on any tree: parts repeated, missing, misplaced, in
another namespace, or among comments and processing instructions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from fel_rules.core.namespaces import DS
from fel_rules.testing.signing import TEST_SIGNER, XADES, sign
from fel_rules.xmldsig.canonical import DIGESTS, decode_base64
from fel_rules.xmldsig.parts import SIGNED_PROPERTIES_TYPES, SignatureParts
from fel_rules.xmldsig.xades import read_signed_properties

from .conftest import EXAMPLES

NS = {"ds": DS, "xades": XADES}
_NAMES = ["ds:SignedInfo", "ds:Reference", "ds:CanonicalizationMethod", "ds:SignatureMethod", "ds:SignatureValue",
          "ds:KeyInfo", "ds:X509Data", "ds:X509Certificate", "ds:Object", "xades:QualifyingProperties",
          "xades:SignedProperties", "xades:SignedSignatureProperties", "xades:SigningTime", "xades:SigningCertificate",
          "xades:SigningCertificateV2", "xades:Cert", "xades:CertDigest", "ds:DigestMethod", "ds:DigestValue",
          "xades:Reference", "Reference", "#comment", "#pi"]
_ATTRIBUTES = st.dictionaries(st.sampled_from(["URI", "Type", "Algorithm"]),
                              st.sampled_from(["", "#a", "#b", *SIGNED_PROPERTIES_TYPES, *DIGESTS, "QUJD", "urn:x"]),
                              max_size=2)
_trees = st.recursive(
    st.tuples(st.sampled_from(_NAMES), _ATTRIBUTES, st.sampled_from([None, "QUJD", " QU\nJD ", "!"]), st.just([])),
    lambda below: st.tuples(st.sampled_from(_NAMES), _ATTRIBUTES, st.none(), st.lists(below, max_size=4)),
    max_leaves=40,
)


def _build(parent: etree._Element, children: list) -> None:
    for name, attributes, text, below in children:
        if name == "#comment":
            parent.append(etree.Comment("c"))
            continue
        if name == "#pi":
            parent.append(etree.ProcessingInstruction("p", "q"))
            continue
        prefix, _, local = name.rpartition(":")
        node = etree.SubElement(parent, f"{{{NS[prefix]}}}{local}" if prefix else local, attributes)
        node.text = text
        _build(node, below)


def _expected_named(properties: etree._Element) -> list[tuple]:
    named = []
    for holder in ("SigningCertificate", "SigningCertificateV2"):
        for digest in properties.findall(f"xades:SignedSignatureProperties/xades:{holder}/xades:Cert/xades:CertDigest",
                                         NS):
            method, value = digest.find("ds:DigestMethod", NS), digest.find("ds:DigestValue", NS)
            algorithm = method.get("Algorithm", "") if method is not None else ""
            named.append((value if value is not None else digest, DIGESTS.get(algorithm, ""),
                          decode_base64(value.text if value is not None else None)))
    return named


def _assert_parts(signature: etree._Element) -> None:
    parts = SignatureParts(signature)
    signed_info = signature.find("ds:SignedInfo", NS)
    assert parts.signed_info is signed_info
    every_reference = signature.findall("ds:SignedInfo/ds:Reference", NS)
    assert parts.uris == [reference.get("URI") for reference in every_reference]
    assert parts.roles == {reference.get("URI", "") for reference in every_reference
                           if reference.get("Type") not in SIGNED_PROPERTIES_TYPES}
    if signed_info is not None:
        assert parts.references == signed_info.findall("ds:Reference", NS)
        assert parts.c14n_method is signed_info.find("ds:CanonicalizationMethod", NS)
        assert parts.signature_method is signed_info.find("ds:SignatureMethod", NS)
    else:
        assert (parts.references, parts.c14n_method, parts.signature_method) == ([], None, None)
    assert parts.signature_value is signature.find("ds:SignatureValue", NS)
    assert parts.key_info is signature.find("ds:KeyInfo", NS)
    assert parts.certificates() == signature.findall("ds:KeyInfo/ds:X509Data/ds:X509Certificate", NS)
    properties = signature.find("ds:Object/xades:QualifyingProperties/xades:SignedProperties", NS)
    assert parts.signed_properties() is properties
    if properties is not None:
        said = read_signed_properties(properties)
        assert said.signing_time is properties.find("xades:SignedSignatureProperties/xades:SigningTime", NS)
        assert said.named == _expected_named(properties)


@settings(max_examples=400, deadline=None)
@given(children=st.lists(_trees, max_size=6))
def test_one_walk_finds_what_the_child_paths_find(children):
    signature = etree.Element(f"{{{DS}}}Signature", nsmap={"ds": DS})
    _build(signature, children)
    _assert_parts(signature)


@settings(max_examples=200, deadline=None)
@given(children=st.lists(_trees, max_size=4))
def test_the_signed_properties_read_in_one_walk(children):
    properties = etree.Element(f"{{{XADES}}}SignedProperties")
    _build(properties, children)
    said = read_signed_properties(properties)
    assert said.signing_time is properties.find("xades:SignedSignatureProperties/xades:SigningTime", NS)
    assert said.named == _expected_named(properties)


def test_the_parts_of_real_signatures():
    documents = [path.read_bytes() for path in sorted(EXAMPLES.glob("*.xml"))]
    documents.append(sign((EXAMPLES / "factura-certificada.xml").read_bytes(), TEST_SIGNER, "#DatosEmision"))
    seen = 0
    for document in documents:
        for signature in etree.fromstring(document).iter(f"{{{DS}}}Signature"):
            _assert_parts(signature)
            seen += 1
    assert seen >= 2


def test_signing_certificate_digests_come_before_the_v2_ones():
    """Whatever the document order: ``SigningCertificate``'s, then ``SigningCertificateV2``'s, as the paths say."""
    properties = etree.fromstring(
        f'<x:SignedProperties xmlns:x="{XADES}" xmlns:ds="{DS}"><x:SignedSignatureProperties>'
        '<x:SigningCertificateV2><x:Cert><x:CertDigest><ds:DigestValue>QUJD</ds:DigestValue></x:CertDigest></x:Cert>'
        '</x:SigningCertificateV2><x:SigningTime>t</x:SigningTime><x:SigningCertificate><x:Cert><x:CertDigest>'
        '<ds:DigestValue>REVG</ds:DigestValue></x:CertDigest></x:Cert></x:SigningCertificate>'
        '</x:SignedSignatureProperties></x:SignedProperties>')
    said = read_signed_properties(properties)
    assert [digest for _, _, digest in said.named] == [b"DEF", b"ABC"]
    assert said.named == _expected_named(properties)
