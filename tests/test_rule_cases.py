"""Runs every rule's YAML test cases (rules/tests/*.yaml) and snapshots each case's report (each document's,
for a case of a batch rule)."""

from __future__ import annotations

import pytest

from fel_rules.authoring.rule_cases import load_case_file, run_case

from .conftest import RULES, report_data

CASE_DIR = RULES / "tests"


def _cases():
    for path in sorted(CASE_DIR.glob("*.yaml")):
        case_file = load_case_file(path)
        for case in case_file.cases:
            yield pytest.param(case_file, case, id=f"{case_file.rule}-{case.name}")


@pytest.mark.parametrize(("case_file", "case"), list(_cases()))
def test_rule_case(validator, snapshot_json, case_file, case):
    result = run_case(validator, case_file, case, CASE_DIR)
    assert not result.crashed, [i.message for i in result.report.issues if i.stage == "engine"]
    assert result.passed, f"expected {case.expect!r}; the rules reported {sorted(result.fired_ids)}"
    reports = {name: report_data(report) for name, report in result.reports.items()}
    assert (reports if case.documents else report_data(result.report)) == snapshot_json


def test_every_rule_has_a_case_file_with_pass_and_fail(validator):
    covered = {load_case_file(path).rule for path in CASE_DIR.glob("*.yaml")}
    rule_ids = {rule.id for rule in validator.catalog.rules}
    assert rule_ids - covered == set(), "rules without test cases"
    assert covered - rule_ids == set(), "test cases for rules that do not exist"
