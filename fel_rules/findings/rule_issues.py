"""How a rule's finding becomes an issue: the rule's texts in the report's language, filled with the
finding's values. The engine (one document) and the batch (cross-document rules) both use it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.report import Issue, Location, Refs, Severity
from .templates import render_template

if TYPE_CHECKING:
    from ..checks.base import Finding
    from ..ruleset.model import RuleSpec

__all__ = ["rule_issue"]


def rule_issue(spec: RuleSpec, severity: Severity, finding: Finding, lang: str) -> Issue:
    """The issue of rule ``spec`` for ``finding``, with ``severity`` (the rule's, after any profile)."""
    english = lang == "en"
    values = {"item": "" if finding.item is None else str(finding.item), **finding.values}
    message = render_template(spec.message_en if english and spec.message_en else spec.message, values)
    hint = spec.hint_en if english and spec.hint_en else spec.hint
    sat_code = spec.refs.sat_code_text if finding.sat_code is None else finding.sat_code or None
    return Issue(
        rule_id=spec.id,
        severity=severity,
        stage="rules",
        title=spec.title_en if english and spec.title_en else spec.title,
        message=message,
        hint=render_template(hint, values) if hint else None,
        refs=Refs(sat_code=sat_code, law=spec.refs.law),
        location=Location(xpath=finding.xpath, line=finding.line, item=finding.item, field=finding.field),
        expected=finding.expected,
        actual=finding.actual,
        difference=finding.difference,
    )
