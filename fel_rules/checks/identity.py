"""Check kinds for Guatemalan identifiers: ``nit`` (mod-11 check digit) and ``cui`` (DPI)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal

from ..core.identifiers import cui_problem, nit_is_valid
from ..document.facts import Anulacion, Documento, Text
from .base import CheckInput, Finding, RuleEnv
from .plain import ParamsOf, plain
from .registry import check_kind

if TYPE_CHECKING:
    from .identity_params import CuiParams, NitParams

__all__ = ["CuiCheck", "NitCheck"]

Party = Literal["emisor", "receptor", "certificador"]


def _party_id(facts: Documento | Anulacion, party: Party) -> tuple[Text | None, Text | None]:
    """(identifier, TipoEspecial) of a party in either kind of document."""
    if isinstance(facts, Anulacion):
        if party == "emisor":
            return facts.nit_emisor, None
        if party == "receptor":
            return facts.id_receptor, None
    else:
        if party == "emisor":
            return (facts.emisor.nit if facts.emisor else None), None
        if party == "receptor" and facts.receptor:
            return facts.receptor.id, facts.receptor.tipo_especial
    if party == "certificador" and facts.certificacion:
        return facts.certificacion.nit_certificador, None
    return None, None


@check_kind("nit")
class NitCheck:
    """NIT check digit: weights n+1…2 over the body, r = (11 − Σ mod 11) mod 11, ``K`` for 10.

    A receptor identified by ``TipoEspecial`` (CUI or foreign id) is not a NIT and is skipped;
    an absent or empty value is left to the required-fields rule.
    """

    Params = ParamsOf("fel_rules.checks.identity_params:NitParams")

    def __init__(self, params: NitParams, env: RuleEnv) -> None:
        self.params = plain(params)
        self.allowed = {value.upper() for value in params.allow}

    def placeholders(self) -> set[str]:
        """``{value}``: the NIT as written."""
        return {"value"}

    def finds_nothing(self, doc: CheckInput) -> bool:
        """Whether :meth:`check` certainly finds nothing in ``doc`` (what a rule plan's function asks)."""
        value, tipo_especial = _party_id(doc.brief, self.params.party)
        if value is None or not value.value.strip() or tipo_especial is not None:
            return True
        return value.value.strip().upper() in self.allowed or nit_is_valid(value.value)

    def check(self, doc: CheckInput) -> Iterator[Finding]:
        value, tipo_especial = _party_id(doc.brief, self.params.party)
        if value is None or not value.value.strip() or tipo_especial is not None:
            return
        if value.value.strip().upper() in self.allowed or nit_is_valid(value.value):
            return
        yield Finding(
            xpath=value.xpath, line=value.line, field=value.xpath.rsplit("/", 1)[-1].lstrip("@"),
            values={"value": value.value},
        )


_ASPECT_PROBLEMS = {
    "format": {"not_numeric", "length"},
    "check_digit": {"check_digit"},
    "place": {"department", "municipality"},
}


@check_kind("cui")
class CuiCheck:
    """CUI/DPI of a receptor with ``TipoEspecial="CUI"``: 13 digits ``NNNNNNNNV DD MM``,
    V = Σ dᵢ·(i+2) mod 11 over the first eight digits, DD a department, MM one of its municipalities."""

    Params = ParamsOf("fel_rules.checks.identity_params:CuiParams")

    def __init__(self, params: CuiParams, env: RuleEnv) -> None:
        self.params = plain(params)
        self.problems = _ASPECT_PROBLEMS[params.aspect]

    def placeholders(self) -> set[str]:
        """``{value}``: the CUI as written."""
        return {"value"}

    def finds_nothing(self, doc: CheckInput) -> bool:
        """Whether :meth:`check` certainly finds nothing in ``doc`` (what a rule plan's function asks)."""
        value, tipo_especial = _party_id(doc.brief, "receptor")
        if value is None or tipo_especial is None or tipo_especial.value != "CUI":
            return True
        return cui_problem(value.value) not in self.problems

    def check(self, doc: CheckInput) -> Iterator[Finding]:
        value, tipo_especial = _party_id(doc.brief, "receptor")
        if value is None or tipo_especial is None or tipo_especial.value != "CUI":
            return
        problem = cui_problem(value.value)
        if problem in self.problems:
            yield Finding(xpath=value.xpath, line=value.line, field="IDReceptor", values={"value": value.value})
