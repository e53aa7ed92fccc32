"""Certificates embedded in signatures, read once per process.

What a certificate *is* (its parsed form, public key, DER digests and validity window) depends on its encoding
alone, so the documents of one issuer or certifier share one reading of it, kept in a small bounded cache keyed by
the exact ``ds:X509Certificate`` text. Whether a signature verifies with it is never kept: every document is
judged anew.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from functools import lru_cache

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric.types import CertificatePublicKeyTypes

from .canonical import decode_base64

__all__ = ["CACHED_CERTIFICATES", "MAX_CACHED_TEXT", "Certificate", "read_certificate"]

#: How many distinct certificates are kept (a batch meets a handful: its issuers and certifiers).
CACHED_CERTIFICATES = 64
#: Longer texts are read without being kept (a real certificate's base64 is 2–3 KB).
MAX_CACHED_TEXT = 16_384


class Certificate:
    """One X.509 certificate as verification uses it: its parsed form and ``der``, the very bytes the signature
    embeds (what a XAdES ``CertDigest`` states the digest of); its key, DER digests and validity are computed on
    first use and kept (they are facts of the certificate)."""

    __slots__ = ("_digests", "_key", "_validity", "der", "x509")

    def __init__(self, certificate: x509.Certificate, der: bytes) -> None:
        self.x509, self.der = certificate, der
        self._key: CertificatePublicKeyTypes | None = None
        self._digests: dict[str, bytes] = {}
        self._validity: tuple[datetime, datetime] | None = None

    def public_key(self) -> CertificatePublicKeyTypes:
        """The certificate's public key."""
        if self._key is None:
            self._key = self.x509.public_key()
        return self._key

    def digest(self, name: str) -> bytes:
        """The ``hashlib`` digest ``name`` of the certificate's DER encoding (:attr:`der`)."""
        digest = self._digests.get(name)
        if digest is None:
            digest = self._digests[name] = hashlib.new(name, self.der).digest()
        return digest

    def validity(self) -> tuple[datetime, datetime]:
        """``(not before, not after)``, aware UTC datetimes."""
        if self._validity is None:
            self._validity = (self.x509.not_valid_before_utc, self.x509.not_valid_after_utc)
        return self._validity


def read_certificate(text: str | None) -> Certificate | None:
    """The certificate whose DER is base64 ``text`` (a ``ds:X509Certificate``'s text); ``None`` when absent or
    unreadable. Read once per distinct text (up to :data:`CACHED_CERTIFICATES` of them)."""
    if text is None:
        return None
    if len(text) > MAX_CACHED_TEXT:
        return _read(text)
    return _read_cached(text)


@lru_cache(maxsize=CACHED_CERTIFICATES)
def _read_cached(text: str) -> Certificate | None:
    return _read(text)


def _read(text: str) -> Certificate | None:
    der = decode_base64(text)
    if not der:
        return None
    try:
        return Certificate(x509.load_der_x509_certificate(der), der)
    except (ValueError, UnsupportedAlgorithm):
        return None
