"""The signer's certificate and the XAdES signed properties: which certificate ``xades:SigningCertificate``
names, and when ``xades:SigningTime`` says the signature was made."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import NamedTuple

from lxml import etree

from ..core.namespaces import DS
from .canonical import DIGESTS, decode_base64
from .certificates import Certificate

__all__ = [
    "XADES", "NamedCertificate", "SignedProperties", "named_by", "parse_signing_time", "read_signed_properties",
]

XADES = "http://uri.etsi.org/01903/v1.3.2#"

_GUATEMALA = timezone(timedelta(hours=-6))  # an xs:dateTime without zone is Guatemala time (as elsewhere in FEL)
_DATETIME = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?$")

#: (DigestValue element, hashlib name or '' when the algorithm is unsupported, digest or None).
NamedCertificate = tuple[etree._Element, str, bytes | None]


def _ds(name: str) -> str:
    return f"{{{DS}}}{name}"


def _xades(name: str) -> str:
    return f"{{{XADES}}}{name}"


_DIGEST_METHOD, _DIGEST_VALUE = _ds("DigestMethod"), _ds("DigestValue")
_SIGNED_SIGNATURE_PROPERTIES, _SIGNING_TIME = _xades("SignedSignatureProperties"), _xades("SigningTime")
_CERT, _CERT_DIGEST = _xades("Cert"), _xades("CertDigest")
_SIGNING_CERTIFICATE, _SIGNING_CERTIFICATE_V2 = _xades("SigningCertificate"), _xades("SigningCertificateV2")


class SignedProperties(NamedTuple):
    """What ``xades:SignedProperties`` say: ``named``, each ``xades:Cert`` they name (those under
    ``SignedSignatureProperties/SigningCertificate/Cert/CertDigest`` in document order, then those under
    ``SigningCertificateV2``), and ``signing_time``, the first ``SignedSignatureProperties/SigningTime``."""

    named: list[NamedCertificate]
    signing_time: etree._Element | None


def read_signed_properties(properties: etree._Element) -> SignedProperties:
    """The certificates ``properties`` name and their signing time element, read in one walk."""
    holders: tuple[list[etree._Element], list[etree._Element]] = ([], [])
    signing_time = None
    for signature_properties in properties[:]:
        if signature_properties.tag != _SIGNED_SIGNATURE_PROPERTIES:
            continue
        for node in signature_properties[:]:
            tag = node.tag
            if tag == _SIGNING_CERTIFICATE:
                holders[0].append(node)
            elif tag == _SIGNING_CERTIFICATE_V2:
                holders[1].append(node)
            elif tag == _SIGNING_TIME and signing_time is None:
                signing_time = node
    named = [_named(digest) for found in holders for holder in found for cert in holder if cert.tag == _CERT
             for digest in cert if digest.tag == _CERT_DIGEST]
    return SignedProperties(named, signing_time)


def _named(digest: etree._Element) -> NamedCertificate:
    method = value = None
    for node in digest:
        tag = node.tag
        if tag == _DIGEST_METHOD:
            if method is None:
                method = node
        elif tag == _DIGEST_VALUE and value is None:
            value = node
    algorithm = method.get("Algorithm", "") if method is not None else ""
    return (value if value is not None else digest, DIGESTS.get(algorithm, ""),
            decode_base64(value.text if value is not None else None))


def named_by(certificate: Certificate, named: list[NamedCertificate]) -> bool:
    """Whether one of ``named`` is the digest of ``certificate``."""
    return any(name and digest == certificate.digest(name) for _, name, digest in named)


def parse_signing_time(text: str) -> datetime | None:
    """An ``xs:dateTime`` as an aware datetime (Guatemala time when it has no zone); ``None`` if invalid."""
    match = _DATETIME.match(text)
    if match is None:
        return None
    base, fraction, zone = match.groups()
    try:
        moment = datetime.fromisoformat(base + (f".{(fraction + '000000')[:6]}" if fraction else ""))
    except ValueError:
        return None
    if zone is None:
        return moment.replace(tzinfo=_GUATEMALA)
    if zone == "Z":
        return moment.replace(tzinfo=UTC)
    sign = 1 if zone[0] == "+" else -1
    hours, minutes = int(zone[1:3]), int(zone[4:6])
    if hours > 14 or minutes > 59:
        return None
    return moment.replace(tzinfo=timezone(sign * timedelta(hours=hours, minutes=minutes)))
