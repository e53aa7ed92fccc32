"""XMLDSig + XAdES-BES signatures for test documents, made the way SAT's certified sample is built.

A certified FEL document carries the issuer's signature over ``#DatosEmision`` (``#DatosAnulacion``
in an annulment) and the certifier's over ``#DatosCertificados``. :func:`sign_certified` adds both,
made with :data:`TEST_SIGNER`: a fixed RSA key (``test-signer-key.pem``, a throwaway key made for
these tests, never SAT's) and a self-signed certificate valid during 2026, so the output is
deterministic (RSA PKCS#1 v1.5 signatures are). lxml C14N + hashlib + cryptography, nothing else.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.serialization import Encoding
from cryptography.x509.oid import NameOID
from lxml import etree

from .xmltools import NS_DS, XML_DECLARATION, Element, serialize

__all__ = [
    "C14N", "ENVELOPED", "EXC_C14N", "SHA256", "SIGNING_TIME", "TEST_SIGNER", "XADES", "Signer", "canonicalize",
    "fill", "make_certificate", "sign", "sign_certified", "signature_element", "utc",
]

XADES = "http://uri.etsi.org/01903/v1.3.2#"
C14N = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"
EXC_C14N = "http://www.w3.org/2001/10/xml-exc-c14n#"
RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
SHA256 = "http://www.w3.org/2001/04/xmlenc#sha256"
ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
SIGNED_PROPERTIES = "http://uri.etsi.org/01903#SignedProperties"
SIGNING_TIME = "2026-03-05T22:20:00.000Z"
NS = {"ds": NS_DS, "xades": XADES}

_KEY_FILE = Path(__file__).with_name("test-signer-key.pem")
_ANULACION_ROOT = "GTAnulacionDocumento"


@dataclass(frozen=True)
class Signer:
    key: rsa.RSAPrivateKey
    certificate: x509.Certificate

    @property
    def der(self) -> bytes:
        return self.certificate.public_bytes(Encoding.DER)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def make_certificate(key, not_before: datetime, not_after: datetime, name: str = "FEL-RULES TEST") -> x509.Certificate:
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "fel-rules tests")])
    return (
        x509.CertificateBuilder()
        .subject_name(subject).issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(20260305)
        .not_valid_before(not_before).not_valid_after(not_after)
        .sign(key, hashes.SHA256())
    )


def _test_signer() -> Signer:
    key = serialization.load_pem_private_key(_KEY_FILE.read_bytes(), password=None)
    return Signer(key, make_certificate(key, utc("2026-01-01T00:00:00"), utc("2026-12-31T23:59:59")))


#: The fixed test signer (valid 2026-01-01 … 2026-12-31; signs at :data:`SIGNING_TIME`).
TEST_SIGNER = _test_signer()


def signature_element(signer: Signer, uri: str, sig_id: str, *, signing_time: str = SIGNING_TIME,
                      c14n: str = C14N, reference_c14n: str | None = None) -> etree._Element:
    """An unsigned XAdES-BES ds:Signature template (digests and value filled by :func:`sign`), laid out as
    certifiers write it: a line break between the elements of ds:SignedInfo and ds:KeyInfo."""
    transforms = f'<ds:Transform Algorithm="{ENVELOPED}"/>'
    if reference_c14n:
        transforms += f'\n<ds:Transform Algorithm="{reference_c14n}"/>'
    cert_b64 = base64.b64encode(signer.der).decode()
    cert_digest = base64.b64encode(hashlib.sha256(signer.der).digest()).decode()
    qualifying = (
        f'<xades:QualifyingProperties xmlns:xades="{XADES}" Target="#{sig_id}">'
        f'<xades:SignedProperties Id="{sig_id}-signedprops"><xades:SignedSignatureProperties>'
        f"<xades:SigningTime>{signing_time}</xades:SigningTime>"
        f'<xades:SigningCertificate><xades:Cert><xades:CertDigest><ds:DigestMethod Algorithm="{SHA256}"/>'
        f"<ds:DigestValue>{cert_digest}</ds:DigestValue></xades:CertDigest></xades:Cert></xades:SigningCertificate>"
        "</xades:SignedSignatureProperties></xades:SignedProperties></xades:QualifyingProperties>"
    )
    xml = f"""<ds:Signature xmlns:ds="{NS_DS}" Id="{sig_id}">
<ds:SignedInfo>
<ds:CanonicalizationMethod Algorithm="{c14n}"/>
<ds:SignatureMethod Algorithm="{RSA_SHA256}"/>
<ds:Reference Id="{sig_id}-ref0" URI="{uri}">
<ds:Transforms>
{transforms}
</ds:Transforms>
<ds:DigestMethod Algorithm="{SHA256}"/>
<ds:DigestValue></ds:DigestValue>
</ds:Reference>
<ds:Reference Type="{SIGNED_PROPERTIES}" URI="#{sig_id}-signedprops">
<ds:DigestMethod Algorithm="{SHA256}"/>
<ds:DigestValue></ds:DigestValue>
</ds:Reference>
</ds:SignedInfo>
<ds:SignatureValue Id="{sig_id}-sigvalue"></ds:SignatureValue>
<ds:KeyInfo>
<ds:X509Data>
<ds:X509Certificate>{cert_b64}</ds:X509Certificate>
</ds:X509Data>
</ds:KeyInfo>
<ds:Object>{qualifying}</ds:Object>
</ds:Signature>"""
    return etree.fromstring(xml)


def canonicalize(node, algorithm: str, comments: bool = False) -> bytes:
    return etree.tostring(node, method="c14n", exclusive=algorithm.startswith(EXC_C14N), with_comments=comments)


def fill(root: etree._Element, signature: etree._Element, signer: Signer) -> None:
    """Compute the digests and the signature value of a template already placed in ``root``."""
    signed_info = signature.find("ds:SignedInfo", NS)
    for reference in signed_info.findall("ds:Reference", NS):
        uri = reference.get("URI")[1:]
        target = root.xpath("//*[@ID=$v or @Id=$v]", v=uri)[0]
        c14n = reference.find("ds:Transforms/ds:Transform[last()]", NS)
        algorithm = c14n.get("Algorithm") if c14n is not None and c14n.get("Algorithm") != ENVELOPED else C14N
        digest = hashlib.sha256(canonicalize(target, algorithm)).digest()
        reference.find("ds:DigestValue", NS).text = base64.b64encode(digest).decode()
    algorithm = signed_info.find("ds:CanonicalizationMethod", NS).get("Algorithm")
    value = signer.key.sign(canonicalize(signed_info, algorithm), padding.PKCS1v15(), hashes.SHA256())
    signature.find("ds:SignatureValue", NS).text = base64.b64encode(value).decode()


def sign(document: bytes, signer: Signer, *uris: str, **options) -> bytes:
    """``document`` with one signature per URI appended to the root (issuer first, then certifier)."""
    root = etree.fromstring(document)
    for number, uri in enumerate(uris):
        signature = signature_element(signer, uri, f"xmldsig-test-{number}", **options)
        root.append(signature)
        fill(root, signature, signer)
    return etree.tostring(root.getroottree(), xml_declaration=True, encoding="UTF-8")


def sign_certified(document: bytes, signer: Signer = TEST_SIGNER) -> bytes:
    """A certified document as its certifier returns it: issuer's and certifier's signatures appended."""
    root = etree.fromstring(document)
    issuer = "#DatosAnulacion" if etree.QName(root).localname == _ANULACION_ROOT else "#DatosEmision"
    for number, uri in enumerate((issuer, "#DatosCertificados")):
        signature = signature_element(signer, uri, ("xmldsig-emisor", "xmldsig-certificador")[number])
        root.append(signature)
        fill(root, signature, signer)
    return XML_DECLARATION + etree.tostring(root, encoding="UTF-8")


def document_bytes(root: Element, *, certified: bool, sign: bool) -> bytes:
    """A built document as its certifier sends it: serialized and, when ``certified`` and ``sign``, signed by
    its issuer and its certifier with the test signer."""
    data = serialize(root)
    if not (certified and sign):
        return data
    return sign_certified(data)
