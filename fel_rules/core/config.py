"""Validation settings: tolerance, rounding, size limit, language, schema and rule locations."""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .limits import DEFAULT_MAX_ATTRIBUTES, DEFAULT_MAX_BYTES, DEFAULT_MAX_ITEMS, DEFAULT_MAX_SCHEMA_ERRORS
from .resources import BUILTIN_RULES_DIR

__all__ = [
    "DEFAULT_MAX_ATTRIBUTES", "DEFAULT_MAX_BYTES", "DEFAULT_MAX_ITEMS", "DEFAULT_MAX_SCHEMA_ERRORS", "Config", "Lang",
]

Lang = Literal["es", "en"]

_ROUNDING_MODES = {"half_up": ROUND_HALF_UP, "half_even": ROUND_HALF_EVEN}


class Config(BaseModel):
    """Everything that changes how a document is judged, in one immutable object."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tolerance: Decimal = Field(
        default=Decimal("0.01"),
        ge=0,
        description="Largest accepted |actual - expected| for arithmetic rules (per line and per total).",
    )
    rounding: Literal["half_up", "half_even"] = Field(
        default="half_up", description="Rounding mode for round2() and other rounding in rules."
    )
    max_bytes: int = Field(default=DEFAULT_MAX_BYTES, gt=0, description="Largest document accepted, in bytes.")
    max_items: int = Field(default=DEFAULT_MAX_ITEMS, gt=0, description="Most dte:Item elements accepted (SAT: 9,999).")
    max_attributes: int = Field(
        default=DEFAULT_MAX_ATTRIBUTES, gt=0, description="Most attributes accepted on one element."
    )
    max_schema_errors: int = Field(
        default=DEFAULT_MAX_SCHEMA_ERRORS, gt=0, description="Most schema errors described in one report."
    )
    lang: Lang = Field(default="es", description="Language of messages in reports.")
    rules_dir: Path = Field(default=BUILTIN_RULES_DIR, description="Folder with the YAML rule files.")
    profile: str | None = Field(default=None, description="Profile name or path (rules/profiles/NAME.yaml).")
    as_of: date | None = Field(
        default=None, description="Judge with the rules in force on this date instead of the emission date."
    )
    schema_dir: Path | None = Field(
        default=None, description="An official SAT XSD folder to use instead of the project's schema set."
    )
    schema_engine: Literal["auto", "xmlschema"] = Field(
        default="auto", description="auto: libxml2 decides and xmlschema explains what it finds; xmlschema: "
        "xmlschema (the reference engine) validates every document.",
    )

    @property
    def rounding_mode(self) -> str:
        """The :mod:`decimal` rounding constant for :attr:`rounding`."""
        return _ROUNDING_MODES[self.rounding]
