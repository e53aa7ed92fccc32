"""What a ledger or an overview of many documents reads of each beyond the report: the names of emisor and
receptor, the taxes other than IVA, and for an annulment the document it annuls.

The report's ``totals`` already hold the IVA base, the IVA and the GranTotal; :attr:`LedgerFacts.otros_impuestos`
is the sum of every other tax of the lines (IDP, timbre, turismo…), so that base + IVA + other taxes = GranTotal
on a consistent document.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from decimal import Decimal, localcontext

from ..core.money import MONEY_CONTEXT, decimal_str
from .facts import Anulacion, Documento

__all__ = ["LedgerFacts", "ledger_facts"]


@dataclass(frozen=True, slots=True)
class LedgerFacts:
    """Plain, picklable values (amounts as canonical decimal strings, ``None`` when absent or unreadable)."""

    nombre_emisor: str | None = None
    nombre_receptor: str | None = None
    otros_impuestos: str | None = None
    documento_anulado: str | None = None  # NumeroDocumentoAAnular of an annulment

    def to_dict(self) -> dict[str, str | None]:
        """Plain data (for a batch's journal)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict | None) -> LedgerFacts:
        """Inverse of :meth:`to_dict`; empty facts for ``None`` (a journal entry written without them)."""
        return cls(**data) if data else cls()


def ledger_facts(facts: Documento | Anulacion | None) -> LedgerFacts:
    """The ledger facts of a read document (empty when it could not be read)."""
    if isinstance(facts, Anulacion):
        return LedgerFacts(documento_anulado=_value(facts.numero_documento_a_anular))
    if not isinstance(facts, Documento):
        return LedgerFacts()
    return LedgerFacts(
        nombre_emisor=_value(facts.emisor.nombre) if facts.emisor else None,
        nombre_receptor=_value(facts.receptor.nombre) if facts.receptor else None,
        otros_impuestos=decimal_str(_other_taxes(facts)),
    )


def _other_taxes(facts: Documento) -> Decimal | None:
    """The sum of the lines' taxes other than IVA; ``None`` when a document without lines, or one of those
    amounts cannot be read."""
    if not facts.items:
        return None
    total = Decimal(0)
    with localcontext(MONEY_CONTEXT):
        for item in facts.items:
            for tax in item.impuestos:
                if tax.nombre_corto is not None and tax.nombre_corto.value.strip() == "IVA":
                    continue
                if tax.monto_impuesto is None or tax.monto_impuesto.value is None:
                    return None
                total += tax.monto_impuesto.value
    return total


def _value(field) -> str | None:
    return field.value if field is not None else None
