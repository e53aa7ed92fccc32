"""The issue report: the one structure every output (JSON, text, SARIF, MCP, PDF) is made from.

A report is deterministic: issues are sorted, Decimals are strings, and everything volatile
(time, duration, engine version) lives in :class:`RunInfo` so snapshots can leave it out.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .printable import escape_controls

__all__ = [
    "REPORT_VERSION",
    "Counts",
    "DocumentSummary",
    "Issue",
    "Location",
    "Refs",
    "Report",
    "RulesetRef",
    "RunInfo",
    "SchemaInfo",
    "Severity",
    "Stage",
    "StageName",
    "StageStatus",
    "Totals",
]

REPORT_VERSION = 1


class Severity(str, Enum):  # noqa: UP042 - a StrEnum would change str() and format() of members
    """How much an issue matters: only ``error`` makes a document invalid."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """2 for error, 1 for warning, 0 for info (for ``--fail-on`` comparisons)."""
        return {"error": 2, "warning": 1, "info": 0}[self.value]


StageName = Literal["xml", "schema", "rules", "engine"]
StageStatus = Literal["passed", "failed", "skipped", "error"]
_STAGE_ORDER = {"xml": 0, "schema": 1, "rules": 2, "engine": 3}


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Refs(_Frozen):
    """Where a rule comes from: SAT's rule code and the law or regulation."""

    sat_code: str | None = None
    law: str | None = None


class Location(_Frozen):
    """Where an issue points: XPath and line in the XML, item number and field name."""

    xpath: str | None = None
    line: int | None = None
    item: int | None = None
    field: str | None = None


class Issue(_Frozen):
    """One finding about a document, already rendered in the report's language."""

    rule_id: str
    severity: Severity
    stage: StageName
    title: str
    message: str
    hint: str | None = None
    refs: Refs = Refs()
    location: Location = Location()
    expected: str | None = None
    actual: str | None = None
    difference: str | None = None
    detail: str | None = Field(
        default=None, description="What a library said in its own words (an XML parser, the schema validator), "
        "for whoever reports a problem; the message says it in the report's language. Left out when there is none.")

    @field_validator("message", "hint", "detail")
    @classmethod
    def _printable(cls, text: str | None) -> str | None:
        """Messages embed document values: their control characters are written visibly (no spoofed lines)."""
        return escape_controls(text) if text else text

    def sort_key(self) -> tuple:
        """Issues sort by (stage, line, rule_id, xpath)."""
        line = self.location.line if self.location.line is not None else -1
        return (_STAGE_ORDER[self.stage], line, self.rule_id, self.location.xpath or "", self.message)


class DocumentSummary(_Frozen):
    """Identity of the validated document (whatever could be read of it)."""

    path: str | None = None
    sha256: str | None = None
    tipo: str | None = None
    numero_autorizacion: str | None = None
    serie: str | None = None
    numero: str | None = None
    fecha_emision: str | None = None
    nit_emisor: str | None = None
    id_receptor: str | None = None
    gran_total: str | None = None
    moneda: str | None = None
    certified: bool = False


class SchemaInfo(_Frozen):
    """The schema set a document was checked against."""

    set: str | None = None
    sha256: str | None = None


class RulesetRef(_Frozen):
    """A rule set that ran (id and version)."""

    id: str
    version: str


class Stage(_Frozen):
    """One pipeline stage and how it ended."""

    name: StageName
    status: StageStatus


class Counts(_Frozen):
    """Number of issues per severity."""

    error: int = 0
    warning: int = 0
    info: int = 0


class Totals(_Frozen):
    """Document totals as strings: taxable subtotal, IVA, and GranTotal."""

    subtotal: str | None = None
    iva: str | None = None
    total: str | None = None


class RunInfo(_Frozen):
    """Volatile facts about one run; excluded from snapshots."""

    engine_version: str
    started_at: str
    duration_ms: float
    lang: str
    profile: str | None = None
    as_of: str | None = None


class Report(_Frozen):
    """The result of validating one document."""

    report_version: int = REPORT_VERSION
    valid: bool
    complete: bool
    document: DocumentSummary
    schema_: SchemaInfo = Field(default=SchemaInfo(), alias="schema")
    rulesets: list[RulesetRef] = []
    stages: list[Stage]
    counts: Counts
    totals: Totals = Totals()
    issues: list[Issue] = []
    run: RunInfo | None = None

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    def to_dict(self, *, include_run: bool = True) -> dict:
        """The report as plain JSON data (``run`` left out when ``include_run`` is false)."""
        data = self.model_dump(mode="json", by_alias=True)
        if not include_run:
            data.pop("run", None)
        for issue in data["issues"]:  # a detail only where a library's words were kept
            if issue.get("detail") is None:
                issue.pop("detail", None)
        return data

    def to_json(self, *, include_run: bool = True, indent: int | None = 2) -> str:
        """The report as JSON text (UTF-8, keys in a fixed order)."""
        return json.dumps(self.to_dict(include_run=include_run), ensure_ascii=False, indent=indent)

    @property
    def could_not_validate(self) -> bool:
        """True when a stage ended in ``error`` (limits, I/O, engine failure): no verdict was reached."""
        return any(stage.status == "error" for stage in self.stages)

    def exit_code(self, fail_on: Severity = Severity.ERROR) -> int:
        """0 valid, 1 invalid (an issue at or above ``fail_on``), 2 could not validate."""
        if self.could_not_validate:
            return 2
        if not self.valid or any(issue.severity.rank >= fail_on.rank for issue in self.issues):
            return 1
        return 0
