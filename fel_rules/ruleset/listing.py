"""The rules in force as a table: what ``fel-rules rules list`` prints and the MCP tool ``fel_rules`` returns.

A profile's overrides are applied as they stand on the given day (default: today): a rule it disables is
left out, and a rule it re-grades shows its new severity. The rows can be narrowed to an id prefix
(``FEL-IVA``) or a SAT code (``FEL_RCP361``), and are compact unless the detail is asked for.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import date

from ..core.catalogue import rule_entry, say
from ..core.record import Record
from .loaded import LoadedRule, RuleCatalog

__all__ = ["RuleRow", "list_rules", "rules_listing"]


class RuleRow(Record, kw_only=False):
    """One rule in force. ``sat_code``, ``applies_to``, ``document`` and ``scope`` are filled only with detail."""

    id: str
    severity: str
    title: str
    sat_code: str | None = None
    applies_to: list[str] | None = None
    document: str | None = None
    scope: str | None = None

    def to_dict(self, *, detail: bool = False) -> dict:
        """The row as JSON data: id, severity and title, and with ``detail`` the other fields too."""
        data = asdict(self)
        return data if detail else {key: data[key] for key in ("id", "severity", "title")}


def list_rules(catalog: RuleCatalog, *, lang: str = "es", day: date | None = None, id_prefix: str | None = None,
               sat_code: str | None = None) -> list[RuleRow]:
    """The rules of ``catalog`` in force on ``day`` under its profile, in catalogue order, titles in ``lang``;
    only those whose id starts with ``id_prefix`` (case-insensitive) or that cite ``sat_code``, when given."""
    day = day or date.today()
    rows = []
    for rule in catalog.rules:
        enabled, severity, _ = rule.resolved(day)
        if not enabled or not _selected(rule, id_prefix, sat_code):
            continue
        rows.append(RuleRow(
            id=rule.id, severity=severity.value, title=say(rule_entry(rule.spec).title, lang),
            sat_code=rule.spec.refs.sat_code_text,
            applies_to=sorted(rule.applies_to) if rule.applies_to else None,
            document=rule.document, scope=rule.scope,
        ))
    return rows


def _selected(rule: LoadedRule, id_prefix: str | None, sat_code: str | None) -> bool:
    if id_prefix and not rule.id.upper().startswith(id_prefix.strip().upper()):
        return False
    if sat_code:
        codes = rule.spec.refs.sat_code
        cited = codes if isinstance(codes, list) else [codes] if codes else []
        return sat_code.strip().upper() in {code.upper() for code in cited}
    return True


def rules_listing(catalog: RuleCatalog, rows: list[RuleRow], *, detail: bool = False) -> dict:
    """The listing as JSON data (``rules list --format json`` and the MCP tool ``fel_rules`` alike): how many rows
    and the rows; with ``detail`` also the profile and the rule sets."""
    data: dict = {}
    if detail:
        data["profile"] = catalog.profile
        data["rulesets"] = [{"id": ruleset.id, "version": ruleset.version} for ruleset in catalog.rulesets]
    data["count"] = len(rows)
    data["rules"] = [row.to_dict(detail=detail) for row in rows]
    return data
