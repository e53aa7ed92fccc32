"""A rule as written in its file, as plain values: what a loaded rule keeps and the rule cache stores.

The rule files are validated by the pydantic models of :mod:`.model`; what they give is kept as these records
(frozen dataclasses, see :class:`~fel_rules.core.record.Record`; same names, same defaults), so that rules read
back from the cache need neither pydantic nor its models. :func:`as_written` gives a rule back as JSON data, the way
``rules show`` prints it.
"""

from __future__ import annotations

from dataclasses import MISSING, field, fields
from datetime import date
from enum import Enum
from typing import Any, Literal

from ..core.record import Record
from ..core.report import Severity

__all__ = ["DTE_TYPES", "EXPRESSION_KEYS", "Change", "Refs", "Rule", "Scope", "Window", "as_written"]

#: Values of DatosGenerales/@Tipo (GT_Documento 0.2.x, including types SAT later retired).
DTE_TYPES = (
    "FACT", "FCAM", "FPEQ", "FCAP", "FESP", "NABN", "RDON", "RECI", "NDEB", "NCRE", "FACA", "FCCA",
    "FAPE", "FCPE", "FAAE", "FCAE", "CIVA", "CAIS", "NEV", "RANT", "FACP", "FEPE", "FARP", "FCRP",
    "FPEC", "FCPC", "BIDP",
)

#: Keys of the ``expression`` kind that a rule may write at its top level.
EXPRESSION_KEYS = ("context", "let", "constants", "when", "assert", "expected", "actual", "at", "tolerance", "amounts")

#: What a rule decides on: one document (``fel-rules validate``) or a whole batch (``fel-rules batch``).
Scope = Literal["document", "batch"]


def _alias(name: str) -> dict:
    return {"alias": name}


class Window(Record):
    """Dates between which a rule is in force (by the document's emission date)."""

    from_: date | None = field(default=None, metadata=_alias("from"))
    until: date | None = None

    def covers(self, day: date) -> bool:
        """True when ``day`` lies in the window."""
        return (self.from_ is None or day >= self.from_) and (self.until is None or day <= self.until)


class Refs(Record):
    """Sources of a rule."""

    sat_code: str | list[str] | None = None
    law: str | None = None
    url: str | None = None

    @property
    def sat_code_text(self) -> str | None:
        """SAT code(s) as one string."""
        if isinstance(self.sat_code, list):
            return ", ".join(self.sat_code)
        return self.sat_code


class Change(Record):
    """A profile's change to one rule (its reason, and the day after which it no longer applies)."""

    severity: Severity | None = None
    enabled: bool | None = None
    params: dict[str, Any] | None = None
    reason: str
    until: date | None = None


class Rule(Record):
    """One rule as written in its file (before its check kind is prepared)."""

    id: str
    title: str
    title_en: str | None = None
    severity: Severity | None = None
    refs: Refs = Refs()
    message: str
    message_en: str | None = None
    hint: str | None = None
    hint_en: str | None = None
    applies_to: list[str] | None = None
    document: Literal["documento", "anulacion"] | None = None
    effective: Window | None = None
    scope: Scope | None = None
    enabled: bool = True
    tags: list[str] = field(default_factory=list)
    check: str = "expression"
    params: dict[str, Any] = field(default_factory=dict)
    context: str | None = None
    let: dict[str, Any] | None = None
    constants: dict[str, Any] | None = None
    when: str | None = None
    assert_: str | None = field(default=None, metadata=_alias("assert"))
    expected: str | None = None
    actual: str | None = None
    at: str | None = None
    tolerance: str | None = None
    amounts: list[str] | None = None


def as_written(record: Any) -> dict[str, Any]:
    """``record`` (a :class:`Rule`, :class:`Refs`…) as JSON data by the names of the rule file, without the fields
    left empty or at their default (nested records alike)."""
    data: dict[str, Any] = {}
    for each in fields(record):
        value = getattr(record, each.name)
        if value is None or value == _default(each):
            continue
        data[each.metadata.get("alias", each.name)] = _json(value)
    return data


def _default(each: Any) -> object:
    if each.default is not MISSING:
        return each.default
    if each.default_factory is not MISSING:
        return each.default_factory()
    return MISSING


def _json(value: object) -> object:
    if hasattr(value, "__dataclass_fields__"):
        return as_written(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(key): _json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json(item) for item in value]
    return value
