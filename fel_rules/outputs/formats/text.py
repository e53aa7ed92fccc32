"""Linter-style text: ``file:line: severity RULE message``, then one verdict line per file. Every line is
one line: control characters in file names and messages are written visibly (``\\n``)."""

from __future__ import annotations

from collections.abc import Sequence

from ...core.printable import escape_controls
from ...core.report import Report

__all__ = ["render_text"]

_LABELS = {
    "es": {"error": "error", "warning": "advertencia", "info": "info",
           "valid": "VÁLIDO", "invalid": "INVÁLIDO", "unknown": "NO SE PUDO VALIDAR",
           "counts": "errores: {error}, advertencias: {warning}, informativos: {info}",
           "total": "{files} archivos: {valid} válidos, {invalid} inválidos, {could_not_validate} sin validar"},
    "en": {"error": "error", "warning": "warning", "info": "info",
           "valid": "VALID", "invalid": "INVALID", "unknown": "COULD NOT VALIDATE",
           "counts": "errors: {error}, warnings: {warning}, info: {info}",
           "total": "{files} files: {valid} valid, {invalid} invalid, {could_not_validate} not validated"},
}


def render_text(reports: Sequence[Report], *, lang: str = "es") -> str:
    """Human-readable report lines for a terminal or a CI log."""
    from .json import summary

    labels = _LABELS["en" if lang == "en" else "es"]
    lines: list[str] = []
    for report in reports:
        name = escape_controls(report.document.path or "<stdin>")  # a file name may hold a newline
        for issue in report.issues:
            where = f"{name}:{issue.location.line}" if issue.location.line else name
            lines.append(f"{where}: {labels[issue.severity.value]} {escape_controls(issue.rule_id)} "
                         f"{escape_controls(issue.message)}")
        verdict = "unknown" if report.could_not_validate else ("valid" if report.valid else "invalid")
        counts = labels["counts"].format(**report.counts.model_dump())
        lines.append(f"{name}: {labels[verdict]} ({counts})")
    if len(reports) > 1:
        lines.append(labels["total"].format(**summary(reports)))
    return "\n".join(lines)
