"""Certificates embedded in signatures, read once per process, and their facts once per machine.

What a certificate *is* (its public key, DER digests and validity window) depends on its encoding alone, so the
documents of one issuer or certifier share one reading of it, kept in a small bounded cache keyed by the exact
``ds:X509Certificate`` text. Whether a signature verifies with it is never kept: every document is judged anew.

Reading a certificate takes cryptography's X.509 parser, whose import is most of what a signed document adds to a
one-shot validation's start-up. So the facts verification uses of an RSA certificate that parser read (modulus,
exponent, validity window) are also kept in the private cache (:mod:`fel_rules.core.cache`), keyed by the SHA-256 of
its DER and by cryptography's version (:func:`entry`): a later run that meets the same certificate rebuilds its key
from them (:class:`~cryptography.hazmat.primitives.asymmetric.rsa.RSAPublicNumbers`, whose numbers cryptography
checks as its parser does) without loading the parser. A certificate the parser could not read, or with another kind
of key, is read again each run.
"""

from __future__ import annotations

import hashlib
import threading
from datetime import datetime, timedelta
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from cryptography import __version__ as cryptography_version
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric import rsa

from ..core.cache import cache_folder, digest, read_entry, write_entry
from ..core.learnt import keeper
from ..core.version import __version__
from .canonical import decode_base64

if TYPE_CHECKING:
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric.types import CertificatePublicKeyTypes

__all__ = ["CACHED_CERTIFICATES", "KEPT_CERTIFICATES", "MAX_CACHED_TEXT", "Certificate", "entry", "keep_certificates",
           "load_parser", "read_certificate"]

#: How many distinct certificates are kept (a batch meets a handful: its issuers and certifiers).
CACHED_CERTIFICATES = 64
#: Longer texts are read without being kept (a real certificate's base64 is 2–3 KB).
MAX_CACHED_TEXT = 16_384
#: How many certificates' facts the private cache keeps (the latest kept; some 600 bytes each).
KEPT_CERTIFICATES = 512

#: (modulus, public exponent, not valid before, not valid after), keyed by the SHA-256 of the certificate's DER.
_Facts = tuple[int, int, datetime, datetime]


class Certificate:
    """One X.509 certificate as verification uses it: ``der``, the very bytes the signature embeds (what a XAdES
    ``CertDigest`` states the digest of), and its key, DER digests and validity, computed on first use and kept (they
    are facts of the certificate). :attr:`x509` is cryptography's reading of it, parsed when first asked for if the
    certificate was rebuilt from kept facts."""

    __slots__ = ("_digests", "_key", "_parsed", "_validity", "der")

    def __init__(self, der: bytes, parsed: x509.Certificate | None = None, *,
                 key: CertificatePublicKeyTypes | None = None,
                 validity: tuple[datetime, datetime] | None = None) -> None:
        self.der, self._parsed = der, parsed
        self._key, self._validity = key, validity
        self._digests: dict[str, bytes] = {}

    @property
    def x509(self) -> x509.Certificate:
        """cryptography's reading of the certificate."""
        if self._parsed is None:
            from cryptography import x509  # (see the module docstring: a certificate rebuilt from kept facts)

            self._parsed = x509.load_der_x509_certificate(self.der)
        return self._parsed

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
    unreadable, its public key and validity window included (an RSA exponent that is even, say). Read once per
    distinct text (up to :data:`CACHED_CERTIFICATES` of them)."""
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
    sha256 = hashlib.sha256(der).digest()
    certificate = _rebuilt(der, sha256)
    if certificate is None:
        from cryptography import x509  # (only for a certificate no earlier run has read: see the module docstring)

        try:
            certificate = Certificate(der, x509.load_der_x509_certificate(der))
            certificate.public_key()  # (verification asks for both: a key or a validity window that cannot be
            certificate.validity()  # loaded makes the certificate unreadable)
        except (ValueError, UnsupportedAlgorithm):
            return None
        _learn(certificate, sha256)
    certificate._digests["sha256"] = sha256
    return certificate


def load_parser() -> None:
    """Import cryptography's X.509 parser now (a process with time to spare, before a certificate no earlier run has
    read needs it)."""
    from cryptography import x509  # noqa: F401 - imported for what it loads


# ---- facts kept between runs ------------------------------------------------------------------------------------

_kept: dict[bytes, _Facts] | None = None  # read from the entry on first use
_fresh: dict[bytes, _Facts] = {}  # learnt here since the last keep_certificates
_keeping = threading.Lock()
_UTC_OFFSET = timedelta(0)  # (the validity window is kept in UTC, as cryptography gives it)


def _rebuilt(der: bytes, sha256: bytes) -> Certificate | None:
    """The certificate of ``der`` from the facts an earlier run kept, if any (and they make an RSA key)."""
    facts = _known().get(sha256) or _fresh.get(sha256)
    if facts is None:
        return None
    modulus, exponent, not_before, not_after = facts
    try:
        key = rsa.RSAPublicNumbers(exponent, modulus).public_key()
    except (ValueError, TypeError, UnsupportedAlgorithm):
        return None
    return Certificate(der, key=key, validity=(not_before, not_after))


def _learn(certificate: Certificate, sha256: bytes) -> None:
    """Note the facts of a certificate the parser just read, for :func:`keep_certificates` (RSA keys only)."""
    if cache_folder() is None:
        return
    key = certificate.public_key()  # (both loaded by _read)
    if isinstance(key, rsa.RSAPublicKey):
        numbers = key.public_numbers()
        _fresh[sha256] = (numbers.n, numbers.e, *certificate.validity())


@keeper
def keep_certificates() -> None:
    """Add the facts learnt since the last call to the cache entry, the latest last and at most
    :data:`KEPT_CERTIFICATES` of them (best effort: a cache that cannot be written keeps nothing, and nothing
    fails)."""
    global _kept
    if not _fresh:
        return
    with _keeping:  # (a server validates on several threads)
        fresh = dict(_fresh)
        slot, key = entry()
        merged = {**_valid(read_entry(slot, key)), **fresh}  # (and what other processes kept meanwhile)
        merged = dict(list(merged.items())[-KEPT_CERTIFICATES:])
        write_entry(slot, key, merged)
        _kept = merged
        for sha256 in fresh:
            _fresh.pop(sha256, None)


def _known() -> dict[bytes, _Facts]:
    """The facts the cache entry holds, read once per process (nothing when the cache is off)."""
    global _kept
    if _kept is None:
        _kept = _valid(read_entry(*entry())) if cache_folder() is not None else {}
    return _kept


def _valid(stored: object) -> dict[bytes, _Facts]:
    """The entries of ``stored`` shaped as :func:`keep_certificates` writes them (anything else is left out)."""
    if not isinstance(stored, dict):
        return {}
    return {sha256: facts for sha256, facts in stored.items()
            if type(sha256) is bytes and len(sha256) == 32 and type(facts) is tuple and len(facts) == 4
            and type(facts[0]) is int and type(facts[1]) is int
            and all(type(moment) is datetime and moment.utcoffset() == _UTC_OFFSET for moment in facts[2:])}


@cache
def entry() -> tuple[str, bytes]:
    """The cache slot and key of the certificates' facts: cryptography's version (another version may read a
    certificate otherwise) and fel-rules'."""
    key = digest("certificate facts", cryptography_version, __version__)
    return f"certificates-{key[:12].hex()}", key
