"""The one definition of a verdict: counts, stage outcomes, ``valid`` and ``complete`` from the issues.

The engine decides with it when a document is validated; the batch decides with it again when
cross-document rules add issues to a finished report. No other code computes a verdict.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..core.record import build
from ..core.report import Counts, Issue, Report, Severity, Stage

__all__ = ["Verdict", "decide", "tally", "with_issues"]


class Verdict(tuple):
    """``(valid, complete)``."""

    __slots__ = ()

    def __new__(cls, valid: bool, complete: bool) -> Verdict:
        return super().__new__(cls, (valid, complete))

    @property
    def valid(self) -> bool:
        """Every stage passed and no issue is an error."""
        return self[0]

    @property
    def complete(self) -> bool:
        """Every stage ran to a conclusion (passed or failed): the verdict is conclusive."""
        return self[1]


#: The counts of no issues (records are immutable: one object serves every report without issues).
_NO_ISSUES = build(Counts, {"error": 0, "warning": 0, "info": 0})


def tally(issues: Iterable[Issue]) -> Counts:
    """Issues per severity."""
    error = warning = info = 0  # one pass over the issues
    for issue in issues:
        severity = issue.severity
        if severity == Severity.ERROR:
            error += 1
        elif severity == Severity.WARNING:
            warning += 1
        elif severity == Severity.INFO:
            info += 1
        else:
            raise ValueError(f"unknown severity: {severity!r}")
    if not (error or warning or info):
        return _NO_ISSUES
    return build(Counts, {"error": error, "warning": warning, "info": info})


def decide(stages: Iterable[Stage], counts: Counts) -> Verdict:
    """A document is valid when every stage passed and it has no error; complete when every stage concluded."""
    passed = complete = True
    for stage in stages:
        status = stage.status
        if status != "passed":
            passed = False
            if status != "failed":
                complete = False
    return Verdict(passed and counts.error == 0, complete)


def with_issues(report: Report, issues: Iterable[Issue]) -> Report:
    """The report with ``issues`` in place of its own: counts, the rules stage's outcome and the verdict follow."""
    issues = sorted(issues, key=Issue.sort_key)
    rules_failed = any(issue.stage == "rules" and issue.severity == Severity.ERROR for issue in issues)
    stages = [
        replace(stage, status="failed" if rules_failed else "passed")
        if stage.name == "rules" and stage.status in ("passed", "failed") else stage
        for stage in report.stages
    ]
    counts = tally(issues)
    verdict = decide(stages, counts)
    return replace(report, issues=issues, counts=counts, stages=stages, valid=verdict.valid, complete=verdict.complete)
