"""fel-rules: validate Guatemala's FEL electronic invoices (safe parse → XSD → YAML rules → report).

Typical use::

    from fel_rules import Validator
    report = Validator().validate_path("factura.xml")
    print(report.valid, report.counts)

The names below load on first use, so ``import fel_rules`` (or reading ``fel_rules.__version__``) is
instant and pulls in neither pydantic nor the schema engine.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from ._version import __version__

if TYPE_CHECKING:
    from .core.config import Config
    from .core.errors import (
        CheckKindError,
        FelRulesError,
        InputError,
        RenderError,
        RuleFileError,
        SchemaSetError,
    )
    from .core.report import Issue, Location, Report, Severity
    from .engine import Validator

_HOMES = {
    "CheckKindError": ".core.errors",
    "Config": ".core.config",
    "FelRulesError": ".core.errors",
    "InputError": ".core.errors",
    "Issue": ".core.report",
    "Location": ".core.report",
    "RenderError": ".core.errors",
    "Report": ".core.report",
    "RuleFileError": ".core.errors",
    "SchemaSetError": ".core.errors",
    "Severity": ".core.report",
    "Validator": ".engine",
}

__all__ = [
    "CheckKindError",
    "Config",
    "FelRulesError",
    "InputError",
    "Issue",
    "Location",
    "RenderError",
    "Report",
    "RuleFileError",
    "SchemaSetError",
    "Severity",
    "Validator",
    "__version__",
]


def __getattr__(name: str):
    """Import a public name from its module the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'fel_rules' has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
