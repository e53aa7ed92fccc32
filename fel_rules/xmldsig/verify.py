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
from ..core.per_thread import PerThread
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
from .parts import SignatureParts
from .results import MAX_REFERENCES, MAX_SIGNATURES, Problem, ProblemCode, SignatureVerdict
from .tree import first_children
from .xades import SignedProperties, named_by, parse_signing_time, read_signed_properties

__all__ = ["SignedDocument", "role_uris", "verify_signature"]

_SIGNATURE = f"{{{DS}}}Signature"
_ADENDAS = {f"{{{DTE}}}Adenda", f"{{{DTE_ANULACION}}}Adenda"}

#: Signature algorithms (RSA PKCS#1 v1.5): URI → hash (stateless descriptions, made once).
_SIGNATURE_METHODS: dict[str, hashes.HashAlgorithm] = {
    "http://www.w3.org/2000/09/xmldsig#rsa-sha1": hashes.SHA1(),
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha224": hashes.SHA224(),
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256": hashes.SHA256(),
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384": hashes.SHA384(),
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512": hashes.SHA512(),
}

#: Every ``ID``, ``Id`` and ``id`` attribute, in document order (an element's own in the order written), called on
#: the root element (what ``//@ID | //@Id | //@id`` finds: only elements have attributes; a quarter faster).
_ID_NODES = etree.XPath("descendant-or-self::*/@ID | descendant-or-self::*/@Id | descendant-or-self::*/@id")
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
_TRANSFORMS, _DIGEST_METHOD, _DIGEST_VALUE = f"{{{DS}}}Transforms", f"{{{DS}}}DigestMethod", f"{{{DS}}}DigestValue"
_PKCS1 = padding.PKCS1v15()
#: Digest algorithm URI → hashlib constructor (hashlib.new looks the name up on every call).
_HASHES = {uri: getattr(hashlib, name) for uri, name in DIGESTS.items()}
_NO_PROPERTIES = SignedProperties([], None)


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


_SOURCE_PARSERS = PerThread(_source_parser)  # (see fel_rules.document.parse: one parser a thread is faster)


@dataclass
class SignedDocument:
    """A document as signed: its tree, its signatures, an index of its IDs and what was read of each signature."""

    root: etree._Element
    signatures: list[etree._Element]
    _ids: dict[str, list[etree._Element]] | None = None
    _parts: dict[etree._Element, SignatureParts] = field(default_factory=dict)
    _verdicts: dict[str, list[SignatureVerdict]] = field(default_factory=dict)

    @classmethod
    def read(cls, source: bytes | None, fallback: etree._Element, *, stripped: bool = False) -> SignedDocument:
        """The document from its bytes as received (comments and PIs kept); ``fallback`` (an already parsed
        tree) when there are no bytes or they do not parse. ``stripped``: ``fallback`` is ``source`` parsed
        without its comments, processing instructions and dte:Adenda; when the bytes plainly have none of them,
        it is the tree as received and is used as it is (no second parse)."""
        root = fallback
        if source is not None and not (stripped and _nothing_stripped(source)):
            try:
                root = etree.fromstring(source, _SOURCE_PARSERS.get())
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

    def parts(self, signature: etree._Element) -> SignatureParts:
        """What verification reads of ``signature``, read once."""
        parts = self._parts.get(signature)
        if parts is None:
            parts = self._parts[signature] = SignatureParts(signature)
        return parts

    def role_uris(self, signature: etree._Element) -> set[str]:
        """What :func:`role_uris` gives for ``signature``, read once."""
        return self.parts(signature).roles

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
            if uri not in self.parts(signature).roles:
                continue
            judged += 1
            if judged > MAX_SIGNATURES:
                yield SignatureVerdict(signature, (Problem(ProblemCode.TOO_MANY_SIGNATURES, signature, "Signature",
                                                           {"limit": MAX_SIGNATURES, "role": uri}),))
                return
            yield SignatureVerdict(signature=signature, problems=tuple(verify_signature(signature, self, uri)))


def role_uris(signature: etree._Element) -> set[str]:
    """URIs of the signature's references other than its XAdES properties."""
    return SignatureParts(signature).roles


def verify_signature(signature: etree._Element, document: SignedDocument, role_uri: str) -> Iterator[Problem]:
    """Every problem of one ``ds:Signature`` whose role is the reference ``role_uri``."""
    parts = document.parts(signature)
    signed_info = parts.signed_info
    if signed_info is None:
        yield Problem(ProblemCode.NO_SIGNED_INFO, signature, "SignedInfo")
        return
    references = parts.references
    if len(references) > MAX_REFERENCES:
        yield Problem(ProblemCode.TOO_MANY_REFERENCES, signed_info, "Reference",
                      {"count": len(references), "limit": MAX_REFERENCES})
        return
    covered: set[etree._Element] = set()  # elements whose digest matched
    for reference in references:
        problem = _check_reference(reference, signature, document, role_uri, covered)
        if problem is not None:
            yield problem
    properties = parts.signed_properties()
    said = read_signed_properties(properties) if properties is not None else _NO_PROPERTIES
    certificate, named, problems = _signer_certificate(parts, said)
    yield from problems
    problem = _check_signature_value(parts, certificate)
    if problem is not None:
        yield problem
    yield from _check_xades(parts, properties, said, certificate, named, covered)


# ---- references -----------------------------------------------------------------------------


def _check_reference(
    reference: etree._Element, signature: etree._Element, document: SignedDocument, role_uri: str, covered: set
) -> Problem | None:
    uri = reference.get("URI")
    target = _reference_target(reference, uri, document, role_uri)
    if isinstance(target, Problem):
        return target
    transforms, method, value_element = _reference_children(reference)
    transformed = _transforms(transforms, uri)
    if isinstance(transformed, Problem):
        return transformed
    enveloped, exclusive, prefixes = transformed

    algorithm = method.get("Algorithm", "") if method is not None else ""
    hashing = _HASHES.get(algorithm)
    if hashing is None:
        return _unsupported(ProblemCode.UNSUPPORTED_DIGEST, method if method is not None else reference,
                            "DigestMethod", algorithm, uri=uri)
    stated = decode_base64(value_element.text if value_element is not None else None)
    if stated is None:
        return Problem(ProblemCode.DIGEST_VALUE_INVALID, value_element if value_element is not None else reference,
                       "DigestValue", {"uri": uri})
    enveloping = signature if enveloped else None
    try:
        octets = canonical_reference(target, enveloping, exclusive, prefixes)
    except etree.C14NError as exc:
        return Problem(ProblemCode.REFERENCE_C14N_FAILED, reference, "Reference", {"uri": uri, "error": str(exc)})
    computed = hashing(octets).digest()
    if computed == stated:
        if isinstance(target, etree._Element):
            covered.add(target)
        return None
    reindented = isinstance(target, etree._Element) and matches_in_another_layout(
        target, enveloping, exclusive, prefixes, algorithm, stated)
    code = ProblemCode.DIGEST_MISMATCH_REINDENTED if reindented else ProblemCode.DIGEST_MISMATCH
    return Problem(code, value_element, "DigestValue", {"uri": uri},
                   expected=base64.b64encode(stated).decode(), actual=base64.b64encode(computed).decode())


def _reference_children(
    reference: etree._Element,
) -> tuple[etree._Element | None, etree._Element | None, etree._Element | None]:
    """A reference's first ``ds:Transforms``, ``ds:DigestMethod`` and ``ds:DigestValue``."""
    transforms, method, value = first_children(reference, _TRANSFORMS, _DIGEST_METHOD, _DIGEST_VALUE)
    return transforms, method, value


def _reference_target(
    reference: etree._Element, uri: str | None, document: SignedDocument, role_uri: str
) -> etree._Element | etree._ElementTree | Problem:
    """What a reference's URI points to: the whole document (``""``) or the one element of that Id."""
    if uri == "":
        return document.root.getroottree()
    if uri is None or not uri.startswith("#") or "(" in uri or len(uri) == 1:
        return Problem(ProblemCode.REFERENCE_URI_UNSUPPORTED, reference, "Reference", {"uri": uri})
    found = document.by_id(uri[1:])
    if len(found) != 1:
        if not found:
            return Problem(ProblemCode.REFERENCE_NOT_FOUND, reference, "Reference", {"uri": uri})
        return Problem(ProblemCode.REFERENCE_AMBIGUOUS, reference, "Reference", {"uri": uri, "count": len(found)})
    if uri == role_uri and _outside_content(found[0]):
        return Problem(ProblemCode.REFERENCE_OUTSIDE_CONTENT, reference, "Reference", {"uri": uri})
    return found[0]


def _transforms(transforms: etree._Element | None, uri: str | None) -> tuple[bool, bool, list[str] | None] | Problem:
    """``(enveloped, exclusive, inclusive prefixes)`` from a reference's ``ds:Transforms``."""
    enveloped, exclusive, prefixes = False, False, None
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
    parts: SignatureParts, said: SignedProperties
) -> tuple[Certificate | None, bool, list[Problem]]:
    """The signer's certificate, whether the XAdES properties name it, and the problems of reading it."""
    elements = parts.certificates()
    if not elements:
        key_info = parts.key_info
        return None, False, [Problem(ProblemCode.NO_CERTIFICATE, key_info if key_info is not None else parts.signature,
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
        return None, False, problems
    named = said.named
    if named:
        for certificate in certificates:  # with a chain embedded, the signer is the one XAdES names
            if named_by(certificate, named):
                return certificate, True, problems
    return certificates[0], False, problems


def _check_signature_value(parts: SignatureParts, certificate: Certificate | None) -> Problem | None:
    signed_info, c14n_method = parts.signed_info, parts.c14n_method
    c14n = c14n_method.get("Algorithm", "") if c14n_method is not None else ""
    if c14n not in C14N_METHODS:
        return _unsupported(ProblemCode.UNSUPPORTED_C14N, c14n_method if c14n_method is not None else signed_info,
                            "CanonicalizationMethod", c14n)
    method = parts.signature_method
    algorithm = method.get("Algorithm", "") if method is not None else ""
    if algorithm not in _SIGNATURE_METHODS:
        return _unsupported(ProblemCode.UNSUPPORTED_SIGNATURE_METHOD, method if method is not None else signed_info,
                            "SignatureMethod", algorithm)
    value_element = parts.signature_value
    if value_element is None:
        return Problem(ProblemCode.NO_SIGNATURE_VALUE, parts.signature, "SignatureValue")
    value = decode_base64(value_element.text)
    if value is None:
        return Problem(ProblemCode.SIGNATURE_VALUE_INVALID, value_element, "SignatureValue")
    if certificate is None:
        return None  # already reported: nothing to verify with
    key = certificate.public_key()
    if not isinstance(key, rsa.RSAPublicKey):
        return Problem(ProblemCode.KEY_NOT_RSA, value_element, "SignatureValue",
                       {"key_type": type(key).__name__.removeprefix("_")})
    try:
        octets = canonical_signed_info(signed_info, c14n_method, c14n)
    except etree.C14NError as exc:
        return Problem(ProblemCode.SIGNED_INFO_C14N_FAILED, signed_info, "SignedInfo", {"error": str(exc)})
    if _verifies(key, value, octets, algorithm):
        return None
    try:
        reindented = any(_verifies(key, value, octets, algorithm)
                         for octets in signed_info_in_other_layouts(signed_info, c14n_method, c14n))
    except etree.C14NError:
        reindented = False
    code = ProblemCode.SIGNATURE_MISMATCH_REINDENTED if reindented else ProblemCode.SIGNATURE_MISMATCH
    return Problem(code, value_element, "SignatureValue")


def _verifies(key: rsa.RSAPublicKey, value: bytes, octets: bytes, algorithm: str) -> bool:
    try:
        key.verify(value, octets, _PKCS1, _SIGNATURE_METHODS[algorithm])
    except InvalidSignature:
        return False
    return True


# ---- XAdES: signing certificate and signing time ------------------------------------------------


def _check_xades(parts: SignatureParts, properties: etree._Element | None, said: SignedProperties,
                 certificate: Certificate | None, named_signer: bool, covered: set) -> Iterator[Problem]:
    """``named_signer``: ``certificate`` is one the properties name."""
    if properties is None:
        yield Problem(ProblemCode.NO_XADES_PROPERTIES, parts.signature, "SigningTime")
        return
    if properties not in covered and not _referenced(parts, properties):
        yield Problem(ProblemCode.SIGNED_PROPERTIES_UNREFERENCED, properties, "SignedProperties")
    named = said.named
    if certificate is not None and named and not named_signer:
        if all(not name for _, name, _ in named):
            yield Problem(ProblemCode.SIGNING_CERTIFICATE_UNSUPPORTED_DIGEST, named[0][0], "DigestMethod")
        else:
            yield Problem(ProblemCode.SIGNING_CERTIFICATE_MISMATCH, named[0][0], "SigningCertificate")
    time_element = said.signing_time
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


def _referenced(parts: SignatureParts, properties: etree._Element) -> bool:
    """Whether a reference of the signature names the properties (its digest is judged separately)."""
    identifier = properties.get("Id") or properties.get("ID") or properties.get("id")
    if not identifier:
        return False
    return f"#{identifier}" in parts.uris


def _unsupported(code: ProblemCode, element: etree._Element, field_name: str, algorithm: str, **values) -> Problem:
    return Problem(code, element, field_name, {**values, "algorithm": algorithm}, actual=algorithm or None)
