"""JSON output: one report object, or ``{"reports": […], "summary": {…}}`` for several files."""

from __future__ import annotations

import json as _json
from collections.abc import Sequence

from ...core.report import Report

__all__ = ["render_json", "summary"]


def summary(reports: Sequence[Report]) -> dict[str, int]:
    """How many files were valid, invalid, or could not be validated."""
    could_not = sum(1 for r in reports if r.could_not_validate)
    valid = sum(1 for r in reports if r.valid)
    return {"files": len(reports), "valid": valid, "invalid": len(reports) - valid - could_not,
            "could_not_validate": could_not}


def render_json(reports: Sequence[Report], *, single: bool) -> str:
    """The reports as indented JSON (Decimals are already strings)."""
    if single and len(reports) == 1:
        data: object = reports[0].to_dict()
    else:
        data = {"reports": [r.to_dict() for r in reports], "summary": summary(reports)}
    return _json.dumps(data, ensure_ascii=False, indent=2)
