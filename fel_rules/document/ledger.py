"""What a ledger or an overview of many documents reads of each beyond the report: the names of emisor and
receptor, the taxes other than IVA, and for an annulment the document it annuls.

The report's ``totals`` already hold the IVA base, the IVA and the GranTotal; :attr:`LedgerFacts.otros_impuestos`
is the sum of every other tax of the lines (IDP, timbre, turismo…), so that base + IVA + other taxes = GranTotal
on a consistent document. It is read from the tree, as the totals are, so a document's ledger facts need no facts
of its lines.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from decimal import Decimal, localcontext

from lxml import etree

from ..core.money import MONEY_CONTEXT, XML_SPACE, decimal_str, parse_decimal
from ..core.namespaces import DTE
from ..core.xmlpath import children_by_tag
from .facts import Anulacion, Documento

__all__ = ["LedgerFacts", "ledger_facts"]

_EMISION_PATH = tuple(f"{{{DTE}}}{local}" for local in ("SAT", "DTE", "DatosEmision", "Items"))
_ITEM, _IMPUESTOS, _IMPUESTO, _NOMBRE_CORTO, _MONTO_IMPUESTO = (
    f"{{{DTE}}}{local}" for local in ("Item", "Impuestos", "Impuesto", "NombreCorto", "MontoImpuesto"))


@dataclass(frozen=True, slots=True)
class LedgerFacts:
    """Plain, picklable values (amounts as canonical decimal strings, ``None`` when absent or unreadable)."""

    nombre_emisor: str | None = None
    nombre_receptor: str | None = None
    otros_impuestos: str | None = None
    documento_anulado: str | None = None  # NumeroDocumentoAAnular of an annulment

    def to_dict(self) -> dict[str, str | None]:
        """Plain data (for a batch's journal): what ``dataclasses.asdict`` gives, without its deep copies."""
        return {name: getattr(self, name) for name in _FIELDS}

    @classmethod
    def from_dict(cls, data: dict | None) -> LedgerFacts:
        """Inverse of :meth:`to_dict`; empty facts for ``None`` (a journal entry written without them)."""
        return cls(**data) if data else cls()


_FIELDS = tuple(field.name for field in fields(LedgerFacts))


def ledger_facts(facts: Documento | Anulacion | None, root: etree._Element | None,
                 memo: dict | None = None) -> LedgerFacts:
    """The ledger facts of a read document (empty when it could not be read): ``facts`` (its header is enough) and
    ``root``, the tree they were read from, with the document's ``memo`` (its children indexes are shared)."""
    if isinstance(facts, Anulacion):
        return LedgerFacts(documento_anulado=_value(facts.numero_documento_a_anular))
    if not isinstance(facts, Documento):
        return LedgerFacts()
    return LedgerFacts(
        nombre_emisor=_value(facts.emisor.nombre) if facts.emisor else None,
        nombre_receptor=_value(facts.receptor.nombre) if facts.receptor else None,
        otros_impuestos=decimal_str(other_taxes(root, {} if memo is None else memo)) if root is not None else None,
    )


def other_taxes(root: etree._Element, memo: dict) -> Decimal | None:
    """The sum of the lines' taxes other than IVA, read as the facts of the lines read them (the first element of
    each name on the way to the lines, each line's first ``dte:Impuestos``); ``None`` when the document has no lines,
    or one of those amounts is missing or cannot be read."""
    parent = root
    for tag in _EMISION_PATH:
        found = children_by_tag(parent, memo).get(tag)
        if not found:
            return None
        parent = found[0]
    items = children_by_tag(parent, memo).get(_ITEM)
    if not items:
        return None
    amounts = []
    for item in items:
        groups = children_by_tag(item, memo).get(_IMPUESTOS)
        for tax in children_by_tag(groups[0], memo).get(_IMPUESTO, ()) if groups else ():
            children = children_by_tag(tax, memo)
            name = children.get(_NOMBRE_CORTO)
            if name is not None and (name[0].text or "").strip(XML_SPACE).strip() == "IVA":
                continue
            amount = children.get(_MONTO_IMPUESTO)
            value = parse_decimal((amount[0].text or "").strip(XML_SPACE)) if amount else None
            if value is None:
                return None
            amounts.append(value)
    if not amounts:
        return Decimal(0)
    with localcontext(MONEY_CONTEXT):
        return sum(amounts, Decimal(0))


def _value(field) -> str | None:
    return field.value if field is not None else None
