"""Verifying the signatures of a document: reference digests, the signature value, the signer's certificate
and its validity at the XAdES signing time. Nothing in a document makes verification raise."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from lxml import etree

from ..core.namespaces import DS, DTE, DTE_ANULACION
from .canonical import (
    C14N_METHODS,
    DIGESTS,
    ENVELOPED,
    canonical_reference,
    canonical_signed_info,
    decode_base64,
    inclusive_prefixes,
    matches_in_another_layout,
    signed_info_in_other_layouts,
)
from .certificates import Certificate, read_certificate
from .results import MAX_REFERENCES, MAX_SIGNATURES, Problem, ProblemCode, SignatureVerdict
from .tree import child, child_path
from .xades import (
    XADES,
    NamedCertificate,
    named_by,
    parse_signing_time,
    signed_properties,
    signing_certificate_digests,
)

__all__ = ["SignedDocument", "role_uris", "verify_signature"]

_SIGNATURE = f"{{{DS}}}Signature"
_ADENDAS = {f"{{{DTE}}}Adenda", f"{{{DTE_ANULACION}}}Adenda"}

#: Signature algorithms (RSA PKCS#1 v1.5): URI → hash.
_SIGNATURE_METHODS: dict[str, type[hashes.HashAlgorithm]] = {
    "http://www.w3.org/2000/09/xmldsig#rsa-sha1": hashes.SHA1,
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha224": hashes.SHA224,
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256": hashes.SHA256,
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384": hashes.SHA384,
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512": hashes.SHA512,
}

_SIGNED_PROPERTIES_TYPES = {"http://uri.etsi.org/01903#SignedProperties", f"{XADES}SignedProperties"}
#: Every ``ID``, ``Id`` and ``id`` attribute, in document order (an element's own in the order written), called on
#: the root element (what ``//@ID | //@Id | //@id`` finds: only elements have attributes; a quarter faster).
_ID_NODES = etree.XPath("descendant-or-self::*/@ID | descendant-or-self::*/@Id | descendant-or-self::*/@id")
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def _ds(name: str) -> str:
    return f"{{{DS}}}{name}"


_SIGNED_INFO, _REFERENCE, _TRANSFORMS = _ds("SignedInfo"), _ds("Reference"), _ds("Transforms")
_DIGEST_METHOD, _DIGEST_VALUE = _ds("DigestMethod"), _ds("DigestValue")
_KEY_INFO, _X509_DATA, _X509_CERTIFICATE = _ds("KeyInfo"), _ds("X509Data"), _ds("X509Certificate")
_C14N_METHOD, _SIGNATURE_METHOD, _SIGNATURE_VALUE = (
    _ds("CanonicalizationMethod"), _ds("SignatureMethod"), _ds("SignatureValue"))
_SIGNED_SIGNATURE_PROPERTIES, _SIGNING_TIME = f"{{{XADES}}}SignedSignatureProperties", f"{{{XADES}}}SigningTime"
_PKCS1 = padding.PKCS1v15()
#: Digest algorithm URI → hashlib constructor (hashlib.new looks the name up on every call).
_HASHES = {uri: getattr(hashlib, name) for uri, name in DIGESTS.items()}
_REFERENCES_PATH = child_path(_SIGNED_INFO, _REFERENCE)
_CERTIFICATES_PATH = child_path(_KEY_INFO, _X509_DATA, _X509_CERTIFICATE)
_SIGNING_TIME_PATH = child_path(_SIGNED_SIGNATURE_PROPERTIES, _SIGNING_TIME)


def _nothing_stripped(source: bytes) -> bool:
    """True when ``source`` plainly has no comment, no processing instruction besides its XML declaration and no
    dte:Adenda: its tree without them is the tree as received (a byte-level test, so it only ever says so of
    8-bit-encoded documents; anything doubtful is parsed again)."""
    start = 3 if source.startswith(b"\xef\xbb\xbf") else 0
    declared = source.startswith(b"<?xml", start)  # then the only "<?" allowed is the one at ``start``
    return (b"\x00" not in source and not _occurs(source, b"<!--", 0)
            and not _occurs(source, b"<?", start + 1 if declared else 0) and b"Adenda" not in source)


def _occurs(source: bytes, pair: bytes, begin: int) -> bool:
    """Whether ``pair`` (two or more bytes, the second rare in a FEL document: ``!`` or ``?``) occurs in ``source``
    at ``begin`` or after: the rare byte is looked for first (memchr), the whole of ``pair`` only where it is."""
    rare = pair[1:2]
    position = source.find(rare, begin + 1)
    for _ in range(8):  # a document full of them: search the whole pair instead
        if position < 0:
            return False
        if source.startswith(pair, position - 1):
            return True
        position = source.find(rare, position + 1)
    return source.find(pair, begin) >= 0


def _source_parser() -> etree.XMLParser:
    # A safe parser (no DTD, no entities, no network) that keeps comments and processing instructions:
    # canonical XML includes PIs, and a #WithComments SignedInfo comments.
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False, huge_tree=False,
        remove_comments=False, remove_pis=False, collect_ids=False,
    )


@dataclass
class SignedDocument:
    """A document as signed: its tree, its signatures, an index of its IDs and what was read of each signature."""

    root: etree._Element
    signatures: list[etree._Element]
    _ids: dict[str, list[etree._Element]] | None = None
    _roles: dict[etree._Element, set[str]] = field(default_factory=dict)
    _verdicts: dict[str, list[SignatureVerdict]] = field(default_factory=dict)
    _properties: dict[etree._Element, etree._Element | None] = field(default_factory=dict)
    _named: dict[etree._Element, list[NamedCertificate]] = field(default_factory=dict)

    @classmethod
    def read(cls, source: bytes | None, fallback: etree._Element, *, stripped: bool = False) -> SignedDocument:
        """The document from its bytes as received (comments and PIs kept); ``fallback`` (an already parsed
        tree) when there are no bytes or they do not parse. ``stripped``: ``fallback`` is ``source`` parsed
        without its comments, processing instructions and dte:Adenda; when the bytes plainly have none of them,
        it is the tree as received and is used as it is (no second parse)."""
        root = fallback
        if source is not None and not (stripped and _nothing_stripped(source)):
            try:
                root = etree.fromstring(source, _source_parser())
            except (etree.XMLSyntaxError, ValueError):
                root = fallback
        return cls(root=root, signatures=[child for child in root if child.tag == _SIGNATURE])

    def by_id(self, value: str) -> list[etree._Element]:
        """Elements whose ``ID``, ``Id`` or ``id`` attribute is ``value``."""
        if self._ids is None:
            ids: dict[str, list[etree._Element]] = {}
            for attribute in _ID_NODES(self.root):  # in document order, as a walk over every element finds them
                ids.setdefault(attribute, []).append(attribute.getparent())
            self._ids = {str(key): elements for key, elements in ids.items()}
        return self._ids.get(value, [])

    def signed_properties(self, signature: etree._Element) -> etree._Element | None:
        """The signature's ``xades:SignedProperties`` (see :func:`~.xades.signed_properties`), found once."""
        if signature not in self._properties:
            self._properties[signature] = signed_properties(signature)
        return self._properties[signature]

    def signing_certificate_digests(self, signature: etree._Element) -> list[NamedCertificate]:
        """What :func:`~.xades.signing_certificate_digests` gives for ``signature``, read once."""
        named = self._named.get(signature)
        if named is None:
            named = self._named[signature] = signing_certificate_digests(signature, self.signed_properties(signature))
        return named

    def role_uris(self, signature: etree._Element) -> set[str]:
        """What :func:`role_uris` gives for ``signature``, read once."""
        roles = self._roles.get(signature)
        if roles is None:
            roles = self._roles[signature] = role_uris(signature)
        return roles

    def verify_role(self, uri: str) -> Iterator[Problem]:
        """Problems of every signature whose references point at ``uri`` (at most :data:`MAX_SIGNATURES`)."""
        for verdict in self.verdicts(uri):
            yield from verdict.problems

    def verdicts(self, uri: str) -> list[SignatureVerdict]:
        """One verdict per signature whose references point at ``uri``, each verified once per document; past
        :data:`MAX_SIGNATURES` the next one says so and the rest are not verified."""
        found = self._verdicts.get(uri)
        if found is None:
            found = self._verdicts[uri] = list(self._verify(uri))
        return found

    def _verify(self, uri: str) -> Iterator[SignatureVerdict]:
        judged = 0
        for signature in self.signatures:
            if uri not in self.role_uris(signature):
                continue
            judged += 1
            if judged > MAX_SIGNATURES:
                yield SignatureVerdict(signature, (Problem(ProblemCode.TOO_MANY_SIGNATURES, signature, "Signature",
                                                           {"limit": MAX_SIGNATURES, "role": uri}),))
                return
            yield SignatureVerdict(signature, tuple(verify_signature(signature, self, uri)))


def role_uris(signature: etree._Element) -> set[str]:
    """URIs of the signature's references other than its XAdES properties."""
    return {
        ref.get("URI", "")
        for ref in _REFERENCES_PATH(signature)
        if ref.get("Type") not in _SIGNED_PROPERTIES_TYPES
    }


def verify_signature(signature: etree._Element, document: SignedDocument, role_uri: str) -> Iterator[Problem]:
    """Every problem of one ``ds:Signature`` whose role is the reference ``role_uri``."""
    signed_info = child(signature, _SIGNED_INFO)
    if signed_info is None:
        yield Problem(ProblemCode.NO_SIGNED_INFO, signature, "SignedInfo")
        return
    references = list(signed_info.iterchildren(_REFERENCE))
    if len(references) > MAX_REFERENCES:
        yield Problem(ProblemCode.TOO_MANY_REFERENCES, signed_info, "Reference",
                      {"count": len(references), "limit": MAX_REFERENCES})
        return
    covered: set[etree._Element] = set()  # elements whose digest matched
    for reference in references:
        yield from _check_reference(reference, signature, document, role_uri, covered)
    certificate, problems = _signer_certificate(signature, document)
    yield from problems
    yield from _check_signature_value(signature, signed_info, certificate)
    yield from _check_xades(signature, certificate, covered, document)


# ---- references -----------------------------------------------------------------------------


def _check_reference(
    reference: etree._Element, signature: etree._Element, document: SignedDocument, role_uri: str, covered: set
) -> Iterator[Problem]:
    uri = reference.get("URI")
    named = {"uri": uri}
    target = _reference_target(reference, document, role_uri)
    if isinstance(target, Problem):
        yield target
        return
    transforms = _transforms(reference, uri)
    if isinstance(transforms, Problem):
        yield transforms
        return
    enveloped, exclusive, prefixes = transforms

    method = child(reference, _DIGEST_METHOD)
    algorithm = method.get("Algorithm", "") if method is not None else ""
    if algorithm not in DIGESTS:
        yield _unsupported(ProblemCode.UNSUPPORTED_DIGEST, method if method is not None else reference,
                           "DigestMethod", algorithm, uri=uri)
        return
    value_element = child(reference, _DIGEST_VALUE)
    stated = decode_base64(value_element.text if value_element is not None else None)
    if stated is None:
        yield Problem(ProblemCode.DIGEST_VALUE_INVALID, value_element if value_element is not None else reference,
                      "DigestValue", named)
        return
    enveloping = signature if enveloped else None
    try:
        octets = canonical_reference(target, enveloping, exclusive, prefixes)
    except etree.C14NError as exc:
        yield Problem(ProblemCode.REFERENCE_C14N_FAILED, reference, "Reference", {**named, "error": str(exc)})
        return
    computed = _HASHES[algorithm](octets).digest()
    if computed == stated:
        if isinstance(target, etree._Element):
            covered.add(target)
        return
    reindented = isinstance(target, etree._Element) and matches_in_another_layout(
        target, enveloping, exclusive, prefixes, algorithm, stated)
    code = ProblemCode.DIGEST_MISMATCH_REINDENTED if reindented else ProblemCode.DIGEST_MISMATCH
    yield Problem(code, value_element, "DigestValue", named,
                  expected=base64.b64encode(stated).decode(), actual=base64.b64encode(computed).decode())


def _reference_target(
    reference: etree._Element, document: SignedDocument, role_uri: str
) -> etree._Element | etree._ElementTree | Problem:
    """What a reference's URI points to: the whole document (``""``) or the one element of that Id."""
    uri = reference.get("URI")
    named = {"uri": uri}
    if uri == "":
        return document.root.getroottree()
    if uri is None or not uri.startswith("#") or "(" in uri or len(uri) == 1:
        return Problem(ProblemCode.REFERENCE_URI_UNSUPPORTED, reference, "Reference", named)
    found = document.by_id(uri[1:])
    if not found:
        return Problem(ProblemCode.REFERENCE_NOT_FOUND, reference, "Reference", named)
    if len(found) > 1:
        return Problem(ProblemCode.REFERENCE_AMBIGUOUS, reference, "Reference", {**named, "count": len(found)})
    if uri == role_uri and _outside_content(found[0]):
        return Problem(ProblemCode.REFERENCE_OUTSIDE_CONTENT, reference, "Reference", named)
    return found[0]


def _transforms(reference: etree._Element, uri: str | None) -> tuple[bool, bool, list[str] | None] | Problem:
    """``(enveloped, exclusive, inclusive prefixes)`` from a reference's transforms."""
    enveloped, exclusive, prefixes = False, False, None
    transforms = child(reference, _TRANSFORMS)
    for transform in transforms if transforms is not None else ():
        if not isinstance(transform.tag, str):
            continue
        algorithm = transform.get("Algorithm", "")
        if algorithm == ENVELOPED:
            enveloped = True
        elif algorithm in C14N_METHODS:
            exclusive = C14N_METHODS[algorithm][0]
            prefixes = inclusive_prefixes(transform) if exclusive else None
        else:
            return _unsupported(ProblemCode.UNSUPPORTED_TRANSFORM, transform, "Transform", algorithm, uri=uri)
    return enveloped, exclusive, prefixes


def _outside_content(element: etree._Element) -> bool:
    node = element
    while node is not None:
        if node.tag in _ADENDAS or node.tag == _SIGNATURE:
            return True
        node = node.getparent()
    return False


# ---- certificate and signature value -----------------------------------------------------------


def _signer_certificate(
    signature: etree._Element, document: SignedDocument
) -> tuple[Certificate | None, list[Problem]]:
    elements = _CERTIFICATES_PATH(signature)
    if not elements:
        key_info = child(signature, _KEY_INFO)
        return None, [Problem(ProblemCode.NO_CERTIFICATE, key_info if key_info is not None else signature,
                              "X509Certificate")]
    certificates: list[Certificate] = []
    problems: list[Problem] = []
    for element in elements:
        certificate = read_certificate(element.text)
        if certificate is None:
            problems.append(Problem(ProblemCode.CERTIFICATE_UNREADABLE, element, "X509Certificate"))
        else:
            certificates.append(certificate)
    if not certificates:
        return None, problems
    named = document.signing_certificate_digests(signature)
    for certificate in certificates:  # with a chain embedded, the signer is the one XAdES names
        if named and named_by(certificate, named):
            return certificate, problems
    return certificates[0], problems


def _check_signature_value(
    signature: etree._Element, signed_info: etree._Element, certificate: Certificate | None
) -> Iterator[Problem]:
    c14n_method = child(signed_info, _C14N_METHOD)
    c14n = c14n_method.get("Algorithm", "") if c14n_method is not None else ""
    if c14n not in C14N_METHODS:
        yield _unsupported(ProblemCode.UNSUPPORTED_C14N, c14n_method if c14n_method is not None else signed_info,
                           "CanonicalizationMethod", c14n)
        return
    method = child(signed_info, _SIGNATURE_METHOD)
    algorithm = method.get("Algorithm", "") if method is not None else ""
    if algorithm not in _SIGNATURE_METHODS:
        yield _unsupported(ProblemCode.UNSUPPORTED_SIGNATURE_METHOD, method if method is not None else signed_info,
                           "SignatureMethod", algorithm)
        return
    value_element = child(signature, _SIGNATURE_VALUE)
    if value_element is None:
        yield Problem(ProblemCode.NO_SIGNATURE_VALUE, signature, "SignatureValue")
        return
    value = decode_base64(value_element.text)
    if value is None:
        yield Problem(ProblemCode.SIGNATURE_VALUE_INVALID, value_element, "SignatureValue")
        return
    if certificate is None:
        return  # already reported: nothing to verify with
    key = certificate.public_key()
    if not isinstance(key, rsa.RSAPublicKey):
        yield Problem(ProblemCode.KEY_NOT_RSA, value_element, "SignatureValue",
                      {"key_type": type(key).__name__.removeprefix("_")})
        return
    try:
        octets = canonical_signed_info(signed_info, c14n_method, c14n)
    except etree.C14NError as exc:
        yield Problem(ProblemCode.SIGNED_INFO_C14N_FAILED, signed_info, "SignedInfo", {"error": str(exc)})
        return
    if _verifies(key, value, octets, algorithm):
        return
    try:
        reindented = any(_verifies(key, value, octets, algorithm)
                         for octets in signed_info_in_other_layouts(signed_info, c14n_method, c14n))
    except etree.C14NError:
        reindented = False
    code = ProblemCode.SIGNATURE_MISMATCH_REINDENTED if reindented else ProblemCode.SIGNATURE_MISMATCH
    yield Problem(code, value_element, "SignatureValue")


def _verifies(key: rsa.RSAPublicKey, value: bytes, octets: bytes, algorithm: str) -> bool:
    try:
        key.verify(value, octets, _PKCS1, _SIGNATURE_METHODS[algorithm]())
    except InvalidSignature:
        return False
    return True


# ---- XAdES: signing certificate and signing time ------------------------------------------------


def _check_xades(signature: etree._Element, certificate: Certificate | None, covered: set,
                 document: SignedDocument) -> Iterator[Problem]:
    properties = document.signed_properties(signature)
    if properties is None:
        yield Problem(ProblemCode.NO_XADES_PROPERTIES, signature, "SigningTime")
        return
    if properties not in covered and not _referenced(signature, properties):
        yield Problem(ProblemCode.SIGNED_PROPERTIES_UNREFERENCED, properties, "SignedProperties")
    named = document.signing_certificate_digests(signature)
    if certificate is not None and named:
        unknown = [element for element, name, _ in named if not name]
        if len(unknown) == len(named):
            yield Problem(ProblemCode.SIGNING_CERTIFICATE_UNSUPPORTED_DIGEST, unknown[0], "DigestMethod")
        elif not named_by(certificate, named):
            yield Problem(ProblemCode.SIGNING_CERTIFICATE_MISMATCH, named[0][0], "SigningCertificate")
    times = _SIGNING_TIME_PATH(properties)
    time_element = times[0] if times else None
    if time_element is None:
        yield Problem(ProblemCode.NO_SIGNING_TIME, properties, "SigningTime")
        return
    text = (time_element.text or "").strip()
    signed_at = parse_signing_time(text)
    if signed_at is None:
        yield Problem(ProblemCode.SIGNING_TIME_INVALID, time_element, "SigningTime", {"time": text}, actual=text)
        return
    if certificate is None:
        return
    start, end = certificate.validity()
    if start <= signed_at <= end:
        return
    window = {"time": text, "not_before": f"{start:{_TIME_FORMAT}}", "not_after": f"{end:{_TIME_FORMAT}}"}
    code = ProblemCode.SIGNED_BEFORE_VALIDITY if signed_at < start else ProblemCode.SIGNED_AFTER_VALIDITY
    yield Problem(code, time_element, "SigningTime", window,
                  expected=f"{window['not_before']} – {window['not_after']}", actual=text)


def _referenced(signature: etree._Element, properties: etree._Element) -> bool:
    """Whether a reference of the signature names the properties (its digest is judged separately)."""
    identifier = properties.get("Id") or properties.get("ID") or properties.get("id")
    if not identifier:
        return False
    return any(ref.get("URI") == f"#{identifier}"
               for ref in _REFERENCES_PATH(signature))


def _unsupported(code: ProblemCode, element: etree._Element, field_name: str, algorithm: str, **values) -> Problem:
    return Problem(code, element, field_name, {**values, "algorithm": algorithm}, actual=algorithm or None)
