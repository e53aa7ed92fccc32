"""The issue report: the one structure every output (JSON, text, SARIF, MCP, PDF) is made from.

A report is deterministic: issues are sorted, Decimals are strings, and everything volatile
(time, duration, engine version) lives in :class:`RunInfo` so snapshots can leave it out.

The types are frozen stdlib dataclasses (:class:`~fel_rules.core.record.Record`): making a report imports
nothing heavy. A report read back from
JSON (:meth:`Report.from_json`) and the JSON Schema (:func:`report_json_schema`) go through pydantic,
imported only then; ``__pydantic_config__`` tells it to refuse unknown keys.
"""

from __future__ import annotations

import json
import sys
from dataclasses import field, fields
from enum import Enum
from typing import Any, Literal, TypeVar

from .jsontext import indented_json
from .printable import escape_controls
from .record import Record

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
    "report_json_schema",
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


#: What pydantic is told when it reads a report back or writes its schema (it is never imported to make one).
_PYDANTIC: dict[str, Any] = {"extra": "forbid"}


_T = TypeVar("_T")


class Refs(Record):
    """Where a rule comes from: SAT's rule code and the law or regulation."""

    __pydantic_config__ = _PYDANTIC

    sat_code: str | None = None
    law: str | None = None


class Location(Record):
    """Where an issue points: XPath and line in the XML, item number and field name."""

    __pydantic_config__ = _PYDANTIC

    xpath: str | None = None
    line: int | None = None
    item: int | None = None
    field: str | None = None


_DETAIL = ("What a library said in its own words (an XML parser, the schema validator), for whoever reports a "
           "problem; the message says it in the report's language. Left out when there is none.")


def _describe_detail(schema: dict[str, Any], kind: type) -> None:
    """The JSON Schema of :class:`Issue` says what ``detail`` is (before its title, where pydantic puts it)."""
    detail = schema["properties"]["detail"]
    title = detail.pop("title")
    detail.update(description=_DETAIL, title=title)


_NO_REFS = Refs()
_NOWHERE = Location()


class Issue(Record):
    """One finding about a document, already rendered in the report's language."""

    __pydantic_config__ = {**_PYDANTIC, "json_schema_extra": _describe_detail}

    rule_id: str
    severity: Severity
    stage: StageName
    title: str
    message: str
    hint: str | None = None
    refs: Refs = _NO_REFS
    location: Location = _NOWHERE
    expected: str | None = None
    actual: str | None = None
    difference: str | None = None
    detail: str | None = None  # see _DETAIL

    def __post_init__(self) -> None:
        if not isinstance(self.severity, Severity):  # "error" given as text, as the JSON says it
            object.__setattr__(self, "severity", Severity(self.severity))
        # messages embed document values: their control characters are written visibly (no spoofed lines),
        # whoever makes the issue
        for name in ("message", "hint", "detail"):
            text = getattr(self, name)
            if text:
                printable = escape_controls(text)
                if printable is not text:
                    object.__setattr__(self, name, printable)

    def sort_key(self) -> tuple:
        """Issues sort by (stage, line, rule_id, xpath)."""
        line = self.location.line if self.location.line is not None else -1
        return (_STAGE_ORDER[self.stage], line, self.rule_id, self.location.xpath or "", self.message)

    def to_dict(self) -> dict[str, Any]:
        """The issue as plain JSON data (``detail`` left out when there is none)."""
        data = dict(vars(self))
        data["severity"] = self.severity.value
        data["refs"] = dict(vars(self.refs))
        data["location"] = dict(vars(self.location))
        if self.detail is None:
            del data["detail"]
        return data


class DocumentSummary(Record):
    """Identity of the validated document (whatever could be read of it)."""

    __pydantic_config__ = _PYDANTIC

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


class SchemaInfo(Record):
    """The schema set a document was checked against."""

    __pydantic_config__ = _PYDANTIC

    set: str | None = None
    sha256: str | None = None


class RulesetRef(Record):
    """A rule set that ran (id and version)."""

    __pydantic_config__ = _PYDANTIC

    id: str
    version: str


class Stage(Record):
    """One pipeline stage and how it ended."""

    __pydantic_config__ = _PYDANTIC

    name: StageName
    status: StageStatus


class Counts(Record):
    """Number of issues per severity."""

    __pydantic_config__ = _PYDANTIC

    error: int = 0
    warning: int = 0
    info: int = 0

    def to_dict(self) -> dict[str, int]:
        """``{"error": …, "warning": …, "info": …}``."""
        return {"error": self.error, "warning": self.warning, "info": self.info}


class Totals(Record):
    """Document totals as strings: taxable subtotal, IVA, and GranTotal."""

    __pydantic_config__ = _PYDANTIC

    subtotal: str | None = None
    iva: str | None = None
    total: str | None = None


class RunInfo(Record):
    """Volatile facts about one run; excluded from snapshots."""

    __pydantic_config__ = _PYDANTIC

    engine_version: str
    started_at: str
    duration_ms: float
    lang: str
    profile: str | None = None
    as_of: str | None = None


class Report(Record):
    """The result of validating one document."""

    __pydantic_config__ = _PYDANTIC

    report_version: int = REPORT_VERSION
    valid: bool
    complete: bool
    document: DocumentSummary
    schema: SchemaInfo = SchemaInfo()
    rulesets: list[RulesetRef] = field(default_factory=list)
    stages: list[Stage]
    counts: Counts
    totals: Totals = Totals()
    issues: list[Issue] = field(default_factory=list)
    run: RunInfo | None = None

    @property
    def schema_(self) -> SchemaInfo:
        """:attr:`schema` under the name it had when reports were pydantic models."""
        return self.schema

    def to_dict(self, *, include_run: bool = True) -> dict[str, Any]:
        """The report as plain JSON data (``run`` left out when ``include_run`` is false)."""
        data: dict[str, Any] = {
            "report_version": self.report_version,
            "valid": self.valid,
            "complete": self.complete,
            "document": dict(vars(self.document)),
            "schema": dict(vars(self.schema)),
            "rulesets": [dict(vars(ruleset)) for ruleset in self.rulesets],
            "stages": [dict(vars(stage)) for stage in self.stages],
            "counts": self.counts.to_dict(),
            "totals": dict(vars(self.totals)),
            "issues": [issue.to_dict() for issue in self.issues],
        }
        if include_run:
            data["run"] = None if self.run is None else dict(vars(self.run))
        return data

    def to_json(self, *, include_run: bool = True, indent: int | None = 2) -> str:
        """The report as JSON text (UTF-8, keys in a fixed order): ``json.dumps(self.to_dict(…),
        ensure_ascii=False, indent=indent)``, written faster when indented by 2."""
        data = self.to_dict(include_run=include_run)
        if indent != 2:
            return json.dumps(data, ensure_ascii=False, indent=indent)
        core = sys.modules.get("pydantic_core")
        if core is not None and not include_run:  # a batch has it loaded: the same text (no float in it), faster
            return core.to_json(data, indent=2).decode()
        return indented_json(data)

    @classmethod
    def from_json(cls: type[_T], text: str | bytes) -> _T:
        """The report ``text`` holds (as :meth:`to_json` writes it), validated by pydantic: a
        ``pydantic.ValidationError`` (a ``ValueError``) for anything else."""
        return _adapter(cls).validate_json(text)

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


_ADAPTERS: dict[type, Any] = {}


def _adapter(kind: type) -> Any:
    """pydantic's validator and schema writer for ``kind`` (pydantic imported on first use only)."""
    adapter = _ADAPTERS.get(kind)
    if adapter is None:
        from pydantic import TypeAdapter

        adapter = _ADAPTERS[kind] = TypeAdapter(kind)
    return adapter


def report_json_schema(kind: type = Report, *, mode: Literal["validation", "serialization"] = "validation") -> dict:
    """The JSON Schema of ``kind`` (a report type, or a dataclass extending one), as pydantic writes it; a list
    that defaults to empty says so (pydantic leaves out the default of a ``default_factory``)."""
    schema = _adapter(kind).json_schema(by_alias=True, mode=mode)
    for item in fields(kind):
        if item.default_factory is list:
            schema["properties"][item.name] = {"default": [], **schema["properties"][item.name]}
    return schema
