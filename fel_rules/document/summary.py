"""The report's ``document`` (from the facts) and ``totals`` (from the tree) sections."""

from __future__ import annotations

from decimal import Decimal

from lxml import etree

from ..core.money import decimal_str, parse_decimal
from ..core.namespaces import DTE
from ..core.record import build
from ..core.report import DocumentSummary, Totals
from ..core.xmlpath import children_by_tag
from .facts import Anulacion, Documento

__all__ = ["document_summary", "document_totals", "is_certified"]

_GT_DOCUMENTO = f"{{{DTE}}}GTDocumento"
_SAT = f"{{{DTE}}}SAT"
_DTE = f"{{{DTE}}}DTE"
_DATOS_EMISION = f"{{{DTE}}}DatosEmision"
_ITEMS = f"{{{DTE}}}Items"
_ITEM = f"{{{DTE}}}Item"
_TOTALES = f"{{{DTE}}}Totales"
_IMPUESTOS = f"{{{DTE}}}Impuestos"
_IMPUESTO = f"{{{DTE}}}Impuesto"
_NOMBRE_CORTO = f"{{{DTE}}}NombreCorto"
_MONTO_GRAVABLE = f"{{{DTE}}}MontoGravable"
_MONTO_IMPUESTO = f"{{{DTE}}}MontoImpuesto"
_TOTAL = f"{{{DTE}}}Total"
_OTROS_DESCUENTO = f"{{{DTE}}}OtrosDescuento"
_GRAN_TOTAL = f"{{{DTE}}}GranTotal"


def _value(field) -> str | None:
    return field.value if field is not None else None


def is_certified(facts: Documento | Anulacion) -> bool:
    """True when the document carries certification data and both signatures certification implies.

    A document with dte:Certificacion but without its issuer's or its certifier's ds:Signature was
    stripped of them: it is not shown as certified (whether the signatures verify is the rules' job).
    """
    issuer = "#DatosAnulacion" if isinstance(facts, Anulacion) else "#DatosEmision"
    return facts.certificacion is not None and {issuer, "#DatosCertificados"} <= set(facts.signed_references)


def document_summary(facts: Documento | Anulacion | None, *, path: str | None, sha256: str) -> DocumentSummary:
    """Identity of the document for the report (whatever could be read)."""
    if facts is None:
        return DocumentSummary(path=path, sha256=sha256)
    cert = facts.certificacion
    numero_autorizacion = _value(cert.numero_autorizacion) if cert else None
    serie = _value(cert.serie) if cert else None
    numero = _value(cert.numero) if cert else None
    tipo: str | None
    if isinstance(facts, Anulacion):
        tipo, fecha, moneda, gran_total = "ANULACION", _value(facts.fecha_hora_anulacion), None, None
        nit_emisor, id_receptor = _value(facts.nit_emisor), _value(facts.id_receptor)
    else:
        general = facts.datos_generales
        tipo = _value(general.tipo) if general else None
        fecha = _value(general.fecha_hora_emision) if general else None
        moneda = _value(general.codigo_moneda) if general else None
        gran_total = _canonical(facts.totales.gran_total if facts.totales else None)
        nit_emisor = _value(facts.emisor.nit) if facts.emisor else None
        id_receptor = _value(facts.receptor.id) if facts.receptor else None
    return build(DocumentSummary, {  # every field, in order (tests/test_report_records.py checks it)
        "path": path, "sha256": sha256, "tipo": tipo, "numero_autorizacion": numero_autorizacion, "serie": serie,
        "numero": numero, "fecha_emision": fecha, "nit_emisor": nit_emisor, "id_receptor": id_receptor,
        "gran_total": gran_total, "moneda": moneda, "certified": is_certified(facts),
    })


def document_totals(root: etree._Element | None, memo: dict | None = None) -> Totals:
    """Subtotal (IVA taxable base plus the line's OtrosDescuento, which SAT takes out of that base but not out of
    the total; or net amount of lines without IVA), IVA, and GranTotal.

    Read from the tree, so validation needs no facts of the lines. Subtotal + IVA + other taxes
    equals GranTotal on a consistent document. ``memo``: the document's memo, whose index of each element's
    children (:func:`~fel_rules.core.xmlpath.children_by_tag`) the rules built already.
    """
    if root is None or root.tag != _GT_DOCUMENTO:
        return Totals()
    memo = {} if memo is None else memo
    emision = next(iter(_find_all(root, (_SAT, _DTE, _DATOS_EMISION), memo)), None)
    items = _find_all(emision, (_ITEMS, _ITEM), memo)
    if emision is None or not items:
        return Totals()
    gran_total_element = next(iter(_find_all(emision, (_TOTALES, _GRAN_TOTAL), memo)), None)
    gran_total = parse_decimal(None if gran_total_element is None else gran_total_element.text or "")
    subtotal: Decimal | None
    iva: Decimal | None
    try:
        subtotal, iva = _subtotal_and_iva(items, memo)
    except _Unknown:  # an amount that cannot be read leaves the sums unknown, never short of it
        subtotal = iva = None
    return build(Totals, {"subtotal": decimal_str(subtotal), "iva": decimal_str(iva), "total": decimal_str(gran_total)})


class _Unknown(Exception):
    """An amount the totals need is missing or cannot be read."""


def _subtotal_and_iva(items: list[etree._Element], memo: dict) -> tuple[Decimal, Decimal]:
    subtotal = Decimal(0)
    iva = Decimal(0)
    for item in items:
        fields = memo.get(item) or children_by_tag(item, memo)
        taxes = [memo.get(tax) or children_by_tag(tax, memo) for group in fields.get(_IMPUESTOS, ())
                 for tax in (memo.get(group) or children_by_tag(group, memo)).get(_IMPUESTO, ())]
        for tax in taxes:
            if (_child_text(tax, _NOMBRE_CORTO) or "").strip() == "IVA":
                subtotal += _amount(tax, _MONTO_GRAVABLE)
                if _OTROS_DESCUENTO in fields:  # (out of the taxable amount, not of the total: FEL_RCP226/348)
                    subtotal += _amount(fields, _OTROS_DESCUENTO)
                iva += _amount(tax, _MONTO_IMPUESTO)
                break
        else:
            others = sum((_amount(tax, _MONTO_IMPUESTO) for tax in taxes), Decimal(0))
            subtotal += _amount(fields, _TOTAL) - others
    return subtotal, iva


def _child_text(children: dict, tag: str) -> str | None:
    """What ``element.findtext(tag)`` gives, from the element's children by tag."""
    found = children.get(tag)
    return None if found is None else found[0].text or ""


def _amount(children: dict, tag: str) -> Decimal:
    value = parse_decimal(_child_text(children, tag))
    if value is None:
        raise _Unknown(tag)
    return value


def _children(element: etree._Element | None, tag: str, memo: dict) -> list[etree._Element]:
    return children_by_tag(element, memo).get(tag, []) if element is not None else []


def _find_all(element: etree._Element | None, tags: tuple[str, ...], memo: dict) -> list[etree._Element]:
    """What ``element.findall("a/b/c")`` gives (in document order), from the index in ``memo``."""
    found = [element] if element is not None else []
    for tag in tags:
        found = [child for parent in found for child in _children(parent, tag, memo)]
    return found


def _canonical(amount) -> str | None:
    """An amount as the report writes it: canonical when it is a number, else as written."""
    if amount is None:
        return None
    return decimal_str(amount.value) if amount.value is not None else amount.raw


