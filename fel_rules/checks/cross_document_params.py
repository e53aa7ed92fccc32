"""Params of the batch check kinds (pydantic): validated when a rule file loads."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import Field

from .batch_input import Reference
from .kind_params import KindParams

__all__ = [
    "BatchParams", "CreditNoteTaxesParams", "DeadlineParams", "ExemptParams", "PhraseParams", "ReferenceParams",
    "ReferencedTypeParams", "SameAsReferencedParams",
]

_REFERENCE = Field(description="origin: the document a note, constancia or annulment refers to; "
                               "provisional: the provisional invoice (FACP) an export names.")


#: Values a document states that its referenced document must share (cross facts of either side).
OwnField = Literal["moneda", "nit_emisor", "id_receptor", "nit_certificador", "origin_dia"]
ReferencedField = Literal["moneda", "nit_emisor", "id_receptor", "nit_certificador", "dia"]


class BatchParams(KindParams):
    """What every batch rule says: where its issues point, and which one SAT code they cite."""

    at: str = Field(description="XPath of the element the rule's issues point to (it may start with a place).")
    cites: str | None = Field(default=None, description="The one SAT code the issues cite (default: the rule's).")


class ReferencedTypeParams(BatchParams):
    """Which referenced document, and the types it may have."""

    reference: Reference = _REFERENCE
    types: list[str] = Field(min_length=1, description="DTE types the referenced document may have.")


class SameAsReferencedParams(BatchParams):
    """Which referenced document, and which of its values this document must repeat."""

    reference: Reference = _REFERENCE
    field: OwnField = Field(description="This document's value (origin_dia: the origin's emission date it states).")
    referenced_field: ReferencedField = Field(description="The referenced document's value (dia: its emission date).")


class CreditNoteTaxesParams(BatchParams):
    """The SAT code each tax's excess cites."""

    tax_codes: dict[str, str] = Field(default_factory=dict, description="NombreCorto → SAT code (other taxes: none).")


class ReferenceParams(BatchParams):
    """Which referenced document."""

    reference: Reference = _REFERENCE


class DeadlineParams(BatchParams):
    """Business days the final invoice has from its provisional one."""

    business_days: int = Field(ge=1, description="Days, Monday to Friday without the holidays of "
                                                 "rules/data/feriados-gt.yaml.")


class PhraseParams(BatchParams):
    """Which referenced document, and the phrase it must carry."""

    reference: Reference = _REFERENCE
    phrase: str = Field(pattern=r"^\d+-\d+$", description="TipoFrase-CodigoEscenario, e.g. 4-11.")


class ExemptParams(BatchParams):
    """The origin's tax that bounds MontoIVAExento, and the tolerance."""

    tax: str = Field(description="NombreCorto of the origin's tax total.")
    tolerance: Decimal = Field(ge=0, description="How much above the origin's tax is still accepted.")
