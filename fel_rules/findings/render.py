"""The one way a finding becomes an issue: the catalogue entry of its id, said in the report's language."""

from __future__ import annotations

from dataclasses import replace

from ..core.catalogue import MESSAGES, Catalogue, render_text, render_values, say
from ..core.money import Amount, format_money
from ..core.report import Issue, Location, Refs, Severity
from ..core.templates import render_template
from .model import Finding

__all__ = ["render_issue", "rule_issue"]


def render_issue(
    finding: Finding,
    lang: str = "es",
    catalogue: Catalogue = MESSAGES,
    *,
    severity: Severity | None = None,
    refs: Refs | None = None,
    rule_id: str | None = None,
    currency: str | None = None,
) -> Issue:
    """The issue that says ``finding`` in ``lang``, with the texts of the catalogue entry ``finding.id``.

    ``severity`` and ``refs`` replace the entry's (a profile's severity, the SAT code a check names; a
    finding's own ``sat_code`` has the last word);
    ``rule_id`` reports the issue under another id (a notice about rule X given in X's name). ``{item}`` is
    always available to templates: the finding's item number, or nothing. An :class:`~fel_rules.core.money.Amount`
    among the values is said as the PDF prints it, in ``currency`` (the document's; quetzales when unknown).
    """
    entry = catalogue.entry(finding.id)
    refs = entry.refs if refs is None else refs
    if finding.sat_code is not None:  # the one code this finding cites instead of the entry's ("": none)
        refs = replace(refs, sat_code=finding.sat_code or None)
    said = {name: _amounts(value, currency) for name, value in finding.values.items()}
    values = {"item": "" if finding.item is None else str(finding.item), **render_values(said, lang, catalogue)}
    return Issue(
        rule_id=rule_id or finding.id,
        severity=severity or entry.severity,
        stage=entry.stage,
        title=say(entry.title, lang),
        message=render_template(say(entry.message, lang), values),
        hint=_hint(finding, entry, values, lang, catalogue),
        refs=refs,
        location=Location(xpath=finding.xpath, line=finding.line, item=finding.item, field=finding.field),
        expected=finding.expected,
        actual=finding.actual,
        difference=finding.difference,
        detail=finding.detail,
    )


def _amounts(value: object, currency: str | None) -> object:
    """``value`` with each amount in it said as an amount (``Q 60,000.00``), every decimal kept."""
    if isinstance(value, Amount):
        return format_money(value.value, currency, exact=True)
    if isinstance(value, list):
        return [_amounts(item, currency) for item in value]
    return value


def _hint(finding: Finding, entry, values: dict[str, str], lang: str, catalogue: Catalogue) -> str | None:
    """The finding's own hint when it has one, else the entry's."""
    if finding.hint is not None:
        return render_text(finding.hint, lang, catalogue)
    return render_template(say(entry.hint, lang), values) if entry.hint else None


def rule_issue(
    rule_id: str, finding: Finding, lang: str = "es", catalogue: Catalogue = MESSAGES, *,
    severity: Severity | None = None, currency: str | None = None,
) -> Issue:
    """The issue of rule ``rule_id`` for a finding its check yielded (``catalogue`` must hold the rule: see
    :meth:`Catalogue.with_rules`); ``severity`` is the rule's resolved one (a profile may change it); ``currency``
    the document's, for the amounts its message says."""
    return render_issue(replace(finding, id=rule_id), lang, catalogue, severity=severity, currency=currency)
