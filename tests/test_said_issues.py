"""Issues made once for plain findings: the same report as made anew, never two values said one way."""

from __future__ import annotations

import re
from decimal import Decimal

from fel_rules import Validator
from fel_rules.findings.model import Finding
from fel_rules.findings.render import render_issue
from fel_rules.findings.reuse import SaidIssues
from fel_rules.testing.builder import Invoice, Item


def _counting(said: SaidIssues, finding: Finding, extra: tuple = ()) -> tuple[object, int]:
    made = []

    def make():
        made.append(1)
        return render_issue(finding)

    return said.issue(finding, extra, make), len(made)


def test_a_plain_finding_is_said_once_and_the_same_way():
    said = SaidIssues()
    finding = Finding(id="FEL-XML-08", values={"count": 3, "limit": 2})
    first, made = _counting(said, finding)
    again, made_again = _counting(said, Finding(id="FEL-XML-08", values={"count": 3, "limit": 2}))
    assert (made, made_again) == (1, 0)
    assert again is first and again == render_issue(finding)


def test_what_the_engine_adds_tells_issues_apart():
    said = SaidIssues()
    finding = Finding(id="FEL-XML-08", values={"count": 3, "limit": 2})
    _counting(said, finding, ("FEL-A", "error"))
    assert _counting(said, finding, ("FEL-A", "warning"))[1] == 1
    assert _counting(said, finding, ("FEL-B", "error"))[1] == 1


def test_values_equal_yet_said_differently_are_never_shared():
    said = SaidIssues()
    for values in ({"count": Decimal("1.0"), "limit": 2}, {"count": Decimal("1.00"), "limit": 2},
                   {"count": True, "limit": 2}, {"count": 1, "limit": 2}):
        issue, made = _counting(said, Finding(id="FEL-XML-08", values=values))
        assert made == 1
        assert issue == render_issue(Finding(id="FEL-XML-08", values=values))


def test_reports_match_with_fresh_validators():
    valid = Invoice(tipo="FACT", receptor_id="CF", items=[Item.goods("Clavos", cantidad="2", precio_unitario="10.00")])
    data = re.sub(rb"<dte:GranTotal>[^<]*<", b"<dte:GranTotal>1.00<", valid.to_xml())
    warm = Validator()
    warm.validate_bytes(data)
    again, fresh = warm.validate_bytes(data), Validator().validate_bytes(data)
    assert again.issues and again.issues == fresh.issues
    assert [i.to_dict() for i in again.issues] == [i.to_dict() for i in fresh.issues]
