"""fel-rules: validate Guatemala's FEL electronic invoices (safe parse → XSD → YAML rules → report).

Typical use::

    from fel_rules import Validator
    report = Validator().validate_path("factura.xml")
    print(report.valid, report.counts)

This module is the public API: validation (:class:`Validator`, :class:`Config`), rendering
(:func:`render_file`, :func:`render_bytes`; :func:`warm_up_rendering` for a process with time to spare before its
first PDF), batches (:func:`run_batch` and the manifest it writes), the
report types and the errors. Everything else is internal. The names load on first use, so
``import fel_rules`` (or reading ``fel_rules.__version__``) is instant and pulls in neither pydantic
nor the schema engine.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from .core.version import __version__

if TYPE_CHECKING:
    from .batch import BatchCancelled, BatchError, BatchOptions, BatchResult, output_paths, run_batch
    from .batch.manifest import Entry, Manifest, Summary, first_error
    from .core.atomic import describe_os_error
    from .core.catalogue import render_text
    from .core.config import Config
    from .core.errors import (
        CheckKindError,
        FelRulesError,
        InputError,
        RenderError,
        RuleFileError,
        SchemaSetError,
    )
    from .core.report import (
        Counts,
        DocumentSummary,
        Issue,
        Location,
        Refs,
        Report,
        RulesetRef,
        RunInfo,
        SchemaInfo,
        Severity,
        Stage,
        Totals,
        report_json_schema,
    )
    from .core.text import Text
    from .engine import Validator
    from .outputs.formats.text import errors_in_brief
    from .outputs.render import RenderResult, RenderSettings, render_bytes, render_file, render_xml, warm_up_rendering
    from .ruleset.listing import RuleRow, list_rules, rules_listing

#: Where each public name lives (the package that re-exports it, or its defining module).
_HOMES = {
    "BatchCancelled": ".batch",
    "BatchError": ".batch",
    "BatchOptions": ".batch",
    "BatchResult": ".batch",
    "CheckKindError": ".core.errors",
    "Config": ".core.config",
    "Counts": ".core.report",
    "DocumentSummary": ".core.report",
    "Entry": ".batch.manifest",
    "FelRulesError": ".core.errors",
    "InputError": ".core.errors",
    "Issue": ".core.report",
    "Location": ".core.report",
    "Manifest": ".batch.manifest",
    "Refs": ".core.report",
    "RenderError": ".core.errors",
    "RenderResult": ".outputs.render",
    "RenderSettings": ".outputs.render",
    "Report": ".core.report",
    "RuleFileError": ".core.errors",
    "RuleRow": ".ruleset.listing",
    "RulesetRef": ".core.report",
    "RunInfo": ".core.report",
    "SchemaInfo": ".core.report",
    "SchemaSetError": ".core.errors",
    "Severity": ".core.report",
    "Stage": ".core.report",
    "Summary": ".batch.manifest",
    "Text": ".core.text",
    "Totals": ".core.report",
    "Validator": ".engine",
    "describe_os_error": ".core.atomic",
    "errors_in_brief": ".outputs.formats.text",
    "first_error": ".batch.manifest",
    "list_rules": ".ruleset.listing",
    "output_paths": ".batch",
    "render_bytes": ".outputs.render",
    "render_file": ".outputs.render",
    "render_text": ".core.catalogue",
    "render_xml": ".outputs.render",
    "report_json_schema": ".core.report",
    "rules_listing": ".ruleset.listing",
    "run_batch": ".batch",
    "warm_up_rendering": ".outputs.render",
}

__all__ = [
    "BatchCancelled",
    "BatchError",
    "BatchOptions",
    "BatchResult",
    "CheckKindError",
    "Config",
    "Counts",
    "DocumentSummary",
    "Entry",
    "FelRulesError",
    "InputError",
    "Issue",
    "Location",
    "Manifest",
    "Refs",
    "RenderError",
    "RenderResult",
    "RenderSettings",
    "Report",
    "RuleFileError",
    "RuleRow",
    "RulesetRef",
    "RunInfo",
    "SchemaInfo",
    "SchemaSetError",
    "Severity",
    "Stage",
    "Summary",
    "Text",
    "Totals",
    "Validator",
    "__version__",
    "describe_os_error",
    "errors_in_brief",
    "first_error",
    "list_rules",
    "output_paths",
    "render_bytes",
    "render_file",
    "render_text",
    "render_xml",
    "report_json_schema",
    "rules_listing",
    "run_batch",
    "warm_up_rendering",
]


def __getattr__(name: str) -> object:
    """Import a public name from its module the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'fel_rules' has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
