"""The signer's certificate and the XAdES signed properties: which certificate ``xades:SigningCertificate``
names, and when ``xades:SigningTime`` says the signature was made."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from lxml import etree

from ..core.namespaces import DS
from .canonical import DIGESTS, decode_base64
from .certificates import Certificate
from .tree import child, child_path

__all__ = [
    "XADES", "NamedCertificate", "named_by", "parse_signing_time", "signed_properties",
    "signing_certificate_digests",
]

XADES = "http://uri.etsi.org/01903/v1.3.2#"

_GUATEMALA = timezone(timedelta(hours=-6))  # an xs:dateTime without zone is Guatemala time (as elsewhere in FEL)
_DATETIME = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?$")

#: (DigestValue element, hashlib name or '' when the algorithm is unsupported, digest or None).
NamedCertificate = tuple[etree._Element, str, bytes | None]


_FIND: etree._Element = etree.Element("find")  # (a marker: "look the signed properties up")


def _ds(name: str) -> str:
    return f"{{{DS}}}{name}"


def _xades(name: str) -> str:
    return f"{{{XADES}}}{name}"


_OBJECT, _DIGEST_METHOD, _DIGEST_VALUE = _ds("Object"), _ds("DigestMethod"), _ds("DigestValue")
_QUALIFYING, _SIGNED_PROPERTIES = _xades("QualifyingProperties"), _xades("SignedProperties")
_SIGNED_SIGNATURE_PROPERTIES = _xades("SignedSignatureProperties")
_CERT, _CERT_DIGEST = _xades("Cert"), _xades("CertDigest")
_HOLDERS = (_xades("SigningCertificate"), _xades("SigningCertificateV2"))
_PROPERTIES_PATH = child_path(_OBJECT, _QUALIFYING, _SIGNED_PROPERTIES)
_CERT_DIGEST_PATHS = tuple(child_path(_SIGNED_SIGNATURE_PROPERTIES, holder, _CERT, _CERT_DIGEST) for holder in _HOLDERS)


def signed_properties(signature: etree._Element) -> etree._Element | None:
    """The signature's ``xades:SignedProperties``, if it has them."""
    found = _PROPERTIES_PATH(signature)
    return found[0] if found else None


def signing_certificate_digests(signature: etree._Element,
                                properties: etree._Element | None = _FIND) -> list[NamedCertificate]:
    """Each ``xades:Cert`` the signed properties name (``SigningCertificate`` and ``SigningCertificateV2``);
    ``properties``: the signature's signed properties when they were already found."""
    if properties is _FIND:
        properties = signed_properties(signature)
    if properties is None:
        return []
    named = []
    for path in _CERT_DIGEST_PATHS:
        for digest in path(properties):
            method = child(digest, _DIGEST_METHOD)
            value = child(digest, _DIGEST_VALUE)
            algorithm = method.get("Algorithm", "") if method is not None else ""
            named.append((value if value is not None else digest, DIGESTS.get(algorithm, ""),
                          decode_base64(value.text if value is not None else None)))
    return named


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
