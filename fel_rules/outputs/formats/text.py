"""Linter-style text: ``file:line: severity RULE message``, each finding followed by its hint (what to fix),
then one verdict line per file and, for several files, a summary with the rules seen most. Findings below
``min_severity`` are left out of the listing (the verdict line still counts them). Every line is one line:
control characters in file names and messages are written visibly (``\\n``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ...core import catalogue
from ...core.printable import escape_controls
from ...core.report import Report, Severity
from ...core.text import Text

__all__ = ["TOP_RULES", "errors_in_brief", "render_text"]

#: How many rules the summary of several files names.
TOP_RULES = 5


def render_text(reports: Sequence[Report], *, lang: str = "es", min_severity: Severity = Severity.INFO,
                hints: bool = True) -> str:
    """Human-readable report lines for a terminal or a CI log."""
    from .json import summary

    def say(id: str, **values: object) -> str:
        return catalogue.render_text(Text(id, values), lang)

    lines: list[str] = []
    for report in reports:
        name = escape_controls(report.document.path or "<stdin>")  # a file name may hold a newline
        for issue in report.issues:
            if issue.severity.rank < min_severity.rank:
                continue
            where = f"{name}:{issue.location.line}" if issue.location.line else name
            lines.append(f"{where}: {say(f'report.severity.{issue.severity.value}')} {escape_controls(issue.rule_id)} "
                         f"{escape_controls(issue.message)}")
            if hints and issue.hint:
                lines.append(f"    {say('report.hint')}: {escape_controls(issue.hint)}")
        verdict = "unknown" if report.could_not_validate else ("valid" if report.valid else "invalid")
        counts = say("report.counts", **report.counts.to_dict())
        lines.append(f"{name}: {say(f'report.verdict.{verdict}')} ({counts})")
    if len(reports) > 1:
        lines.append(say("report.total", **summary(reports)))
        top = _top_rules(reports, min_severity)
        if top:
            lines.append(say("report.top_rules", rules=", ".join(f"{rule} ({count})" for rule, count in top)))
    return "\n".join(lines)


def _top_rules(reports: Sequence[Report], min_severity: Severity) -> list[tuple[str, int]]:
    """The rules that fired on most files (at ``min_severity`` or above), most first, ties by id."""
    counted = Counter(rule for report in reports
                      for rule in {i.rule_id for i in report.issues if i.severity.rank >= max(min_severity.rank, 1)})
    return sorted(counted.items(), key=lambda item: (-item[1], item[0]))[:TOP_RULES]


def errors_in_brief(report: Report, lang: str = "es", shown: int = 5) -> str:
    """The report's first ``shown`` errors in one sentence — ``FEL-TOT-03: El GranTotal es …; FEL-TOT-04: ….`` —
    and how many more there are (for a refusal to print: the command line's and the MCP server's)."""
    errors = [issue for issue in report.issues if issue.severity is Severity.ERROR]
    parts = [f"{issue.rule_id}: {issue.message.rstrip().removesuffix('.')}" for issue in errors[:shown]]
    if len(errors) > shown:
        parts.append(catalogue.render_text(Text.of("report.more_errors", count=len(errors) - shown), lang))
    return escape_controls("; ".join(parts) + ".") if parts else ""
