"""The one definition of a verdict, shared by the engine and the batch's cross-document rules."""

from __future__ import annotations

import pytest

from fel_rules import Validator
from fel_rules.core.report import Issue, Severity, Stage
from fel_rules.findings.verdict import decide, tally, with_issues

from .conftest import EXAMPLES


def _issue(rule_id: str, severity: str, stage: str = "rules") -> Issue:
    return Issue(rule_id=rule_id, severity=Severity(severity), stage=stage, title="t", message="m")


def _stages(*statuses: str) -> list[Stage]:
    return [Stage(name=name, status=status) for name, status in zip(("xml", "schema", "rules"), statuses, strict=False)]


@pytest.mark.parametrize(("statuses", "errors", "expected"), [
    (("passed", "passed", "passed"), 0, (True, True)),
    (("passed", "passed", "failed"), 1, (False, True)),
    (("passed", "passed", "passed"), 1, (False, True)),  # an error outside the stages still invalidates
    (("passed", "passed", "error"), 0, (False, False)),  # a stage that could not conclude
    (("failed", "skipped", "skipped"), 1, (False, False)),
])
def test_a_document_is_valid_only_when_every_stage_passed_without_errors(statuses, errors, expected):
    counts = tally([_issue("X", "error")] * errors)
    assert tuple(decide(_stages(*statuses), counts)) == expected


def test_batch_issues_change_the_verdict_as_the_engine_would():
    report = Validator().validate_path(EXAMPLES / "factura-fact.xml")
    assert report.valid
    warned = with_issues(report, [*report.issues, _issue("FEL-LOT-99", "warning")])
    assert (warned.valid, warned.counts.warning) == (True, 1)
    failed = with_issues(report, [*report.issues, _issue("FEL-LOT-01", "error")])
    assert (failed.valid, failed.complete, failed.counts.error) == (False, True, 1)
    assert {s.name: s.status for s in failed.stages}["rules"] == "failed"
    assert with_issues(failed, report.issues) == report  # taking the issue away restores the verdict
