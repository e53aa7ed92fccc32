"""The shape of rule files and profiles (pydantic), shared by the loader and ``rules/schema.json``.

Only the loader of rule files (:mod:`.reading`) and the schema use it: what it validates is kept as the plain
records of :mod:`.spec` (each model's ``plain()``).
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from ..core.report import Severity
from .spec import DTE_TYPES, EXPRESSION_KEYS, Change, Refs, Rule, Scope, Window

#: The words a rule or profile file may use for a severity: the reports' Spanish words, and the English ones.
SEVERITY_WORDS = {"error": "error", "advertencia": "warning", "informativo": "info", "información": "info",
                  "informacion": "info", "warning": "warning", "info": "info"}


def _severity_word(value: object) -> object:
    if not isinstance(value, str):
        return value
    word = SEVERITY_WORDS.get(value.strip().lower())
    if word is None:
        raise ValueError(f"severidad desconocida {value!r}: use error, advertencia o informativo")
    return word


#: A severity written as the reports write it (``advertencia``) or in English (``warning``).
SeverityWord = Annotated[Severity, BeforeValidator(_severity_word)]

__all__ = [
    "DTE_TYPES",
    "EXPRESSION_KEYS",
    "Defaults",
    "Effective",
    "Override",
    "ProfileFile",
    "ProfileHeader",
    "RuleFile",
    "RuleRefs",
    "RuleSpec",
    "RulesetHeader",
    "Scope",
]

RULE_ID_PATTERN = r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$"

class _Strict(BaseModel):
    # validators are built when a rule file is first validated: rules read back from the cache never need them
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)


class Effective(_Strict):
    """Dates between which a rule is in force (by the document's emission date)."""

    from_: date | None = Field(default=None, alias="from", description="First day the rule applies.")
    until: date | None = Field(default=None, description="Last day the rule applies.")

    def covers(self, day: date) -> bool:
        """True when ``day`` lies in the window."""
        return self.plain().covers(day)

    def plain(self) -> Window:
        """The window as a plain record."""
        return Window(from_=self.from_, until=self.until)


class RuleRefs(_Strict):
    """Sources of a rule."""

    sat_code: str | list[str] | None = Field(default=None, description="SAT rule code(s), e.g. FEL_RCP331.")
    law: str | None = Field(default=None, description="Law, regulation or SAT document.")
    url: str | None = None

    @property
    def sat_code_text(self) -> str | None:
        """SAT code(s) as one string."""
        return self.plain().sat_code_text

    def plain(self) -> Refs:
        """The sources as a plain record."""
        return Refs(sat_code=self.sat_code, law=self.law, url=self.url)


class RulesetHeader(_Strict):
    """Identity of a rule file."""

    id: str = Field(pattern=r"^[a-z][a-z0-9-]*$", description="Stable id of the rule set, e.g. fel-core.")
    version: str = Field(description="Version of the rule content (CalVer), e.g. 2026.11.0.")
    title: str
    title_en: str | None = None
    source: str | None = Field(default=None, description="Where the rules come from.")


class Defaults(_Strict):
    """Values every rule of the file inherits unless it sets its own."""

    severity: SeverityWord = Severity.ERROR
    applies_to: list[str] | None = None
    document: Literal["documento", "anulacion"] = "documento"
    effective: Effective | None = None
    scope: Scope = "document"


class RuleSpec(_Strict):
    """One rule as written in YAML (before its check kind is prepared)."""

    id: str = Field(pattern=RULE_ID_PATTERN, description="Stable id, e.g. FEL-IVA-01; never reused.")
    title: str = Field(min_length=1, description="Short Spanish title.")
    title_en: str | None = None
    severity: SeverityWord | None = None
    refs: RuleRefs = RuleRefs()
    message: str = Field(min_length=1, description="Spanish message; {placeholders} come from the check.")
    message_en: str | None = None
    hint: str | None = None
    hint_en: str | None = None
    applies_to: list[str] | None = Field(default=None, description="DTE types (DatosGenerales/@Tipo).")
    document: Literal["documento", "anulacion"] | None = None
    effective: Effective | None = None
    scope: Scope | None = Field(default=None, description="document: each document alone; batch: only in "
                                "fel-rules batch, with the other documents of the batch (a batch check kind).")
    enabled: bool = True
    tags: list[str] = []
    check: str = Field(default="expression", description="Check kind name.")
    params: dict[str, Any] = Field(default_factory=dict, description="Params of the check kind.")
    # expression kind, written at the top level
    context: str | None = Field(
        default=None, description="XPath of the nodes checked, one evaluation each; may start with a place of "
        "rules/data/lugares.yaml (emision, generales, emisor, receptor, frases, items, impuestos, totales, "
        "complementos, certificacion, firmas).")
    let: dict[str, Any] | None = None
    constants: dict[str, str | dict[str | int, str | int]] | None = Field(
        default=None, description="Named values, or tables key: value read with lookup(), that a profile may override.")
    when: str | None = None
    assert_: str | None = Field(default=None, alias="assert")
    expected: str | None = None
    actual: str | None = None
    at: str | None = None
    tolerance: str | None = None
    amounts: list[str] | None = Field(
        default=None, description="Constants or computed values the messages say as amounts (Q 2,500.00); values "
        "read from a money field (Precio, MontoImpuesto, GranTotal…) are amounts without being listed.")

    @field_validator("applies_to")
    @classmethod
    def _known_types(cls, value: list[str] | None) -> list[str] | None:
        if value is not None:
            unknown = [tipo for tipo in value if tipo not in DTE_TYPES]
            if unknown:
                raise ValueError(f"tipos de DTE desconocidos: {', '.join(unknown)}")
        return value

    def plain(self) -> Rule:
        """The rule as a plain record (what a loaded rule keeps)."""
        values = {name: getattr(self, name) for name in type(self).model_fields}
        values["refs"] = self.refs.plain()
        values["effective"] = self.effective.plain() if self.effective is not None else None
        return Rule(**values)


class RuleFile(_Strict):
    """A rule file: header, namespaces, defaults, rules (rules are checked one by one)."""

    schema_version: Literal[1]
    ruleset: RulesetHeader
    namespaces: dict[str, str] = {}
    defaults: Defaults = Defaults()
    rules: list[dict[str, Any]] = Field(min_length=1)


class Override(_Strict):
    """A profile's change to one rule; every change needs a reason."""

    severity: SeverityWord | None = None
    enabled: bool | None = None
    params: dict[str, Any] | None = None
    reason: str = Field(min_length=3, description="Why the rule is changed (kept in the profile).")
    until: date | None = Field(default=None, description="The override expires after this date.")

    def plain(self) -> Change:
        """The change as a plain record."""
        return Change(severity=self.severity, enabled=self.enabled, params=self.params, reason=self.reason,
                      until=self.until)


class ProfileHeader(_Strict):
    """Identity of a profile."""

    id: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    title: str
    title_en: str | None = None


class ProfileFile(_Strict):
    """A profile: overrides of severity, enablement and params, by rule id."""

    schema_version: Literal[1]
    profile: ProfileHeader
    overrides: dict[str, Override] = {}
