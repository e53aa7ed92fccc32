"""A check kind's params after validation, as plain values: what a prepared check keeps and the rule cache stores.

A kind's ``Params`` (a :class:`~fel_rules.checks.kind_params.KindParams`, pydantic) validates a rule's params when
the rule file loads; the check then keeps :func:`plain` of it, a frozen :class:`PlainParams` with the same
attribute names, so that a check read back from the cache needs neither pydantic nor its models. Built-in kinds
name their ``Params`` with :class:`ParamsOf`, imported the first time a rule file is validated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

__all__ = ["ParamsOf", "PlainParams", "plain"]


class PlainParams:
    """Validated params as plain values: each field of the model an attribute (a nested model a
    :class:`PlainParams` too), read-only. :meth:`as_written` gives back the fields the rule wrote, by the names
    the rule file uses (what a profile's changed params are merged into)."""

    _written: tuple[str, ...]
    _aliases: dict[str, str]

    if TYPE_CHECKING:
        def __getattr__(self, name: str) -> Any: ...  # the model's fields

    def __init__(self, values: Mapping[str, object], written: Iterable[str] = (),
                 aliases: Mapping[str, str] | None = None) -> None:
        state = self.__dict__
        state.update(values)
        state["_written"] = tuple(written)
        state["_aliases"] = dict(aliases or {})

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]  # (its lists and dicts are not hashable)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self.fields().items())
        return f"{type(self).__name__}({shown})"

    def fields(self) -> dict[str, object]:
        """Every field by its attribute name."""
        return {name: value for name, value in vars(self).items() if name not in ("_written", "_aliases")}

    def as_written(self) -> dict[str, object]:
        """The fields the rule wrote, by the names of the rule file (``assert`` for ``assert_``), nested values
        too: what ``model_dump(by_alias=True, exclude_unset=True)`` gave of the validated model."""
        state = vars(self)
        return {self._aliases.get(name, name): _written(state[name]) for name in self._written}


def _written(value: object) -> object:
    if isinstance(value, PlainParams):
        return value.as_written()
    if isinstance(value, list):
        return [_written(item) for item in value]
    if isinstance(value, dict):
        return {key: _written(item) for key, item in value.items()}
    return value


def plain(params: Any) -> Any:
    """``params`` (a validated pydantic model) as a :class:`PlainParams`; lists and dicts of models are converted
    item by item, anything else is returned as it is (a :class:`PlainParams` too)."""
    fields = getattr(type(params), "model_fields", None)
    if fields is None or isinstance(params, type):
        if isinstance(params, list):
            return [plain(item) for item in params]
        if isinstance(params, dict):
            return {key: plain(item) for key, item in params.items()}
        return params
    values = {name: plain(getattr(params, name)) for name in fields}
    aliases = {name: info.alias for name, info in fields.items() if info.alias and info.alias != name}
    return PlainParams(values, (name for name in fields if name in params.model_fields_set), aliases)


class ParamsOf:
    """A kind's ``Params`` named by ``"module:Class"``, imported when a rule of the kind is first validated (the
    kind's own module, and checks read back from the cache, never import pydantic)."""

    def __init__(self, target: str) -> None:
        self.target = target

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        module, _, name = self.target.partition(":")
        return getattr(import_module(module), name)
