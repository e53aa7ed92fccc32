"""Rule files (YAML) and profiles: loading, validation with positions, and the loaded catalogue.

The models of rule files and profiles (:mod:`.model`: ``Effective``, ``Override``, ``ProfileFile``, ``RuleFile``,
``RuleSpec``, pydantic) are imported when first asked for: a catalogue read back from the cache never needs them.
"""

from typing import TYPE_CHECKING, Any

from .listing import RuleRow, list_rules, rules_listing
from .loaded import LoadedRule, RuleCatalog, Ruleset
from .loader import apply_profile, load_catalog, load_rule_file
from .spec import DTE_TYPES

if TYPE_CHECKING:
    from .model import Effective, Override, ProfileFile, RuleFile, RuleSpec

_MODELS = ("Effective", "Override", "ProfileFile", "RuleFile", "RuleSpec")

__all__ = [
    "DTE_TYPES",
    "Effective",
    "LoadedRule",
    "Override",
    "ProfileFile",
    "RuleCatalog",
    "RuleFile",
    "RuleRow",
    "RuleSpec",
    "Ruleset",
    "apply_profile",
    "list_rules",
    "load_catalog",
    "load_rule_file",
    "rules_listing",
]


def __getattr__(name: str) -> Any:
    """A model of :mod:`.model` (pydantic), imported when first asked for."""
    if name in _MODELS:
        from . import model

        return getattr(model, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
