"""Rule files (YAML) and profiles: loading, validation with positions, and the loaded catalogue."""

from .loaded import LoadedRule, RuleCatalog, Ruleset
from .loader import apply_profile, load_catalog, load_rule_file
from .model import DTE_TYPES, Effective, Override, ProfileFile, RuleFile, RuleSpec

__all__ = [
    "DTE_TYPES",
    "Effective",
    "LoadedRule",
    "Override",
    "ProfileFile",
    "RuleCatalog",
    "RuleFile",
    "RuleSpec",
    "Ruleset",
    "apply_profile",
    "load_catalog",
    "load_rule_file",
]
