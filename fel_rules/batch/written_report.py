"""The one place a batch reads back a report it wrote (cross-document rules patch it; the page and ledger show it)."""

from __future__ import annotations

from pathlib import Path

from ..core.inputs import read_own
from ..core.report import Report

__all__ = ["read_report"]


def read_report(path: str | Path) -> Report:
    """The report in the file at ``path`` (``OSError`` when it cannot be read, ``ValueError`` when it is not one)."""
    return Report.from_json(read_own(path))
