"""Issues already said, kept for the next document that yields the same finding.

A document's issue is made anew for every document: the catalogue entry looked up, its templates filled, the
record built. Many documents yield the very same finding (a pre-signature document, two signatures…), whose issue
is then a pure function of the finding and of what the engine adds (rule, severity, currency): it is made once
and shared (issues are immutable). Only findings of plain values are kept: text and whole numbers, never a
Decimal (``1.0 == 1.00`` is said two ways), a bool (``True == 1``), a translatable text or a hint of its own.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.report import Issue
from .model import Finding

__all__ = ["SaidIssues"]

#: Types a kept finding's fields and values may have: no two of their values are equal yet said differently.
_PLAIN = frozenset({str, int, type(None)})

#: Issues kept per validator; the table is emptied when it is full (a batch of varied documents).
_MAX_KEPT = 1024


class SaidIssues:
    """One validator's issues by the finding and the engine's additions they were made from (the language and the
    catalogue are the validator's, fixed)."""

    def __init__(self) -> None:
        self._kept: dict[tuple, Issue] = {}

    def issue(self, finding: Finding, extra: tuple, make: Callable[[], Issue]) -> Issue:
        """The issue ``make()`` gives for ``finding`` with ``extra`` (hashable: what else the issue depends on),
        made once for a finding of plain values."""
        key = _key(finding, extra)
        if key is None:
            return make()
        issue = self._kept.get(key)
        if issue is None:
            issue = make()
            if len(self._kept) >= _MAX_KEPT:
                self._kept.clear()
            self._kept[key] = issue
        return issue


def _key(finding: Finding, extra: tuple) -> tuple | None:
    """What ``finding``'s issue depends on, or ``None`` when a field or value is not plain."""
    if finding.hint is not None:
        return None
    fields = (finding.id, finding.xpath, finding.line, finding.item, finding.field, finding.expected,
              finding.actual, finding.difference, finding.sat_code, finding.detail)
    for field in fields:
        if type(field) not in _PLAIN:  # (an lxml "smart string" too: it would keep its element alive)
            return None
    values = finding.values
    for value in values.values():
        if type(value) not in _PLAIN:
            return None
    return (*fields, tuple(values.items()), *extra)
