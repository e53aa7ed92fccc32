"""The signature check kinds: the XML signatures (XMLDSig + XAdES-BES) of FEL documents.

A certified FEL document carries the issuer's ``ds:Signature`` (reference ``#DatosEmision``, or
``#DatosAnulacion`` in an annulment) and the certifier's (``#DatosCertificados``), each with its
certificate embedded. :mod:`fel_rules.xmldsig` recomputes every reference digest, verifies
``ds:SignatureValue`` with the embedded certificate's key, and judges the certificate (the one
``xades:SigningCertificate`` names) at the signed ``xades:SigningTime``. Trust in SAT's certificate chain,
revocation, and the binding of the certificate to the NIT are **not** checked.

Three kinds share one verification per document and role:

* ``signature``: the problems of the signatures of one role (``{causa}`` in plain words, ``{accion}`` what to
  do, ``{detalle}`` the technical detail). A signature whose only fault is that the file was re-indented after
  signing is not judged here;
* ``signature_reformatted``: one finding when a signature fails as received but verifies once the whitespace
  between elements is removed: the signed data is intact;
* ``signatures_verified``: one finding when the signatures present verify (re-indented or not), to say what
  verification does not cover.

A document without signatures costs one look at the root's children (the verifier and the cryptography library
load with the first signed document). Signatures are verified against the
bytes as received (:attr:`CheckInput.source`, re-parsed once per document with comments and processing
instructions kept, which canonical XML includes), falling back to the engine's tree.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from lxml import etree

from ..core.namespaces import DS
from ..core.text import Text
from ..core.xmlpath import element_xpath
from ..xmldsig import Problem, ProblemCode, SignatureVerdict
from .base import CheckInput, Finding, RuleEnv
from .plain import ParamsOf, plain
from .registry import check_kind

if TYPE_CHECKING:
    from ..xmldsig import SignedDocument
    from .signature_params import ReformattedParams, SignatureParams

__all__ = ["ReformattedSignaturesCheck", "SignatureCheck", "SignaturesVerifiedCheck"]

_SIGNATURE = f"{{{DS}}}Signature"
_MEMO_KEY = "signature.document"
_ISSUER_URIS = ("#DatosEmision", "#DatosAnulacion")
_CERTIFIER_URI = "#DatosCertificados"

#: A letter turned into "?" between two letters ("Ferreter?a"), or the Unicode replacement character: the
#: marks a wrong character-set conversion leaves.
_BROKEN_CHARACTERS = re.compile(r"[^\W\d_]\?[^\W\d_]|\ufffd")

#: Problem → (cause, action): the catalogue's ``signature.cause.*`` and ``signature.action.*`` texts.
_PLAIN: dict[ProblemCode, tuple[str, str]] = {
    ProblemCode.TOO_MANY_SIGNATURES: ("too_many", "ask_certifier"),
    ProblemCode.DIGEST_MISMATCH: ("content_changed", "ask_original"),
    ProblemCode.DIGEST_MISMATCH_REINDENTED: ("reformatted", "ask_original"),
    ProblemCode.SIGNATURE_MISMATCH: ("signature_mismatch", "ask_original"),
    ProblemCode.SIGNATURE_MISMATCH_REINDENTED: ("reformatted", "ask_original"),
    ProblemCode.NO_CERTIFICATE: ("certificate", "ask_certifier"),
    ProblemCode.CERTIFICATE_UNREADABLE: ("certificate", "ask_certifier"),
    ProblemCode.SIGNING_CERTIFICATE_MISMATCH: ("certificate", "ask_certifier"),
    ProblemCode.SIGNED_BEFORE_VALIDITY: ("validity", "ask_certifier"),
    ProblemCode.SIGNED_AFTER_VALIDITY: ("validity", "ask_certifier"),
    ProblemCode.UNSUPPORTED_TRANSFORM: ("unsupported", "ask_certifier"),
    ProblemCode.UNSUPPORTED_DIGEST: ("unsupported", "ask_certifier"),
    ProblemCode.UNSUPPORTED_C14N: ("unsupported", "ask_certifier"),
    ProblemCode.UNSUPPORTED_SIGNATURE_METHOD: ("unsupported", "ask_certifier"),
    ProblemCode.KEY_NOT_RSA: ("unsupported", "ask_certifier"),
    ProblemCode.SIGNING_CERTIFICATE_UNSUPPORTED_DIGEST: ("unsupported", "ask_certifier"),
}
_DAMAGED = ("damaged", "ask_original")  # every other problem: the signature itself is incomplete or broken


def _verdicts(doc: CheckInput, uri: str) -> list[SignatureVerdict]:
    """The verdicts of the signatures of role ``uri`` (the document is read and each role verified once)."""
    document = doc.memo.get(_MEMO_KEY)
    if document is None:
        if not any(child.tag == _SIGNATURE for child in doc.root):  # unsigned: nothing to do, nearly free
            return []
        document = _signed(doc)
    return document.verdicts(uri)


def _unsigned(root: etree._Element, memo: dict) -> bool:
    """Whether the document of ``root`` (its memo: ``memo``) has no signature to verify, as :func:`_verdicts` decides
    it: then every signature check finds nothing (what a rule plan's function asks, see ``finds_nothing``)."""
    return memo.get(_MEMO_KEY) is None and not any(child.tag == _SIGNATURE for child in root)


def _signed(doc: CheckInput) -> SignedDocument:
    document = doc.memo.get(_MEMO_KEY)
    if document is None:
        from ..xmldsig import SignedDocument  # the verifier and cryptography: only for a signed document

        document = doc.memo[_MEMO_KEY] = SignedDocument.read(doc.source, doc.root, stripped=True)
    return document


@check_kind("signature")
class SignatureCheck:
    """Digests, signature value and certificate validity (at xades:SigningTime) of the signatures
    whose ds:Reference points at ``reference``. A document without such a signature yields nothing
    (the schema stage reports the missing issuer signature); a signature that only lost its original
    whitespace yields nothing either (``signature_reformatted`` says so)."""

    Params = ParamsOf("fel_rules.checks.signature_params:SignatureParams")

    def __init__(self, params: SignatureParams, env: RuleEnv) -> None:
        self.params = plain(params)

    def placeholders(self) -> set[str]:
        """``{causa}`` what happened, ``{accion}`` what to do, ``{detalle}`` the technical detail (all in the
        report's language); ``{referencia}``: the reference URI."""
        return {"causa", "accion", "detalle", "referencia"}

    def finds_nothing(self, doc: CheckInput) -> bool:
        """Whether :meth:`check` certainly finds nothing: the document is unsigned (``False``: it may find some)."""
        return _unsigned(doc.root, doc.memo)

    def prepare(self, doc: CheckInput) -> None:
        """Verify the signatures of this check's reference now (see :class:`~.base.CheckKind`)."""
        _verdicts(doc, self.params.reference)

    def check(self, doc: CheckInput) -> Iterator[Finding]:
        uri = self.params.reference
        for verdict in _verdicts(doc, uri):
            if verdict.reformatted_only:
                continue
            for problem in verdict.problems:
                yield _finding(problem, uri, _signed(doc))


@check_kind("signature_reformatted")
class ReformattedSignaturesCheck:
    """One finding when some signature of the given roles fails on the bytes as received but verifies once the
    whitespace between elements is removed (and has no other problem): the file was re-indented after
    signing and its signed data is intact. ``{referencias}``: the references concerned."""

    Params = ParamsOf("fel_rules.checks.signature_params:ReformattedParams")

    def __init__(self, params: ReformattedParams, env: RuleEnv) -> None:
        self.params = plain(params)

    def placeholders(self) -> set[str]:
        """``{referencias}``: the URIs of the re-indented signatures' roles."""
        return {"referencias"}

    def finds_nothing(self, doc: CheckInput) -> bool:
        """Whether :meth:`check` certainly finds nothing: the document is unsigned (``False``: it may find some)."""
        return _unsigned(doc.root, doc.memo)

    def check(self, doc: CheckInput) -> Iterator[Finding]:
        reformatted = [(uri, verdict) for uri in self.params.references for verdict in _verdicts(doc, uri)
                       if verdict.reformatted_only]
        if reformatted:
            first = reformatted[0][1].problems[0].element
            uris = ", ".join(dict.fromkeys(uri for uri, _ in reformatted))
            yield Finding(xpath=element_xpath(first), line=first.sourceline, field=first.tag.rpartition("}")[2],
                          values={"referencias": uris})


@check_kind("signatures_verified")
class SignaturesVerifiedCheck:
    """One finding when the document carries signatures of the given roles and every one of them verifies
    (re-indented or not): it says what verification covers and what it does not."""

    Params = ParamsOf("fel_rules.checks.signature_params:ReformattedParams")

    def __init__(self, params: ReformattedParams, env: RuleEnv) -> None:
        self.params = plain(params)

    def placeholders(self) -> set[str]:
        """``{firmas}``: how many signatures verified."""
        return {"firmas"}

    def finds_nothing(self, doc: CheckInput) -> bool:
        """Whether :meth:`check` certainly finds nothing: the document is unsigned (``False``: it may find some)."""
        return _unsigned(doc.root, doc.memo)

    def check(self, doc: CheckInput) -> Iterator[Finding]:
        verdicts = [verdict for uri in self.params.references for verdict in _verdicts(doc, uri)]
        if verdicts and all(not verdict.problems or verdict.reformatted_only for verdict in verdicts):
            yield Finding(xpath=element_xpath(verdicts[0].signature), line=verdicts[0].signature.sourceline,
                          field="Signature", values={"firmas": len(verdicts)})


def _finding(problem: Problem, uri: str, document: SignedDocument) -> Finding:
    cause, action = _plain(problem, document)
    return Finding(
        xpath=element_xpath(problem.element), line=problem.element.sourceline, field=problem.field,
        values={"causa": Text(f"signature.cause.{cause}"), "accion": Text(f"signature.action.{action}"),
                "detalle": Text(f"signature.{problem.code.value}", _detail_values(problem.values)),
                "referencia": uri},
        expected=problem.expected, actual=problem.actual,
    )


def _plain(problem: Problem, document: SignedDocument) -> tuple[str, str]:
    """What happened, in plain words, and what to do: for a changed digest, which part changed and, where the
    marks say so, that a character-set conversion did it."""
    cause, action = _PLAIN.get(problem.code, _DAMAGED)
    if problem.code is ProblemCode.DIGEST_MISMATCH:
        return _changed_part(problem, document), action
    return cause, action


def _changed_part(problem: Problem, document: SignedDocument) -> str:
    uri = problem.values.get("uri")
    found = document.by_id(uri[1:]) if isinstance(uri, str) and uri.startswith("#") else []
    target = found[0] if len(found) == 1 else None
    if target is not None and _has_broken_characters(target):
        return "charset"
    issuer = _ISSUER_URIS[1] if etree.QName(document.root).localname == "GTAnulacionDocumento" else _ISSUER_URIS[0]
    issuer_changed = "annulment_changed" if issuer == "#DatosAnulacion" else "emission_changed"
    if uri == issuer:
        return issuer_changed
    if uri == _CERTIFIER_URI:
        return "certification_changed" if _digest_intact(document, issuer) else issuer_changed
    if target is not None and target.tag.endswith("SignedProperties"):
        return "properties_changed"
    return "content_changed"


def _digest_intact(document: SignedDocument, uri: str) -> bool:
    """True when signatures of role ``uri`` exist and none of them finds that reference's content changed."""
    verdicts = document.verdicts(uri)
    changed = (ProblemCode.DIGEST_MISMATCH, ProblemCode.REFERENCE_NOT_FOUND)
    return bool(verdicts) and not any(problem.code in changed and problem.values.get("uri") == uri
                                      for verdict in verdicts for problem in verdict.problems)


def _has_broken_characters(element: etree._Element) -> bool:
    for node in element.iter():
        texts = [node.text, *node.attrib.values()] if isinstance(node.tag, str) else []
        if any(text and _BROKEN_CHARACTERS.search(text) for text in texts):
            return True
    return False


def _detail_values(values) -> dict[str, object]:
    """The problem's values as its text says them: a reference by its quoted URI, an empty algorithm as —."""
    said = dict(values)
    if "uri" in said:
        uri = said.pop("uri")
        said["reference"] = f"'{uri}'" if uri is not None else Text("signature.no_uri")
    if "algorithm" in said:
        said["algorithm"] = said["algorithm"] or "—"
    return said
