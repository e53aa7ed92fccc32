"""Frozen record classes that cost next to nothing to define.

``@dataclass(frozen=True)`` compiles six methods per class (``exec``), ≈ 0.5–1 ms each class at start-up. A
:class:`Record` subclass is a stdlib dataclass too (``dataclasses.fields``, ``replace``, ``asdict``, pydantic's
``TypeAdapter`` all work), but its ``__init__``, ``__eq__``, ``__hash__`` and ``__repr__`` are shared, written
once here; type checkers see the fields through :func:`typing.dataclass_transform`. Records are made with
keywords; a class declared ``class Point(Record, kw_only=False)`` also takes its fields positionally, in
declaration order, and so do its subclasses unless they say ``kw_only=True``. ``__post_init__`` runs when a
subclass defines it (it may set a field with ``object.__setattr__``). Equality, hash and ``repr`` read the
instance's ``__dict__``: a subclass keeps nothing there but its fields (no ``functools.cached_property``). A
stdlib ``@dataclass(frozen=True)`` cannot extend a record (dataclasses sees it as not frozen): extend it as a
record.
"""

from __future__ import annotations

from dataclasses import MISSING, FrozenInstanceError, dataclass, field, fields
from typing import Any, ClassVar, TypeVar, dataclass_transform

__all__ = ["Record", "build"]

_R = TypeVar("_R", bound="Record")
_new = object.__new__
_set = object.__setattr__


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
class Record:
    """Base of immutable records: subclasses declare annotated fields (with defaults, or ``field(default_factory=…)``)
    and are made with keywords only."""

    __slots__ = ()
    _defaults: ClassVar[dict[str, Any]]  # every field in order, its default or MISSING
    _factories: ClassVar[tuple[tuple[str, Any], ...]]  # fields whose default is made anew for each record
    _required: ClassVar[frozenset[str]]
    _names: ClassVar[frozenset[str]]
    _positional: ClassVar[tuple[str, ...]]  # the fields that may be given positionally, in order
    _post_init: ClassVar[Any]  # the subclass's __post_init__, or None

    def __init_subclass__(cls, *, kw_only: bool | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclass(init=False, repr=False, eq=False, kw_only=True)(cls)  # the fields' metadata only: no exec
        own = fields(cls)  # type: ignore[arg-type]
        cls._defaults = {item.name: item.default for item in own}
        cls._factories = tuple((item.name, item.default_factory) for item in own
                               if item.default_factory is not MISSING)
        cls._required = frozenset(item.name for item in own
                                  if item.default is MISSING and item.default_factory is MISSING)
        cls._names = frozenset(cls._defaults)
        if kw_only is None:  # as the record it extends (keywords only for a direct subclass of Record)
            kw_only = not getattr(cls, "_positional", ())
        cls._positional = () if kw_only else tuple(cls._defaults)
        cls._post_init = getattr(cls, "__post_init__", None)

    def __init__(self, *args: Any, **values: Any) -> None:
        cls = type(self)
        if args:
            values = _by_name(cls, args, values)
        given = values.keys()
        if not (given <= cls._names and cls._required <= given):
            raise _wrong_arguments(cls, given)
        state = self.__dict__
        state.update(cls._defaults)
        state.update(values)
        for name, factory in cls._factories:
            if name not in values:
                state[name] = factory()
        if cls._post_init is not None:
            cls._post_init(self)

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash(tuple(self.__dict__.values()))

    def __repr__(self) -> str:
        values = ", ".join(f"{name}={value!r}" for name, value in self.__dict__.items())
        return f"{type(self).__qualname__}({values})"


def _by_name(cls: type[Record], args: tuple[Any, ...], values: dict[str, Any]) -> dict[str, Any]:
    """The positional ``args`` named by the fields they stand for, with the keyword ``values``."""
    order = cls._positional
    if len(args) > len(order):
        raise TypeError(f"{cls.__name__}() takes {len(order)} positional arguments but {len(args)} were given")
    named = dict(zip(order, args, strict=False))  # (fewer args than fields: the rest by keyword or default)
    twice = named.keys() & values.keys()
    if twice:
        raise TypeError(f"{cls.__name__}() got multiple values for argument {min(twice)!r}")
    named.update(values)
    return named


def _wrong_arguments(cls: type[Record], given: Any) -> TypeError:
    unknown, missing = sorted(given - cls._names), sorted(cls._required - given)
    if unknown:
        return TypeError(f"{cls.__name__}() got unexpected keyword arguments: {', '.join(unknown)}")
    return TypeError(f"{cls.__name__}() missing required keyword arguments: {', '.join(missing)}")


def build(cls: type[_R], state: dict[str, Any]) -> _R:
    """A ``cls`` record whose state is ``state`` itself: every field of ``cls`` in declaration order, nothing else.

    Unchecked and without ``__post_init__``: for code that makes many records of a known shape (a document's facts),
    where the keyword checks cost more than the record. Equal, with the same ``repr`` and hash, to
    ``cls(**state)``; ``state`` must not be used afterwards.
    """
    made = _new(cls)
    _set(made, "__dict__", state)
    return made
