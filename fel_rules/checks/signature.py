"""The ``signature`` check kind: the XML signatures (XMLDSig + XAdES-BES) of FEL documents.

A certified FEL document carries the issuer's ``ds:Signature`` (reference ``#DatosEmision``, or
``#DatosAnulacion`` in an annulment) and the certifier's (``#DatosCertificados``), each with its
certificate embedded. For every signature of the role a rule names (by that reference URI) the check
has :mod:`fel_rules.xmldsig` recompute every reference digest, verify ``ds:SignatureValue`` with the
embedded certificate's key, and judge the certificate (the one ``xades:SigningCertificate`` names) at
the signed ``xades:SigningTime``. Trust in SAT's certificate chain, revocation, and the binding of the
certificate to the NIT are **not** checked (the rules' hint says so).

Each problem becomes a finding whose ``{detalle}`` is the catalogue's ``signature.<code>`` text. A
document without signatures costs one look at the root's children. Signatures are verified against the
bytes as received (:attr:`CheckInput.source`, re-parsed once per document with comments and processing
instructions kept, which canonical XML includes), falling back to the engine's tree.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import Field

from ..core.namespaces import DS
from ..core.text import Text
from ..core.xmlpath import element_xpath
from ..xmldsig import Problem, SignedDocument
from .base import CheckInput, Finding, KindParams, RuleEnv
from .registry import check_kind

__all__ = ["SignatureCheck", "SignatureParams"]

_SIGNATURE = f"{{{DS}}}Signature"
_MEMO_KEY = "signature.document"


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
        document = doc.memo.get(_MEMO_KEY)
        if document is None:
            document = doc.memo[_MEMO_KEY] = SignedDocument.read(doc.source, doc.root)
        uri = self.params.reference
        for problem in document.verify_role(uri):
            yield _finding(problem, uri)


def _finding(problem: Problem, uri: str) -> Finding:
    return Finding(
        xpath=element_xpath(problem.element), line=problem.element.sourceline, field=problem.field,
        values={"detalle": Text(f"signature.{problem.code.value}", _detail_values(problem.values)),
                "referencia": uri},
        expected=problem.expected, actual=problem.actual,
    )


def _detail_values(values) -> dict[str, object]:
    """The problem's values as its text says them: a reference by its quoted URI, an empty algorithm as —."""
    said = dict(values)
    if "uri" in said:
        uri = said.pop("uri")
        said["reference"] = f"'{uri}'" if uri is not None else Text("signature.no_uri")
    if "algorithm" in said:
        said["algorithm"] = said["algorithm"] or "—"
    return said
