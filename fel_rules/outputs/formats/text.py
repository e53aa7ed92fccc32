"""Linter-style text: ``file:line: severity RULE message``, then one verdict line per file. Every line is
one line: control characters in file names and messages are written visibly (``\\n``)."""

from __future__ import annotations

from collections.abc import Sequence

from ...core import catalogue
from ...core.printable import escape_controls
from ...core.report import Report
from ...core.text import Text

__all__ = ["render_text"]

def render_text(reports: Sequence[Report], *, lang: str = "es") -> str:
    """Human-readable report lines for a terminal or a CI log."""
    from .json import summary

    def say(id: str, **values: object) -> str:
        return catalogue.render_text(Text(id, values), lang)

    lines: list[str] = []
    for report in reports:
        name = escape_controls(report.document.path or "<stdin>")  # a file name may hold a newline
        for issue in report.issues:
            where = f"{name}:{issue.location.line}" if issue.location.line else name
            lines.append(f"{where}: {say(f'report.severity.{issue.severity.value}')} {escape_controls(issue.rule_id)} "
                         f"{escape_controls(issue.message)}")
        verdict = "unknown" if report.could_not_validate else ("valid" if report.valid else "invalid")
        counts = say("report.counts", **report.counts.model_dump())
        lines.append(f"{name}: {say(f'report.verdict.{verdict}')} ({counts})")
    if len(reports) > 1:
        lines.append(say("report.total", **summary(reports)))
    return "\n".join(lines)
