"""Rules ready to run: a prepared check kind plus everything the engine needs to report (plain values only: the
rule cache stores them)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from functools import cached_property

from ..checks import CheckKind
from ..core.record import Record
from ..core.report import Severity
from ..expressions.catalogues import Catalogues
from .spec import Change, Rule, Scope, Window

__all__ = ["LoadedRule", "RuleCatalog", "Ruleset"]


class LoadedRule(Record):
    """A validated rule with its prepared check and where it was written."""

    spec: Rule
    check: CheckKind
    severity: Severity
    document: str
    applies_to: frozenset[str] | None
    effective: Window | None
    ruleset_id: str
    path: str
    line: int | None
    namespaces: dict[str, str] = field(default_factory=dict)
    scope: Scope = "document"
    places: dict[str, str] = field(default_factory=dict)
    override: Change | None = None
    overridden_check: CheckKind | None = None

    @property
    def id(self) -> str:
        """The rule id."""
        return self.spec.id

    def in_force(self, day: date) -> bool:
        """True when the rule's effective window covers ``day``."""
        return self.effective is None or self.effective.covers(day)

    def applies(self, document: str, tipo: str | None) -> bool:
        """True when the rule concerns this kind of document and DTE type."""
        if document != self.document:
            return False
        return self.applies_to is None or (tipo is not None and tipo in self.applies_to)

    def resolved(self, day: date) -> tuple[bool, Severity, CheckKind]:
        """(enabled, severity, check) after the profile override in force on ``day``."""
        enabled, severity, check = self.spec.enabled, self.severity, self.check
        override = self.override
        if override is not None and (override.until is None or day <= override.until):
            if override.enabled is not None:
                enabled = override.enabled
            if override.severity is not None:
                severity = override.severity
            if self.overridden_check is not None:
                check = self.overridden_check
        return enabled, severity, check

    def with_override(self, override: Change, check: CheckKind | None) -> LoadedRule:
        """A copy carrying a profile override."""
        return replace(self, override=override, overridden_check=check)


class Ruleset(Record):
    """The rules of one file."""

    id: str
    version: str
    title: str
    path: str
    rules: tuple[LoadedRule, ...]


@dataclass(frozen=True)
class RuleCatalog:
    """Every loaded rule set, plus the profile applied to them (if any)."""

    rulesets: tuple[Ruleset, ...]
    profile: str | None = None
    catalogues: Catalogues = field(default_factory=Catalogues)

    @property
    def rates(self) -> dict[tuple[str, str], object]:
        """Tax factor per (NombreCorto, CodigoUnidadGravable)."""
        return self.catalogues.rates  # type: ignore[return-value]

    @cached_property
    def rules(self) -> tuple[LoadedRule, ...]:
        """All rules in file order."""
        return tuple(rule for ruleset in self.rulesets for rule in ruleset.rules)

    @cached_property
    def document_rules(self) -> tuple[LoadedRule, ...]:
        """The rules that decide on one document (what the validator runs)."""
        return tuple(rule for rule in self.rules if rule.scope == "document")

    @cached_property
    def document_rulesets(self) -> tuple[Ruleset, ...]:
        """The rule sets with some rule that decides on one document (what a document's report names)."""
        return tuple(ruleset for ruleset in self.rulesets if any(rule.scope == "document" for rule in ruleset.rules))

    @cached_property
    def batch_rules(self) -> tuple[LoadedRule, ...]:
        """The rules that decide on a whole batch (what ``fel-rules batch`` adds: ``FEL-LOT-*``)."""
        return tuple(rule for rule in self.rules if rule.scope == "batch")

    def get(self, rule_id: str) -> LoadedRule | None:
        """The rule with ``rule_id``, if loaded."""
        return next((rule for rule in self.rules if rule.id == rule_id), None)
