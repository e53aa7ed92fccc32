"""Rule files (YAML) and profiles: loading, validation with positions, and the loaded catalogue."""

from .listing import RuleRow, list_rules, rules_listing
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
    "RuleRow",
    "RuleSpec",
    "Ruleset",
    "apply_profile",
    "list_rules",
    "load_catalog",
    "load_rule_file",
    "rules_listing",
]
