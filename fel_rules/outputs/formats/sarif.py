"""SARIF 2.1.0 output, for code-scanning dashboards and editors."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ...core.report import Report
from ...core.version import __version__

__all__ = ["render_sarif"]

_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def render_sarif(reports: Sequence[Report]) -> str:
    """One SARIF run covering every report."""
    rules: dict[str, dict] = {}
    results = []
    for report in reports:
        uri = report.document.path or "stdin"
        for issue in report.issues:
            rules.setdefault(issue.rule_id, {
                "id": issue.rule_id,
                "shortDescription": {"text": issue.title},
                **({"properties": {"sat_code": issue.refs.sat_code}} if issue.refs.sat_code else {}),
            })
            location: dict = {"physicalLocation": {"artifactLocation": {"uri": uri}}}
            if issue.location.line:
                location["physicalLocation"]["region"] = {"startLine": issue.location.line}
            if issue.location.xpath:
                location["logicalLocations"] = [{"fullyQualifiedName": issue.location.xpath, "kind": "element"}]
            result = {
                "ruleId": issue.rule_id,
                "level": _LEVELS[issue.severity.value],
                "message": {"text": issue.message},
                "locations": [location],
            }
            extra = {k: v for k, v in (("expected", issue.expected), ("actual", issue.actual),
                                       ("difference", issue.difference)) if v is not None}
            if extra:
                result["properties"] = extra
            results.append(result)
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "fel-rules", "version": __version__,
                                "rules": [rules[key] for key in sorted(rules)]}},
            "results": results,
        }],
    }
    return json.dumps(sarif, ensure_ascii=False, indent=2)
