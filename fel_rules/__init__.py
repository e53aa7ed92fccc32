"""fel-rules: validate Guatemala's FEL electronic invoices (safe parse → XSD → YAML rules → report).

Typical use::

    from fel_rules import Validator
    report = Validator().validate_path("factura.xml")
    print(report.valid, report.counts)
"""

from __future__ import annotations

__version__ = "0.1.0"

from .config import Config
from .engine import Validator
from .errors import CheckKindError, FelRulesError, InputError, RenderError, RuleFileError, SchemaSetError
from .report import Issue, Location, Report, Severity

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
