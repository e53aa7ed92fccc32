"""The report's ``document`` and ``totals`` sections, computed from the facts."""

from __future__ import annotations

from decimal import Decimal

from .facts import Anulacion, Documento
from .money import decimal_str
from .report import DocumentSummary, Totals

__all__ = ["document_summary", "document_totals"]


def _value(field) -> str | None:
    return field.value if field is not None else None


def document_summary(facts: Documento | Anulacion | None, *, path: str | None, sha256: str) -> DocumentSummary:
    """Identity of the document for the report (whatever could be read)."""
    if facts is None:
        return DocumentSummary(path=path, sha256=sha256)
    cert = facts.certificacion
    common = {
        "path": path,
        "sha256": sha256,
        "numero_autorizacion": _value(cert.numero_autorizacion) if cert else None,
        "serie": _value(cert.serie) if cert else None,
        "numero": _value(cert.numero) if cert else None,
        "certified": cert is not None,
    }
    if isinstance(facts, Anulacion):
        return DocumentSummary(
            tipo="ANULACION",
            fecha_emision=_value(facts.fecha_hora_anulacion),
            nit_emisor=_value(facts.nit_emisor),
            id_receptor=_value(facts.id_receptor),
            **common,
        )
    general = facts.datos_generales
    gran_total = facts.totales.gran_total if facts.totales else None
    return DocumentSummary(
        tipo=_value(general.tipo) if general else None,
        fecha_emision=_value(general.fecha_hora_emision) if general else None,
        moneda=_value(general.codigo_moneda) if general else None,
        nit_emisor=_value(facts.emisor.nit) if facts.emisor else None,
        id_receptor=_value(facts.receptor.id) if facts.receptor else None,
        gran_total=_canonical(gran_total),
        **common,
    )


def document_totals(facts: Documento | Anulacion | None) -> Totals:
    """Subtotal (IVA taxable base, or net amount of lines without IVA), IVA, and GranTotal.

    Subtotal + IVA + other taxes equals GranTotal on a consistent document.
    """
    if not isinstance(facts, Documento) or not facts.items:
        return Totals()
    subtotal = Decimal(0)
    iva = Decimal(0)
    for item in facts.items:
        line_iva = next((t for t in item.impuestos if t.nombre_corto and t.nombre_corto.value == "IVA"), None)
        if line_iva is not None:
            subtotal += _amount(line_iva.monto_gravable)
            iva += _amount(line_iva.monto_impuesto)
        else:
            others = sum((_amount(t.monto_impuesto) for t in item.impuestos), Decimal(0))
            subtotal += _amount(item.total) - others
    gran_total = facts.totales.gran_total if facts.totales else None
    return Totals(
        subtotal=decimal_str(subtotal),
        iva=decimal_str(iva),
        total=decimal_str(gran_total.value) if gran_total and gran_total.value is not None else None,
    )


def _canonical(amount) -> str | None:
    """An amount as the report writes it: canonical when it is a number, else as written."""
    if amount is None:
        return None
    return decimal_str(amount.value) if amount.value is not None else amount.raw


def _amount(field) -> Decimal:
    return field.value if field is not None and field.value is not None else Decimal(0)
