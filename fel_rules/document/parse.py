"""Safe parsing of untrusted XML: no DTD, no entities, no network, a size limit.

:func:`parse_xml` never raises for bad input; it returns a :class:`ParseResult` whose issues
explain in Spanish (or English) why a document was refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from lxml import etree

from ..core.namespaces import DTE, DTE_ANULACION
from ..core.report import Issue, Location, StageStatus
from ..findings.messages import engine_issue

__all__ = ["DocumentKind", "ParseResult", "parse_xml"]

DocumentKind = Literal["documento", "anulacion"]

_ROOTS: dict[str, tuple[str, DocumentKind]] = {
    "GTDocumento": (DTE, "documento"),
    "GTAnulacionDocumento": (DTE_ANULACION, "anulacion"),
}


def _parser() -> etree.XMLParser:
    # resolve_entities=False keeps entity references unexpanded (no XXE, no billion laughs);
    # no_network and load_dtd=False make sure nothing outside the bytes is ever read.
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,  # "19<!-- -->11.50" must read as one amount, as a schema validator sees it
        remove_pis=True,
        collect_ids=False,
    )


@dataclass
class ParseResult:
    """Outcome of the XML stage: a usable tree (or ``None``) and the issues found."""

    status: StageStatus
    root: etree._Element | None = None
    kind: DocumentKind | None = None
    issues: list[Issue] = field(default_factory=list)


def parse_xml(data: bytes, *, max_bytes: int, lang: str = "es") -> ParseResult:
    """Parse ``data`` as a FEL document, refusing anything unsafe or unexpected."""
    if len(data) > max_bytes:
        return ParseResult("error", issues=[engine_issue("FEL-XML-02", lang, size=len(data), limit=max_bytes)])
    if not data.strip(b" \t\r\n\x00\xef\xbb\xbf\xff\xfe"):
        return ParseResult("failed", issues=[engine_issue("FEL-XML-01", lang)])
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if exc.lineno and exc.lineno > 0 else None
        detail = _syntax_detail(exc, lang) + _looks_like(data, lang)
        rule = "FEL-XML-04" if _declares_doctype(data) else "FEL-XML-03"  # DTD tricks: say so, not "malformed"
        return ParseResult("failed", issues=[engine_issue(rule, lang, location=Location(line=line), detail=detail)])
    except ValueError as exc:  # e.g. unsupported encoding declarations
        return ParseResult("failed", issues=[engine_issue("FEL-XML-03", lang, detail=str(exc))])
    checked = _check_root(root, lang)
    doctype = root.getroottree().docinfo.doctype
    if doctype and checked.root is not None:  # a FEL root with a DTD: refuse it (XXE, entity bombs)
        return ParseResult(
            "failed", issues=[engine_issue("FEL-XML-04", lang, location=Location(line=1), detail=doctype)]
        )
    return checked


def _check_root(root: etree._Element, lang: str) -> ParseResult:
    qname = etree.QName(root)
    expected = _ROOTS.get(qname.localname)
    location = Location(xpath=f"/{qname.localname}", line=root.sourceline)
    if expected is None:
        found = f"{{{qname.namespace}}}{qname.localname}" if qname.namespace else qname.localname
        return ParseResult("failed", issues=[engine_issue("FEL-XML-05", lang, location=location, found=found)])
    namespace, kind = expected
    if qname.namespace != namespace:
        issue = engine_issue(
            "FEL-XML-06",
            lang,
            location=location,
            root=qname.localname,
            found=qname.namespace or "",
            expected=namespace,
        )
        return ParseResult("failed", issues=[issue])
    return ParseResult("passed", root=root, kind=kind)


_LIMITS = {  # libxml2's safety limits, explained (Spanish, English)
    "Excessive depth in document": ("el anidamiento supera 256 niveles", "nesting deeper than 256 levels"),
    "Buffer size limit exceeded": ("un texto o atributo supera 10 MB", "a text or attribute larger than 10 MB"),
    "Maximum entity amplification": ("las entidades se expandirían de forma desmedida",
                                     "entities would expand out of proportion"),
    "Attempt to load network entity": ("se intentó cargar un recurso de red (bloqueado)",
                                       "an attempt to load a network resource (blocked)"),
}


def _declares_doctype(data: bytes) -> bool:
    head = data[:4096]
    return b"<!DOCTYPE" in head.upper() or "<!DOCTYPE".encode("utf-16-le") in head


def _syntax_detail(exc: etree.XMLSyntaxError, lang: str) -> str:
    message = (exc.msg or str(exc)).strip()
    for marker, (spanish, english) in _LIMITS.items():
        if marker in message:
            return english if lang == "en" else spanish
    # libxml2 appends ", line N, column M"; the report carries the line on its own.
    message = message.split(", line ")[0]
    column = getattr(exc, "position", (None, None))[1]
    if not column:
        return message
    return f"{message} (column {column})" if lang == "en" else f"{message} (columna {column})"


def _looks_like(data: bytes, lang: str) -> str:
    """A hint when the bytes are obviously another format."""
    english = lang == "en"
    head = data.lstrip(b" \t\r\n\xef\xbb\xbf")[:1]
    if head in (b"{", b"["):
        return " — the file looks like JSON, not XML" if english else " — el archivo parece JSON, no XML"
    if data[:5] == b"%PDF-":
        return " — the file is a PDF, not the DTE's XML" if english else " — el archivo es un PDF, no el XML del DTE"
    return ""
