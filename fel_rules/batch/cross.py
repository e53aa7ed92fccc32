"""Cross-document rules in a batch: the catalogue's ``scope: batch`` rules (``rules/lote.yaml``), run over
every document of the batch and patched into its report.

Each rule runs like a document rule — in force by the document's date, enabled and with the severity its
profile gives it, its findings turned into issues by the engine's own :func:`rule_issue` — but its check
kind sees the whole batch (:mod:`fel_rules.checks.cross_document`). A rule keeps at most ``limit`` issues
per report, and one issue names at most ``limit`` other documents.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from datetime import date
from typing import Any

from ..checks.batch_input import BatchDocuments, BatchInput, CrossFacts, Doc, iso_day
from ..core.catalogue import MESSAGES, Catalogue
from ..core.report import Issue, Report, Severity
from ..findings.model import Finding
from ..findings.render import render_issue, rule_issue
from ..findings.verdict import with_issues
from ..ruleset import LoadedRule, RuleCatalog

__all__ = ["MAX_CROSS_FINDINGS", "cross_issues", "with_cross_issues"]

#: Issues one batch rule may add to one report, and documents one issue may name (BatchOptions.max_cross_findings).
MAX_CROSS_FINDINGS = 20


def cross_issues(documents: Iterable[Doc], catalog: RuleCatalog, *, lang: str = "es", limit: int = MAX_CROSS_FINDINGS,
                 as_of: date | None = None) -> dict[str, list[Issue]]:
    """Issues per input path (only paths that have some), from each document's cross facts: at most ``limit``
    per rule, then one information issue per rule that found more. ``as_of`` replaces each document's
    emission date to decide which rules and profile overrides are in force."""
    rules = catalog.batch_rules
    messages = MESSAGES.with_rules(rule.spec for rule in rules)
    batch = BatchDocuments(documents)
    found: dict[str, list[Issue]] = {}
    in_force: dict[tuple, list] = {}  # by (kind, tipo, day): documents of a batch share few
    for rel, facts in batch.documents if rules else ():
        doc = BatchInput(rel=rel, facts=facts, batch=batch, limit=limit, holidays=catalog.catalogues.holidays)
        issues, notices = [], []
        day = as_of or iso_day(facts.dia) or date.today()
        key = (facts.anulacion, facts.tipo, day)
        if key not in in_force:
            in_force[key] = list(_in_force(rules, facts, day))
        for rule, severity, check in in_force[key]:
            findings = list(check.check(doc))
            issues += [rule_issue(rule.id, finding, lang, messages, severity=severity, currency=facts.moneda)
                       for finding in findings[:limit]]
            if len(findings) > limit:
                notices.append(_left_out(rule.id, check.params.at, len(findings), lang, limit, messages))
        if issues:
            found[rel] = issues + notices
    return found


def _in_force(rules: Iterable[LoadedRule], facts: CrossFacts, day: date) -> Iterator[tuple[LoadedRule, Severity, Any]]:
    """(rule, severity, check) of the enabled rules that concern this document on ``day``."""
    kind = "anulacion" if facts.anulacion else "documento"
    for rule in rules:
        if rule.in_force(day) and rule.applies(kind, facts.tipo):
            enabled, severity, check = rule.resolved(day)
            if enabled:
                yield rule, severity, check


def _left_out(rule_id: str, at: str, count: int, lang: str, shown: int, messages: Catalogue) -> Issue:
    """The notice that rule ``rule_id`` found ``count`` problems in one report, of which ``shown`` are in it."""
    notice = Finding(id="FEL-ENG-04", xpath=at, values={"rule": rule_id, "count": count, "shown": shown})
    return render_issue(notice, lang, messages, rule_id=rule_id)


def with_cross_issues(report: Report, issues: list[Issue], rule_ids: Collection[str]) -> Report:
    """``report`` with its issues of the batch rules ``rule_ids`` (from an earlier run) replaced by ``issues``,
    and its counts, rules stage and verdict recomputed."""
    return with_issues(report, [i for i in report.issues if i.rule_id not in rule_ids] + issues)
