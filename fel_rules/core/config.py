"""Validation settings: tolerance, rounding, size limit, language, schema and rule locations.

:class:`Config` is a frozen stdlib dataclass (:class:`~fel_rules.core.record.Record`) that checks and converts its
own values (no pydantic on the way to a verdict): a tolerance given as text or a float becomes a
:class:`~decimal.Decimal`, a folder given as text a :class:`~pathlib.Path`, a date in ISO text a
:class:`~datetime.date`; a value it cannot take is a :class:`ValueError` naming the setting, an unknown setting a
:class:`TypeError`.
"""

from __future__ import annotations

import os
from dataclasses import fields
from datetime import date, datetime
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal

from .limits import DEFAULT_MAX_ATTRIBUTES, DEFAULT_MAX_BYTES, DEFAULT_MAX_ITEMS, DEFAULT_MAX_SCHEMA_ERRORS
from .record import Record
from .resources import BUILTIN_RULES_DIR

__all__ = [
    "DEFAULT_MAX_ATTRIBUTES", "DEFAULT_MAX_BYTES", "DEFAULT_MAX_ITEMS", "DEFAULT_MAX_SCHEMA_ERRORS", "Config", "Lang",
]

Lang = Literal["es", "en"]

_ROUNDING_MODES = {"half_up": ROUND_HALF_UP, "half_even": ROUND_HALF_EVEN}
_CHOICES = {"rounding": ("half_up", "half_even"), "lang": ("es", "en"), "schema_engine": ("auto", "xmlschema")}
_LIMITS = ("max_bytes", "max_items", "max_attributes", "max_schema_errors")


class Config(Record):
    """Everything that changes how a document is judged, in one immutable object."""

    tolerance: Decimal = Decimal("0.01")
    """Largest accepted |actual - expected| for arithmetic rules (per line and per total)."""
    rounding: Literal["half_up", "half_even"] = "half_up"
    """Rounding mode for round2() and other rounding in rules."""
    max_bytes: int = DEFAULT_MAX_BYTES
    """Largest document accepted, in bytes."""
    max_items: int = DEFAULT_MAX_ITEMS
    """Most dte:Item elements accepted (SAT: 9,999)."""
    max_attributes: int = DEFAULT_MAX_ATTRIBUTES
    """Most attributes accepted on one element."""
    max_schema_errors: int = DEFAULT_MAX_SCHEMA_ERRORS
    """Most schema errors described in one report."""
    lang: Lang = "es"
    """Language of messages in reports."""
    rules_dir: Path = BUILTIN_RULES_DIR
    """Folder with the YAML rule files."""
    profile: str | None = None
    """Profile name or path (rules/profiles/NAME.yaml)."""
    as_of: date | None = None
    """Judge with the rules in force on this date instead of the emission date."""
    schema_dir: Path | None = None
    """An official SAT XSD folder to use instead of the project's schema set."""
    schema_engine: Literal["auto", "xmlschema"] = "auto"
    """auto: libxml2 decides and xmlschema explains what it finds; xmlschema: xmlschema (the reference engine)
    validates every document."""

    def __post_init__(self) -> None:
        converted = {
            "tolerance": _tolerance(self.tolerance),
            **{name: _positive(name, getattr(self, name)) for name in _LIMITS},
            **{name: _choice(name, getattr(self, name)) for name in _CHOICES},
            "rules_dir": _path("rules_dir", self.rules_dir),
            "schema_dir": None if self.schema_dir is None else _path("schema_dir", self.schema_dir),
            "profile": _profile(self.profile),
            "as_of": _date(self.as_of),
        }
        for name, value in converted.items():
            object.__setattr__(self, name, value)

    @property
    def rounding_mode(self) -> str:
        """The :mod:`decimal` rounding constant for :attr:`rounding`."""
        return _ROUNDING_MODES[self.rounding]

    def to_dict(self, *, exclude_none: bool = False) -> dict[str, Any]:
        """The settings as plain JSON data (decimals, paths and dates as text), in field order; ``Config(**data)``
        makes the same configuration again."""
        data: dict[str, Any] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if value is None:
                if not exclude_none:
                    data[item.name] = None
            elif isinstance(value, Decimal | Path):
                data[item.name] = str(value)
            elif isinstance(value, date):
                data[item.name] = value.isoformat()
            else:
                data[item.name] = value
        return data


def _refuse(name: str, wanted: str, value: object) -> ValueError:
    return ValueError(f"Config.{name} must be {wanted}, not {value!r}")


def _tolerance(value: object) -> Decimal:
    wanted = "a decimal number >= 0"
    if isinstance(value, bool) or not isinstance(value, Decimal | int | float | str):
        raise _refuse("tolerance", wanted, value)
    try:
        number = value if isinstance(value, Decimal) else Decimal(str(value).strip())
    except InvalidOperation:
        raise _refuse("tolerance", wanted, value) from None
    if not number.is_finite() or number < 0:
        raise _refuse("tolerance", wanted, value)
    return number


def _positive(name: str, value: object) -> int:
    wanted = "a whole number > 0"
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise _refuse(name, wanted, value)
    return value


def _choice(name: str, value: object) -> object:
    choices = _CHOICES[name]
    if value not in choices:
        raise _refuse(name, " or ".join(map(repr, choices)), value)
    return value


def _path(name: str, value: object) -> Path:
    if isinstance(value, Path):
        return value
    if isinstance(value, str | os.PathLike):
        return Path(value)
    raise _refuse(name, "a folder (a path or its text)", value)


def _profile(value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise _refuse("profile", "a profile name or the path of its file, as text", value)


def _date(value: object) -> date | None:
    if value is None or (isinstance(value, date) and not isinstance(value, datetime)):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise _refuse("as_of", "a date (YYYY-MM-DD)", value)
