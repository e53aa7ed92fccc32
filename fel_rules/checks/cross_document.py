"""Batch check kinds: what only a batch can see — a repeated authorization number, a note against its
origin document, an annulment against the annulled document, an export against its provisional invoice,
constancias. Rules using them declare ``scope: batch`` (``rules/lote.yaml``) and run only in
``fel-rules batch``. A kind decides only on what the batch holds: a referenced document that is not in it
(or is in it twice) is never reported.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from itertools import islice
from typing import TYPE_CHECKING, ClassVar

from ..core.money import Amount, parse_decimal
from ..expressions.holidays import nth_business_day
from .base import Finding, RuleEnv
from .batch_input import BatchInput, iso_day
from .plain import ParamsOf, plain
from .registry import check_kind

if TYPE_CHECKING:
    from .cross_document_params import (
        BatchParams,
        CreditNoteTaxesParams,
        DeadlineParams,
        ExemptParams,
        PhraseParams,
        ReferencedTypeParams,
        ReferenceParams,
        SameAsReferencedParams,
    )

__all__ = [
    "AnnulledOnceCheck", "CreditNoteTaxesCheck", "CreditNoteTotalCheck", "ExemptWithinOriginTaxCheck",
    "FinalInvoiceDeadlineCheck", "NoActiveConstanciaCheck", "ReferencedNotAnnulledCheck", "ReferencedPhraseCheck",
    "ReferencedTypeCheck", "RepeatedAuthorizationCheck", "SameAsReferencedCheck",
]

class _BatchKind:
    """Shared by the batch kinds: they run over the batch, and their findings point at ``at``."""

    scope: ClassVar[str] = "batch"
    names: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, params: BatchParams, env: RuleEnv) -> None:
        self.params = plain(params)
        self.at = env.xpath(params.at, "at")

    def placeholders(self) -> set[str]:
        """The values the kind names in its findings."""
        return set(self.names)

    def finding(self, **values: object) -> Finding:
        """A finding pointing at the rule's element, citing its SAT code."""
        return Finding(xpath=self.at, values=values, sat_code=self.params.cites)


@check_kind("repeated_authorization")
class RepeatedAuthorizationCheck(_BatchKind):
    """The document's authorization number is in no other document of the batch (``{other}``: the first of
    them, and how many more)."""

    Params = ParamsOf("fel_rules.checks.cross_document_params:BatchParams")
    names = frozenset({"uuid", "other"})

    def check(self, doc: BatchInput) -> Iterator[Finding]:
        uuid = doc.facts.uuid
        if not uuid:
            return
        copies = doc.batch.copies(uuid)
        if len(copies) > 1:
            others = islice((other for other, _ in copies if other != doc.rel), doc.limit)  # linear in the copies
            yield self.finding(uuid=uuid.upper(), other=doc.some(list(others), len(copies) - 1))


@check_kind("referenced_type")
class ReferencedTypeCheck(_BatchKind):
    """The referenced document has one of ``types`` (``{tipo}``: its type)."""

    Params = ParamsOf("fel_rules.checks.cross_document_params:ReferencedTypeParams")
    params: ReferencedTypeParams
    names = frozenset({"other", "tipo"})

    def check(self, doc: BatchInput) -> Iterator[Finding]:
        referenced = doc.referenced(self.params.reference)
        if referenced is not None and referenced[1].tipo not in self.params.types:
            yield self.finding(other=referenced[0], tipo=referenced[1].tipo or "?")


@check_kind("same_as_referenced")
class SameAsReferencedCheck(_BatchKind):
    """The document's ``field`` equals the referenced document's ``referenced_field`` (ignoring case and
    surrounding blanks; a value missing on either side is not compared). ``{valor}``: this document's value,
    ``{origen}``: the referenced one's."""

    Params = ParamsOf("fel_rules.checks.cross_document_params:SameAsReferencedParams")
    params: SameAsReferencedParams
    names = frozenset({"other", "valor", "origen"})

    def check(self, doc: BatchInput) -> Iterator[Finding]:
        referenced = doc.referenced(self.params.reference)
        if referenced is None:
            return
        mine, theirs = getattr(doc.facts, self.params.field), getattr(referenced[1], self.params.referenced_field)
        if mine and theirs and mine.strip().upper() != theirs.strip().upper():
            yield self.finding(other=referenced[0], valor=mine, origen=theirs)


@check_kind("credit_note_total")
class CreditNoteTotalCheck(_BatchKind):
    """A credit note (not of the old regime) does not exceed its origin's GranTotal (``{nota}``, ``{origen}``)."""

    Params = ParamsOf("fel_rules.checks.cross_document_params:BatchParams")
    names = frozenset({"other", "nota", "origen"})

    def check(self, doc: BatchInput) -> Iterator[Finding]:
        referenced = doc.referenced("origin")
        if referenced is None or doc.facts.regimen_antiguo:
            return
        other, origin = referenced
        if _above(doc.facts.gran_total, origin.gran_total):
            yield self.finding(other=other, nota=_amount(doc.facts.gran_total), origen=_amount(origin.gran_total))


@check_kind("credit_note_taxes")
class CreditNoteTaxesCheck(_BatchKind):
    """A credit note (not of the old regime) does not exceed its origin's total of any tax (``{impuesto}``,
    ``{nota}``, ``{origen}``); each finding cites the SAT code of its tax."""

    Params = ParamsOf("fel_rules.checks.cross_document_params:CreditNoteTaxesParams")
    params: CreditNoteTaxesParams
    names = frozenset({"other", "impuesto", "nota", "origen"})

    def check(self, doc: BatchInput) -> Iterator[Finding]:
        referenced = doc.referenced("origin")
        if referenced is None or doc.facts.regimen_antiguo:
            return
        other, origin = referenced
        origin_taxes = dict(origin.tax_totals)
        for tax, amount in sorted(dict(doc.facts.tax_totals).items()):
            limit = origin_taxes.get(tax, "0")
            if _above(amount, limit):
                yield Finding(xpath=self.at, sat_code=self.params.tax_codes.get(tax, ""),
                              values={"other": other, "impuesto": tax, "nota": _amount(amount),
                                      "origen": _amount(limit)})


@check_kind("annulled_once")
class AnnulledOnceCheck(_BatchKind):
    """Every annulment of a document but the earliest (``{other}``, ``{fecha}``: the earliest one)."""

    Params = ParamsOf("fel_rules.checks.cross_document_params:BatchParams")
    names = frozenset({"other", "uuid", "fecha"})

    def check(self, doc: BatchInput) -> Iterator[Finding]:
        uuid = doc.facts.origin_uuid
        annulments = doc.batch.annulments_of(uuid) if doc.facts.anulacion and uuid else []
        if annulments and annulments[0][0] != doc.rel:
            first_rel, first = annulments[0]
            yield self.finding(other=first_rel, uuid=uuid, fecha=first.fecha or "?")


@check_kind("no_active_constancia")
class NoActiveConstanciaCheck(_BatchKind):
    """The origin document has no CIVA/CAIS in the batch that no annulment annuls (one finding per
    constancia: ``{other}``, ``{tipo}``)."""

    Params = ParamsOf("fel_rules.checks.cross_document_params:BatchParams")
    names = frozenset({"other", "uuid", "tipo"})

    def check(self, doc: BatchInput) -> Iterator[Finding]:
        uuid = doc.facts.origin_uuid
        for rel, constancia in doc.batch.active_constancias(uuid) if uuid else []:
            yield self.finding(other=rel, uuid=uuid, tipo=constancia.tipo)


@check_kind("referenced_not_annulled")
class ReferencedNotAnnulledCheck(_BatchKind):
    """No annulment in the batch annuls the referenced document (one finding per annulment)."""

    Params = ParamsOf("fel_rules.checks.cross_document_params:ReferenceParams")
    params: ReferenceParams
    names = frozenset({"other", "uuid"})

    def check(self, doc: BatchInput) -> Iterator[Finding]:
        uuid = doc.reference(self.params.reference)
        for annulment in doc.batch.annulled_by(uuid) if uuid else []:
            yield self.finding(other=annulment, uuid=uuid)


@check_kind("final_invoice_deadline")
class FinalInvoiceDeadlineCheck(_BatchKind):
    """An export invoice (Exp="SI") is issued within ``business_days`` of its provisional invoice (FACP):
    ``{valor}`` its day, ``{origen}`` the provisional's, ``{vence}`` the last day allowed."""

    Params = ParamsOf("fel_rules.checks.cross_document_params:DeadlineParams")
    params: DeadlineParams
    names = frozenset({"other", "valor", "origen", "vence"})

    def check(self, doc: BatchInput) -> Iterator[Finding]:
        referenced = doc.referenced("provisional")
        if referenced is None or referenced[1].tipo != "FACP" or not doc.facts.exp:
            return
        other, provisional = referenced
        issued, start = iso_day(doc.facts.dia), iso_day(provisional.dia)
        if issued and start:
            deadline = nth_business_day(start, self.params.business_days, doc.holidays)
            if issued > deadline:
                yield self.finding(other=other, valor=doc.facts.dia, origen=provisional.dia, vence=deadline.isoformat())


@check_kind("referenced_phrase")
class ReferencedPhraseCheck(_BatchKind):
    """The referenced document carries the phrase ``phrase``."""

    Params = ParamsOf("fel_rules.checks.cross_document_params:PhraseParams")
    params: PhraseParams
    names = frozenset({"other"})

    def check(self, doc: BatchInput) -> Iterator[Finding]:
        referenced = doc.referenced(self.params.reference)
        if referenced is not None and self.params.phrase not in referenced[1].frases:
            yield self.finding(other=referenced[0])


@check_kind("exempt_within_origin_tax")
class ExemptWithinOriginTaxCheck(_BatchKind):
    """A constancia's MontoIVAExento (``{valor}``) does not exceed the origin's total of ``tax`` (``{origen}``)
    by more than ``tolerance``."""

    Params = ParamsOf("fel_rules.checks.cross_document_params:ExemptParams")
    params: ExemptParams
    names = frozenset({"other", "valor", "origen"})

    def check(self, doc: BatchInput) -> Iterator[Finding]:
        referenced = doc.referenced("origin")
        if referenced is None:
            return
        other, origin = referenced
        limit = dict(origin.tax_totals).get(self.params.tax, "0")
        if _above(doc.facts.monto_iva_exento, limit, self.params.tolerance):
            yield self.finding(other=other, valor=_amount(doc.facts.monto_iva_exento), origen=_amount(limit))


def _amount(text: str | None) -> Amount | str:
    """An amount a message says as ``Q 1,911.50`` (a text that is not a number stays as written)."""
    number = parse_decimal(text)
    return Amount(number) if number is not None else (text or "")


def _above(amount: str | None, limit: str | None, tolerance: Decimal = Decimal(0)) -> bool:
    try:
        return amount is not None and limit is not None and Decimal(amount) > Decimal(limit) + tolerance
    except InvalidOperation:
        return False
