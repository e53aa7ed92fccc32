"""Registry of check kinds: every kind registers with :func:`check_kind` (the built-ins when
:mod:`fel_rules.checks.builtin` is imported, which the package does), plug-ins through the entry-point
group ``fel_rules.checks`` (``name = "package.module:KindClass"``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from ..core.catalogue import error_texts
from ..core.errors import CheckKindError
from ..core.text import Text
from .base import CheckKind
from .plain import ParamsOf

__all__ = ["ENTRY_POINT_GROUP", "check_kind", "get_check_kind", "known_kinds", "registered_kinds"]

ENTRY_POINT_GROUP = "fel_rules.checks"

# Kinds take their own Params subclass, which the CheckKind protocol cannot express: classes are kept as type[Any].
_KINDS: dict[str, type[Any]] = {}
_Kind = TypeVar("_Kind", bound=type[Any])
_plugins_loaded = False


def check_kind(name: str) -> Callable[[_Kind], _Kind]:
    """Class decorator registering a check kind under ``name``."""

    def register(cls: _Kind) -> _Kind:
        _validate(name, cls, source=cls.__module__)
        existing = _KINDS.get(name)
        if existing is not None and existing is not cls:
            raise CheckKindError(
                f"El tipo de verificación '{name}' ya está registrado por {existing.__module__}",
                message_en=f"Check kind '{name}' is already registered by {existing.__module__}",
            )
        cls.name = name
        _KINDS[name] = cls
        return cls

    return register


def _validate(name: str, cls: type, *, source: str) -> None:
    if not isinstance(inspect.getattr_static(cls, "Params", None), ParamsOf):  # (a built-in's: imported on first use)
        _validate_params(name, cls, source=source)
    if not callable(getattr(cls, "check", None)):
        raise CheckKindError(
            f"{source}: el tipo '{name}' debe definir check(doc)",
            message_en=f"{source}: kind '{name}' must define check(doc)",
        )


def _validate_params(name: str, cls: type, *, source: str) -> None:
    from .kind_params import KindParams  # a plug-in's kind: its module has imported pydantic already

    params = getattr(cls, "Params", None)
    if not (isinstance(params, type) and issubclass(params, KindParams)):
        raise CheckKindError(
            f"{source}: el tipo '{name}' debe declarar Params (subclase de KindParams)",
            message_en=f"{source}: kind '{name}' must declare Params (a KindParams subclass)",
        )


def entry_points(group: str) -> Any:
    """The installed entry points of ``group`` (importlib.metadata loads only when a plug-in is looked for)."""
    from importlib.metadata import entry_points as installed

    return installed(group=group)


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in _KINDS:
            if entry.value.split(":")[0] == _KINDS[entry.name].__module__:
                continue
            raise CheckKindError(
                f"El complemento '{entry.value}' usa el nombre '{entry.name}', que ya pertenece a otro tipo",
                message_en=f"Plug-in '{entry.value}' uses the name '{entry.name}', which another kind already has",
            )
        try:
            cls = entry.load()
        except Exception as exc:  # noqa: BLE001 - a broken plug-in is reported by name
            reason = Text.of("plugin.missing_module", module=exc.name) if isinstance(exc, ModuleNotFoundError) \
                else Text("plugin.failed_import")
            raise CheckKindError(**error_texts(Text.of("plugin.not_loaded", name=entry.name, source=entry.value,
                                                       reason=reason)),
                                 detail=f"{type(exc).__name__}: {exc}") from exc
        _validate(entry.name, cls, source=entry.value)
        check_kind(entry.name)(cls)
    _plugins_loaded = True  # only once every plug-in loaded: a broken one is reported on every attempt


def get_check_kind(name: str) -> type[CheckKind]:
    """The kind registered as ``name`` (built-in or plug-in)."""
    if name not in _KINDS:
        _load_plugins()
    try:
        return _KINDS[name]
    except KeyError:
        known = ", ".join(sorted(_KINDS))
        raise CheckKindError(
            f"Tipo de verificación desconocido '{name}'; disponibles: {known}",
            message_en=f"Unknown check kind '{name}'; available: {known}",
        ) from None


def registered_kinds() -> dict[str, type[CheckKind]]:
    """Every known kind (built-ins and installed plug-ins), by name."""
    _load_plugins()
    return dict(sorted(_KINDS.items()))


def known_kinds() -> dict[str, type[CheckKind]]:
    """The kinds registered so far, by name: the built-ins, and the plug-ins once a rule asked for one."""
    return dict(sorted(_KINDS.items()))
