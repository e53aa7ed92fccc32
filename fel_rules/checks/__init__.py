"""Check kinds: the Python vocabulary that YAML rules compose.

Built-in kinds: ``expression``, ``required``, ``nit``, ``cui``, ``signature``, and the batch kinds of
cross-document rules (:mod:`.cross_document`, ``scope: batch``). Third parties register more through the
entry-point group ``fel_rules.checks``. :class:`KindParams` (pydantic) is imported when first asked for.
"""

from typing import TYPE_CHECKING, Any

from . import builtin  # noqa: F401 - importing it registers the built-in kinds
from .base import (
    CheckError,
    CheckInput,
    CheckKind,
    Finding,
    PlainParams,
    RuleEnv,
    Unreadable,
    plain,
)
from .expression import PLAN_FUNCTION_AFTER, quiet_plan
from .registry import ENTRY_POINT_GROUP, check_kind, get_check_kind, registered_kinds

if TYPE_CHECKING:
    from .kind_params import KindParams

__all__ = [
    "ENTRY_POINT_GROUP",
    "PLAN_FUNCTION_AFTER",
    "CheckError",
    "CheckInput",
    "CheckKind",
    "Finding",
    "KindParams",
    "PlainParams",
    "RuleEnv",
    "Unreadable",
    "check_kind",
    "get_check_kind",
    "plain",
    "quiet_plan",
    "registered_kinds",
]


def __getattr__(name: str) -> Any:
    """:class:`~fel_rules.checks.kind_params.KindParams` (pydantic), imported when a plug-in asks for it."""
    if name == "KindParams":
        from .kind_params import KindParams

        return KindParams
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
