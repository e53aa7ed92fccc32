"""The ``signature`` check kind: the XML signatures (XMLDSig + XAdES-BES) of FEL documents.

A certified FEL document carries the issuer's ``ds:Signature`` (reference ``#DatosEmision``, or
``#DatosAnulacion`` in an annulment) and the certifier's (``#DatosCertificados``), each with its
certificate embedded. For every signature of the role a rule names (by that reference URI) the check

* recomputes the digest of every ``ds:Reference`` (the signed data and ``xades:SignedProperties``)
  after its transforms — enveloped-signature and the C14N 1.0 / exclusive C14N variants — and
  compares it with ``ds:DigestValue``;
* canonicalises ``ds:SignedInfo`` and verifies ``ds:SignatureValue`` (RSA PKCS#1 v1.5 with the
  stated digest) with the public key of the embedded ``ds:X509Certificate``;
* checks that the embedded certificate is the one ``xades:SigningCertificate`` names, and that
  the signature was made inside the certificate's validity window, judged at the signed
  ``xades:SigningTime`` — old documents carry certificates that have long expired.

Trust in SAT's certificate chain, revocation, and the binding of the certificate to the NIT are
**not** checked (the rules' hint says so). Cryptography comes from ``cryptography`` (RSA),
``hashlib`` (digests) and libxml2 through lxml (canonicalisation); nothing is hand-written.

Every problem is a :class:`Finding` with a precise message in the report's language; nothing in a
document makes the check raise. A document without signatures costs one look at the root's
children. Signatures are verified against the bytes as received (:attr:`CheckInput.source`,
re-parsed once per document with comments and processing instructions kept, which canonical
XML includes), falling back to the engine's tree when the bytes are not available.
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import lru_cache

from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.serialization import Encoding
from lxml import etree
from pydantic import Field

from ..core.namespaces import DS, DTE, DTE_ANULACION
from ..core.xmlpath import element_xpath
from .base import CheckInput, Finding, KindParams, RuleEnv
from .registry import check_kind

__all__ = ["SignatureCheck", "SignatureParams"]

XADES = "http://uri.etsi.org/01903/v1.3.2#"

_SIGNATURE = f"{{{DS}}}Signature"
_ADENDAS = {f"{{{DTE}}}Adenda", f"{{{DTE_ANULACION}}}Adenda"}

#: Canonicalisation algorithms: URI → (exclusive, with comments).
_C14N = {
    "http://www.w3.org/TR/2001/REC-xml-c14n-20010315": (False, False),
    "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments": (False, True),
    "http://www.w3.org/2001/10/xml-exc-c14n#": (True, False),
    "http://www.w3.org/2001/10/xml-exc-c14n#WithComments": (True, True),
}
_ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
_EXC_C14N_NS = "http://www.w3.org/2001/10/xml-exc-c14n#"

#: Digest algorithms: URI → hashlib name.
_DIGESTS = {
    "http://www.w3.org/2000/09/xmldsig#sha1": "sha1",
    "http://www.w3.org/2001/04/xmldsig-more#sha224": "sha224",
    "http://www.w3.org/2001/04/xmlenc#sha256": "sha256",
    "http://www.w3.org/2001/04/xmldsig-more#sha384": "sha384",
    "http://www.w3.org/2001/04/xmlenc#sha512": "sha512",
}

#: Signature algorithms (RSA PKCS#1 v1.5): URI → hash.
_SIGNATURE_METHODS: dict[str, type[hashes.HashAlgorithm]] = {
    "http://www.w3.org/2000/09/xmldsig#rsa-sha1": hashes.SHA1,
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha224": hashes.SHA224,
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256": hashes.SHA256,
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384": hashes.SHA384,
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512": hashes.SHA512,
}

_SIGNED_PROPERTIES_TYPES = {"http://uri.etsi.org/01903#SignedProperties", f"{XADES}SignedProperties"}
_ID_ATTRIBUTES = ("ID", "Id", "id")
_GUATEMALA = timezone(timedelta(hours=-6))  # an xs:dateTime without zone is Guatemala time (as elsewhere in FEL)
_DATETIME = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?$")
_MEMO_KEY = "signature.view"

#: Bounded work on hostile input: FEL signatures carry 2 references, documents 1–2 signatures.
MAX_REFERENCES = 8
MAX_SIGNATURES = 8


def _ds(name: str) -> str:
    return f"{{{DS}}}{name}"


def _xades(name: str) -> str:
    return f"{{{XADES}}}{name}"


class SignatureParams(KindParams):
    """Which signature the rule judges: the one whose ds:Reference has this URI."""

    reference: str = Field(
        pattern=r"^#[A-Za-z_][A-Za-z0-9_.\-]*$",
        description="URI of the ds:Reference that identifies the signer's role: #DatosEmision (issuer), "
        "#DatosCertificados (certifier), #DatosAnulacion (issuer of an annulment).",
    )


@check_kind("signature")
class SignatureCheck:
    """Digests, signature value and certificate validity (at xades:SigningTime) of the signatures
    whose ds:Reference points at ``reference``. A document without such a signature yields nothing
    (the schema stage reports the missing issuer signature)."""

    Params = SignatureParams

    def __init__(self, params: SignatureParams, env: RuleEnv) -> None:
        self.params = params

    def placeholders(self) -> set[str]:
        """``{detalle}``: what is wrong (in the report's language); ``{referencia}``: the reference URI."""
        return {"detalle", "referencia"}

    def check(self, doc: CheckInput) -> Iterator[Finding]:
        if not any(child.tag == _SIGNATURE for child in doc.root):  # unsigned: nothing to do, nearly free
            return
        view = _view(doc)
        english = doc.config.lang == "en"
        uri = self.params.reference
        judged = 0
        for signature in view.signatures:
            if uri not in _role_uris(signature):
                continue
            judged += 1
            if judged > MAX_SIGNATURES:
                problem = _Problem(signature, "Signature",
                                   f"hay más de {MAX_SIGNATURES} firmas sobre {uri}; las demás no se verificaron",
                                   f"there are more than {MAX_SIGNATURES} signatures over {uri}; the rest were not verified")
                yield problem.finding(english, uri)
                return
            for problem in _verify(signature, view, uri):
                yield problem.finding(english, uri)


# --------------------------------------------------------------------------------------------
# the document as signed


def _source_parser() -> etree.XMLParser:
    # The engine's parser settings (no DTD, no entities, no network) but keeping comments and
    # processing instructions: canonical XML includes PIs, and a #WithComments SignedInfo comments.
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False, huge_tree=False,
        remove_comments=False, remove_pis=False, collect_ids=False,
    )


@dataclass
class _View:
    """The signed document once per document: its tree, its signatures and an index of its IDs."""

    root: etree._Element
    signatures: list[etree._Element]
    _ids: dict[str, list[etree._Element]] | None = None
    certificates: dict[bytes, x509.Certificate] = field(default_factory=dict)

    def by_id(self, value: str) -> list[etree._Element]:
        if self._ids is None:
            ids: dict[str, list[etree._Element]] = {}
            for element in self.root.iter(etree.Element):
                for name in _ID_ATTRIBUTES:
                    found = element.get(name)
                    if found is not None:
                        ids.setdefault(found, []).append(element)
            self._ids = ids
        return self._ids.get(value, [])


def _view(doc: CheckInput) -> _View:
    view = doc.memo.get(_MEMO_KEY)
    if view is None:
        root = doc.root
        if doc.source is not None:
            try:
                root = etree.fromstring(doc.source, _source_parser())
            except (etree.XMLSyntaxError, ValueError):  # the engine parsed it; keep its tree if not
                root = doc.root
        view = _View(root=root, signatures=[child for child in root if child.tag == _SIGNATURE])
        doc.memo[_MEMO_KEY] = view
    return view


def _role_uris(signature: etree._Element) -> set[str]:
    """URIs of the signature's references other than its XAdES properties."""
    return {
        ref.get("URI", "")
        for ref in signature.iterfind(f"{_ds('SignedInfo')}/{_ds('Reference')}")
        if ref.get("Type") not in _SIGNED_PROPERTIES_TYPES
    }


# --------------------------------------------------------------------------------------------
# problems


@dataclass(frozen=True)
class _Problem:
    element: etree._Element
    field: str
    es: str
    en: str
    expected: str | None = None
    actual: str | None = None

    def finding(self, english: bool, uri: str) -> Finding:
        return Finding(
            xpath=element_xpath(self.element), line=self.element.sourceline, field=self.field,
            values={"detalle": self.en if english else self.es, "referencia": uri},
            expected=self.expected, actual=self.actual,
        )


def _verify(signature: etree._Element, view: _View, role_uri: str) -> Iterator[_Problem]:
    signed_info = signature.find(_ds("SignedInfo"))
    if signed_info is None:
        yield _Problem(signature, "SignedInfo", "la firma no tiene ds:SignedInfo", "the signature has no ds:SignedInfo")
        return
    references = signed_info.findall(_ds("Reference"))
    if len(references) > MAX_REFERENCES:
        yield _Problem(signed_info, "Reference",
                       f"ds:SignedInfo tiene {len(references)} referencias (una firma FEL tiene 2; se admiten hasta "
                       f"{MAX_REFERENCES}): no se verificó",
                       f"ds:SignedInfo has {len(references)} references (a FEL signature has 2; up to {MAX_REFERENCES} "
                       "are accepted): not verified")
        return
    covered: set[etree._Element] = set()  # elements whose digest matched
    for reference in references:
        yield from _check_reference(reference, signature, view, role_uri, covered)
    certificate, problems = _signer_certificate(signature, view)
    yield from problems
    yield from _check_signature_value(signature, signed_info, certificate)
    yield from _check_xades(signature, certificate, covered)


# ---- references -----------------------------------------------------------------------------


def _check_reference(
    reference: etree._Element, signature: etree._Element, view: _View, role_uri: str, covered: set
) -> Iterator[_Problem]:
    uri = reference.get("URI")
    label = f"'{uri}'" if uri is not None else "(sin URI)"
    label_en = f"'{uri}'" if uri is not None else "(no URI)"
    if uri == "":
        target: etree._Element | etree._ElementTree = view.root.getroottree()
    elif uri is not None and uri.startswith("#") and "(" not in uri and len(uri) > 1:
        found = view.by_id(uri[1:])
        if not found:
            yield _Problem(reference, "Reference",
                           f"la referencia {label} no apunta a ningún elemento del documento",
                           f"reference {label_en} points at no element of the document")
            return
        if len(found) > 1:
            yield _Problem(reference, "Reference",
                           f"la referencia {label} es ambigua: {len(found)} elementos tienen ese identificador",
                           f"reference {label_en} is ambiguous: {len(found)} elements carry that identifier")
            return
        target = found[0]
        if uri == role_uri and _outside_content(target):
            yield _Problem(reference, "Reference",
                           f"la referencia {label} apunta a un elemento dentro de dte:Adenda o de una firma, "
                           "no al contenido que se valida",
                           f"reference {label_en} points at an element inside dte:Adenda or a signature, "
                           "not at the content being validated")
            return
    else:
        yield _Problem(reference, "Reference",
                       f"la referencia {label} usa una forma de URI no soportada (se admiten \"\" y \"#id\")",
                       f"reference {label_en} uses an unsupported URI form (\"\" and \"#id\" are supported)")
        return

    enveloped = False
    exclusive, prefixes = False, None
    transforms = reference.find(_ds("Transforms"))
    for transform in transforms if transforms is not None else ():
        if not isinstance(transform.tag, str):
            continue
        algorithm = transform.get("Algorithm", "")
        if algorithm == _ENVELOPED:
            enveloped = True
        elif algorithm in _C14N:
            exclusive = _C14N[algorithm][0]
            prefixes = _inclusive_prefixes(transform) if exclusive else None
        else:
            yield _unsupported(transform, "Transform", f"transformación de la referencia {label}",
                               f"transform of reference {label_en}", algorithm)
            return

    method = reference.find(_ds("DigestMethod"))
    algorithm = method.get("Algorithm", "") if method is not None else ""
    if algorithm not in _DIGESTS:
        yield _unsupported(method if method is not None else reference, "DigestMethod",
                           f"algoritmo de resumen de la referencia {label}", f"digest algorithm of reference {label_en}",
                           algorithm)
        return
    value_element = reference.find(_ds("DigestValue"))
    stated = _b64(value_element.text if value_element is not None else None)
    if stated is None:
        yield _Problem(value_element if value_element is not None else reference, "DigestValue",
                       f"el ds:DigestValue de la referencia {label} falta o no es base64 válido",
                       f"ds:DigestValue of reference {label_en} is missing or not valid base64")
        return
    try:
        octets = _canonical(target, signature if enveloped else None, exclusive, prefixes)
    except etree.C14NError as exc:
        yield _Problem(reference, "Reference",
                       f"no se pudo canonicalizar el contenido de la referencia {label} ({exc})",
                       f"the content of reference {label_en} could not be canonicalised ({exc})")
        return
    computed = hashlib.new(_DIGESTS[algorithm], octets).digest()
    if computed == stated:
        if isinstance(target, etree._Element):
            covered.add(target)
        return
    es = f"el resumen de la referencia {label} no coincide: el contenido firmado fue modificado después de firmarlo"
    en = f"the digest of reference {label_en} does not match: the signed content was changed after signing"
    if isinstance(target, etree._Element) and _matches_without_indentation(
        target, signature if enveloped else None, exclusive, prefixes, algorithm, stated
    ):
        es += " (coincide si se quita la sangría entre elementos: el XML fue re-indentado o reformateado)"
        en += " (it matches once the indentation between elements is removed: the XML was re-indented or reformatted)"
    yield _Problem(value_element, "DigestValue", es, en,
                   expected=base64.b64encode(stated).decode(), actual=base64.b64encode(computed).decode())


def _outside_content(element: etree._Element) -> bool:
    node = element
    while node is not None:
        if node.tag in _ADENDAS or node.tag == _SIGNATURE:
            return True
        node = node.getparent()
    return False


def _inclusive_prefixes(transform: etree._Element) -> list[str] | None:
    node = transform.find(f"{{{_EXC_C14N_NS}}}InclusiveNamespaces")
    if node is None:
        return None
    return [prefix for prefix in (node.get("PrefixList") or "").split() if prefix] or None


def _canonical(
    target: etree._Element | etree._ElementTree,
    enveloping: etree._Element | None,
    exclusive: bool,
    prefixes: list[str] | None,
) -> bytes:
    """Canonical octets of a same-document reference (comments excluded, as for "" and "#id")."""
    if enveloping is not None and _contains(target, enveloping):
        target, copied = _copy_with(target, enveloping)
        _remove_keeping_tail(copied)
    return etree.tostring(target, method="c14n", exclusive=exclusive, with_comments=False,
                          inclusive_ns_prefixes=prefixes)


def _contains(target: etree._Element | etree._ElementTree, element: etree._Element) -> bool:
    top = target.getroot() if isinstance(target, etree._ElementTree) else target
    node = element
    while node is not None:
        if node is top:
            return True
        node = node.getparent()
    return False


def _path(element: etree._Element) -> list[int]:
    steps = []
    node = element
    while (parent := node.getparent()) is not None:
        steps.append(parent.index(node))
        node = parent
    return steps[::-1]


def _follow(root: etree._Element, steps: list[int]) -> etree._Element:
    node = root
    for step in steps:
        node = node[step]
    return node


def _copy_with(target, element: etree._Element):
    """A copy of the whole document (keeping every in-scope namespace), the target and ``element`` in it."""
    tree = target if isinstance(target, etree._ElementTree) else target.getroottree()
    copied = copy.deepcopy(tree)
    new_root = copied.getroot()
    new_element = _follow(new_root, _path(element))
    if isinstance(target, etree._ElementTree):
        return copied, new_element
    return _follow(new_root, _path(target)), new_element


def _remove_keeping_tail(element: etree._Element) -> None:
    """Remove ``element`` (the enveloped-signature transform); the text after it stays."""
    parent = element.getparent()
    if element.tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)


def _matches_without_indentation(target, enveloping, exclusive, prefixes, algorithm, stated) -> bool:
    """Whether the digest matches once whitespace-only text between elements is dropped (diagnosis)."""
    try:
        copied_target, _ = _copy_with(target, target)
        for node in copied_target.iter():
            if node.text is not None and not node.text.strip() and len(node):
                node.text = None
            if node is not copied_target and node.tail is not None and not node.tail.strip():
                node.tail = None
        if enveloping is not None and _contains(target, enveloping):
            return False  # not worth it: FEL's references never envelop their signature
        octets = etree.tostring(copied_target, method="c14n", exclusive=exclusive, with_comments=False,
                                inclusive_ns_prefixes=prefixes)
    except (etree.C14NError, IndexError, TypeError):
        return False
    return hashlib.new(_DIGESTS[algorithm], octets).digest() == stated


# ---- certificate and signature value -----------------------------------------------------------


def _signer_certificate(signature: etree._Element, view: _View) -> tuple[x509.Certificate | None, list[_Problem]]:
    elements = list(signature.iterfind(f"{_ds('KeyInfo')}/{_ds('X509Data')}/{_ds('X509Certificate')}"))
    if not elements:
        key_info = signature.find(_ds("KeyInfo"))
        return None, [_Problem(key_info if key_info is not None else signature, "X509Certificate",
                               "la firma no incluye el certificado del firmante (ds:X509Certificate)",
                               "the signature does not embed the signer's certificate (ds:X509Certificate)")]
    certificates: list[x509.Certificate] = []
    problems: list[_Problem] = []
    for element in elements:
        der = _b64(element.text)
        certificate = _certificate(der, view) if der else None
        if certificate is None:
            problems.append(_Problem(element, "X509Certificate",
                                     "el certificado incluido (ds:X509Certificate) no es legible (base64 o DER inválido)",
                                     "the embedded certificate (ds:X509Certificate) is unreadable (invalid base64 or DER)"))
        else:
            certificates.append(certificate)
    if not certificates:
        return None, problems
    named = _signing_certificate_digests(signature)
    for certificate in certificates:  # with a chain embedded, the signer is the one XAdES names
        if named and _named(certificate, named):
            return certificate, problems
    return certificates[0], problems


def _certificate(der: bytes, view: _View) -> x509.Certificate | None:
    certificate = view.certificates.get(der)
    if certificate is None:
        certificate = _load_certificate(der)
        if certificate is not None:
            view.certificates[der] = certificate
    return certificate


@lru_cache(maxsize=256)  # documents of one issuer share its certificate
def _load_certificate(der: bytes) -> x509.Certificate | None:
    try:
        return x509.load_der_x509_certificate(der)
    except (ValueError, UnsupportedAlgorithm):
        return None


def _check_signature_value(
    signature: etree._Element, signed_info: etree._Element, certificate: x509.Certificate | None
) -> Iterator[_Problem]:
    c14n_method = signed_info.find(_ds("CanonicalizationMethod"))
    c14n = c14n_method.get("Algorithm", "") if c14n_method is not None else ""
    if c14n not in _C14N:
        yield _unsupported(c14n_method if c14n_method is not None else signed_info, "CanonicalizationMethod",
                           "método de canonicalización de ds:SignedInfo", "canonicalisation method of ds:SignedInfo", c14n)
        return
    method = signed_info.find(_ds("SignatureMethod"))
    algorithm = method.get("Algorithm", "") if method is not None else ""
    if algorithm not in _SIGNATURE_METHODS:
        yield _unsupported(method if method is not None else signed_info, "SignatureMethod",
                           "algoritmo de firma", "signature algorithm", algorithm)
        return
    value_element = signature.find(_ds("SignatureValue"))
    if value_element is None:
        yield _Problem(signature, "SignatureValue", "la firma no tiene ds:SignatureValue",
                       "the signature has no ds:SignatureValue")
        return
    value = _b64(value_element.text)
    if value is None:
        yield _Problem(value_element, "SignatureValue", "ds:SignatureValue no es base64 válido",
                       "ds:SignatureValue is not valid base64")
        return
    if certificate is None:
        return  # already reported: nothing to verify with
    key = certificate.public_key()
    if not isinstance(key, rsa.RSAPublicKey):
        yield _Problem(value_element, "SignatureValue",
                       f"la clave del certificado es {type(key).__name__.removeprefix('_')}, no RSA como dice el algoritmo",
                       f"the certificate's key is {type(key).__name__.removeprefix('_')}, not RSA as the algorithm states")
        return
    exclusive, comments = _C14N[c14n]
    try:
        octets = etree.tostring(signed_info, method="c14n", exclusive=exclusive, with_comments=comments,
                                inclusive_ns_prefixes=_inclusive_prefixes(c14n_method) if exclusive else None)
    except etree.C14NError as exc:
        yield _Problem(signed_info, "SignedInfo", f"no se pudo canonicalizar ds:SignedInfo ({exc})",
                       f"ds:SignedInfo could not be canonicalised ({exc})")
        return
    try:
        key.verify(value, octets, padding.PKCS1v15(), _SIGNATURE_METHODS[algorithm]())
    except InvalidSignature:
        yield _Problem(value_element, "SignatureValue",
                       "ds:SignatureValue no corresponde a ds:SignedInfo con la clave del certificado incluido",
                       "ds:SignatureValue does not match ds:SignedInfo under the embedded certificate's key")


# ---- XAdES: signing certificate and signing time ------------------------------------------------


def _signed_properties(signature: etree._Element) -> etree._Element | None:
    return signature.find(f"{_ds('Object')}/{_xades('QualifyingProperties')}/{_xades('SignedProperties')}")


def _signing_certificate_digests(signature: etree._Element) -> list[tuple[etree._Element, str, bytes | None]]:
    """(DigestValue element, hashlib name or '', digest) of each xades:Cert the signed properties name."""
    properties = _signed_properties(signature)
    if properties is None:
        return []
    named = []
    for holder in ("SigningCertificate", "SigningCertificateV2"):
        path = f"{_xades('SignedSignatureProperties')}/{_xades(holder)}/{_xades('Cert')}/{_xades('CertDigest')}"
        for digest in properties.iterfind(path):
            method = digest.find(_ds("DigestMethod"))
            value = digest.find(_ds("DigestValue"))
            algorithm = method.get("Algorithm", "") if method is not None else ""
            named.append((value if value is not None else digest, _DIGESTS.get(algorithm, ""),
                          _b64(value.text if value is not None else None)))
    return named


def _named(certificate: x509.Certificate, named: list[tuple[etree._Element, str, bytes | None]]) -> bool:
    der = certificate.public_bytes(Encoding.DER)
    return any(name and digest == hashlib.new(name, der).digest() for _, name, digest in named)


def _check_xades(signature: etree._Element, certificate: x509.Certificate | None, covered: set) -> Iterator[_Problem]:
    properties = _signed_properties(signature)
    if properties is None:
        yield _Problem(signature, "SigningTime",
                       "la firma no lleva propiedades XAdES (xades:SignedProperties con xades:SigningTime): "
                       "no se puede juzgar la vigencia del certificado en la fecha de firma",
                       "the signature carries no XAdES properties (xades:SignedProperties with xades:SigningTime): "
                       "the certificate's validity at signing time cannot be judged")
        return
    if properties not in covered and not _referenced(signature, properties):
        yield _Problem(properties, "SignedProperties",
                       "ninguna ds:Reference cubre xades:SignedProperties: la fecha de firma y el certificado "
                       "que declara no están firmados",
                       "no ds:Reference covers xades:SignedProperties: the signing time and the certificate "
                       "it names are not signed")
    named = _signing_certificate_digests(signature)
    if certificate is not None and named:
        unknown = [element for element, name, _ in named if not name]
        if len(unknown) == len(named):
            yield _Problem(unknown[0], "DigestMethod",
                           "xades:SigningCertificate usa un algoritmo de resumen no soportado",
                           "xades:SigningCertificate uses an unsupported digest algorithm")
        elif not _named(certificate, named):
            yield _Problem(named[0][0], "SigningCertificate",
                           "el certificado incluido no es el que nombra xades:SigningCertificate",
                           "the embedded certificate is not the one xades:SigningCertificate names")
    time_element = properties.find(f"{_xades('SignedSignatureProperties')}/{_xades('SigningTime')}")
    if time_element is None:
        yield _Problem(properties, "SigningTime",
                       "la firma no lleva xades:SigningTime: no se puede juzgar la vigencia del certificado "
                       "en la fecha de firma",
                       "the signature has no xades:SigningTime: the certificate's validity at signing time "
                       "cannot be judged")
        return
    text = (time_element.text or "").strip()
    signed_at = _parse_datetime(text)
    if signed_at is None:
        yield _Problem(time_element, "SigningTime", f"xades:SigningTime '{text}' no es una fecha y hora válida",
                       f"xades:SigningTime '{text}' is not a valid date and time", actual=text)
        return
    if certificate is None:
        return
    start, end = certificate.not_valid_before_utc, certificate.not_valid_after_utc
    window = f"{start:%Y-%m-%dT%H:%M:%SZ} – {end:%Y-%m-%dT%H:%M:%SZ}"
    if signed_at < start:
        yield _Problem(time_element, "SigningTime",
                       f"la firma ({text}) es anterior al inicio de la vigencia del certificado ({window})",
                       f"the signature ({text}) predates the certificate's validity ({window})",
                       expected=window, actual=text)
    elif signed_at > end:
        yield _Problem(time_element, "SigningTime",
                       f"la firma ({text}) es posterior al vencimiento del certificado ({window})",
                       f"the signature ({text}) was made after the certificate expired ({window})",
                       expected=window, actual=text)


def _referenced(signature: etree._Element, properties: etree._Element) -> bool:
    """Whether a reference of the signature names the properties (its digest is judged separately)."""
    identifier = properties.get("Id") or properties.get("ID") or properties.get("id")
    if not identifier:
        return False
    return any(ref.get("URI") == f"#{identifier}"
               for ref in signature.iterfind(f"{_ds('SignedInfo')}/{_ds('Reference')}"))


# ---- helpers -------------------------------------------------------------------------------------


def _unsupported(element: etree._Element, field_name: str, what_es: str, what_en: str, algorithm: str) -> _Problem:
    shown = algorithm or "—"
    return _Problem(element, field_name,
                    f"{what_es} no soportado: '{shown}' (no se pudo verificar la firma)",
                    f"unsupported {what_en}: '{shown}' (the signature could not be verified)",
                    actual=algorithm or None)


def _b64(text: str | None) -> bytes | None:
    """Strict base64 (whitespace allowed between characters); ``None`` when absent or invalid."""
    if text is None:
        return None
    compact = "".join(text.split())
    if not compact:
        return None
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return None


def _parse_datetime(text: str) -> datetime | None:
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
        return moment.replace(tzinfo=timezone.utc)
    sign = 1 if zone[0] == "+" else -1
    hours, minutes = int(zone[1:3]), int(zone[4:6])
    if hours > 14 or minutes > 59:
        return None
    return moment.replace(tzinfo=timezone(sign * timedelta(hours=hours, minutes=minutes)))
