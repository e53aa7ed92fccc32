"""One document as an overview of many shows it (the HTML page, the ledger): its report, the ledger facts read
beside it, its verdict, and where a batch put its outputs."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from ...core.report import Report
from ...document.ledger import LedgerFacts

__all__ = ["Listed", "Verdict", "verdict_of"]

#: ``unknown``: no verdict was reached (the file could not be read or processed).
Verdict = Literal["valid", "invalid", "unknown"]


def verdict_of(report: Report | None, error: str | None = None) -> Verdict:
    """The verdict of a report; ``unknown`` when it could not be validated or a batch could not process it."""
    if error is not None or report is None or report.could_not_validate:
        return "unknown"
    return "valid" if report.valid else "invalid"


@dataclass(frozen=True)
class Listed:
    """A document of an overview. ``path`` is the input as the user named it; ``report`` is ``None`` only when a
    batch could not process the file (``error`` says why). ``report_link`` and ``pdf_link`` are the outputs of a
    batch relative to its output folder (``pdf_note``: why there is no PDF; ``pdf_warnings``: what the reader of
    the PDF should know, such as characters its font could not draw)."""

    path: str
    report: Report | None
    facts: LedgerFacts = LedgerFacts()
    error: str | None = None
    report_link: str | None = None
    pdf_link: str | None = None
    pdf_note: str | None = None
    pdf_warnings: tuple[str, ...] = ()

    @cached_property
    def verdict(self) -> Verdict:
        """valid, invalid or unknown (worked out once: the page and the ledger ask for it several times)."""
        return verdict_of(self.report, self.error)
