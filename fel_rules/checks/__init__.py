"""Check kinds: the Python vocabulary that YAML rules compose.

Built-in kinds: ``expression``, ``required``, ``nit``, ``cui``, ``signature``, and the batch kinds of
cross-document rules (:mod:`.cross_document`, ``scope: batch``). Third parties register more through the
entry-point group ``fel_rules.checks``.
"""

from . import builtin  # noqa: F401 - importing it registers the built-in kinds
from .base import (
    CheckError,
    CheckInput,
    CheckKind,
    Finding,
    KindParams,
    RuleEnv,
    Unreadable,
)
from .registry import ENTRY_POINT_GROUP, check_kind, get_check_kind, registered_kinds

__all__ = [
    "ENTRY_POINT_GROUP",
    "CheckError",
    "CheckInput",
    "CheckKind",
    "Finding",
    "KindParams",
    "RuleEnv",
    "Unreadable",
    "check_kind",
    "get_check_kind",
    "registered_kinds",
]
