"""Exceptions raised for misuse of the engine (never for problems in a document).

Problems found in an invoice are data: they become issues in a :class:`~fel_rules.core.report.Report`.
Exceptions are reserved for things the caller must fix before validation can run::

    FelRulesError
     ├── RuleFileError        a rule or profile file is malformed (file, line, column, rule)
     ├── CheckKindError       a check kind is unknown, badly defined, or its plug-in fails to load
     ├── SchemaSetError       a schema folder cannot be read, patched or compiled
     ├── InputError           a path is missing, unreadable, or holds no XML
     └── RenderError          a document cannot be rendered (invalid, annulment, bad logo, unwritable output)
"""

from __future__ import annotations

from .text import say

__all__ = ["CheckKindError", "FelRulesError", "InputError", "RenderError", "RuleFileError", "SchemaSetError"]


class FelRulesError(Exception):
    """Root of every exception raised by fel_rules.

    ``message`` is Spanish (what users read first); ``message_en`` is its English version. ``detail`` keeps what
    a library said in its own words (an XML parser, YAML, pydantic), for whoever reports a problem: it is never
    the message.
    """

    def __init__(self, message: str, *, message_en: str | None = None, detail: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.message_en = message_en or message
        self.detail = detail

    def localized(self, lang: str = "es") -> str:
        """The message in ``lang`` (``es`` or ``en``)."""
        return say({"es": self.message, "en": self.message_en}, lang)


class RuleFileError(FelRulesError):
    """A rule or profile file cannot be loaded; names the file, line, column and rule."""

    def __init__(
        self,
        message: str,
        *,
        message_en: str | None = None,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        rule_id: str | None = None,
        detail: str | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.column = column
        self.rule_id = rule_id
        self.reason = message
        self.reason_en = message_en or message
        self.where = _where(path, line, column, rule_id).removesuffix(": ")
        where = _where(path, line, column, rule_id)
        super().__init__(f"{where}{message}", message_en=f"{where}{message_en or message}", detail=detail)

    def reason_in(self, lang: str = "es") -> str:
        """The problem in ``lang``, without where it is (:attr:`where`)."""
        return say({"es": self.reason, "en": self.reason_en}, lang)


class CheckKindError(FelRulesError):
    """A check kind is unknown, malformed, or failed to load from its entry point."""


class SchemaSetError(FelRulesError):
    """A schema folder cannot be read, patched or compiled."""


class InputError(FelRulesError):
    """A path given to validate is missing, unreadable, or contains no XML files."""


def _where(path: str | None, line: int | None, column: int | None, rule_id: str | None) -> str:
    parts = []
    if path:
        location = path
        if line is not None:
            location += f":{line}"
            if column is not None:
                location += f":{column}"
        parts.append(location)
    if rule_id:
        parts.append(f"[{rule_id}]")
    return (" ".join(parts) + ": ") if parts else ""


class RenderError(FelRulesError):
    """A document cannot be rendered; ``report`` is attached when validation refused it. ``reason`` says why in
    one word a caller can act on: ``invalid`` (printable with force), ``unreadable``, ``annulment``, ``layout``
    or ``write``."""

    def __init__(self, message: str, *, message_en: str | None = None, report: object | None = None,
                 reason: str | None = None, detail: str | None = None) -> None:
        super().__init__(message, message_en=message_en, detail=detail)
        self.report = report
        self.reason = reason
