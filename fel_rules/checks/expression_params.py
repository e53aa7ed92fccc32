"""Params of the ``expression`` kind (pydantic): validated when a rule file loads."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ..expressions.language import FUNCTION_NAMES
from .kind_params import KindParams

__all__ = ["ExpressionParams", "LetSpec"]

_RESERVED = FUNCTION_NAMES | {"tol", "expected", "actual", "difference", "item", "True", "False", "None"}


class LetSpec(KindParams):
    """A binding: an XPath relative to the context node and how to read it, or a computed value."""

    path: str | None = Field(
        default=None, description="XPath 1.0, relative to the context node or starting with a place; "
        "may use $earlier_binding.")
    value: str | None = Field(
        default=None, description="Instead of path: an expression over earlier bindings and constants.")
    type: Literal["decimal", "text", "int", "date"] = Field(
        default="decimal", description="How to read the value (date: the calendar date of an ISO date or date-time)."
    )
    many: bool = Field(default=False, description="Bind the list of all matches (for sum/count).")
    default: str | None = Field(default=None, description="Value used when nothing matches.")

    @model_validator(mode="after")
    def _path_or_value(self) -> LetSpec:
        if (self.path is None) == (self.value is None):
            raise ValueError("una variable de 'let' lleva 'path' o 'value' (uno de los dos)")
        if self.value is not None and self.model_fields_set & {"type", "many", "default"}:
            raise ValueError("una variable calculada ('value') no lleva type, many ni default")
        return self


class ExpressionParams(KindParams):
    """Params of the ``expression`` kind (written at the top level of a rule)."""

    context: str = Field(description="XPath of the nodes the rule checks, one evaluation each.")
    let: dict[str, str | LetSpec] = Field(default_factory=dict, description="name: XPath (a decimal) or a LetSpec.")
    constants: dict[str, str | dict[str | int, str | int]] = Field(
        default_factory=dict,
        description="name: value (numbers become Decimal), or a table key: value read with lookup(table, key) — "
        "limits and tables a profile may change without editing the rule.",
    )
    when: str | None = Field(default=None, description="Guard expression; the rule is skipped when false.")
    assert_: str | None = Field(default=None, alias="assert", description="Boolean expression that must hold.")
    expected: str | None = Field(default=None, description="Expression for the expected value.")
    actual: str | None = Field(default=None, description="Expression for the value found in the document.")
    at: str | None = Field(default=None, description="Binding whose node locates the issue (default: context).")
    tolerance: str | None = Field(
        default=None, description="Expression for the accepted |actual - expected| (default: tol, from configuration)."
    )
    amounts: list[str] = Field(
        default_factory=list,
        description="Constants or computed values a message says as amounts of money (Q 2,500.00). Values read from "
        "a money field (Precio, MontoImpuesto, GranTotal…) are amounts without being listed; so are expected, "
        "actual and difference when they compare amounts.")

    @model_validator(mode="after")
    def _shape(self) -> ExpressionParams:
        if self.assert_ is None and (self.expected is None or self.actual is None):
            raise ValueError("se requiere 'assert', o 'expected' junto con 'actual'")
        if (self.expected is None) != (self.actual is None):
            raise ValueError("'expected' y 'actual' van juntos")
        for name in [*self.let, *self.constants]:
            if not name.isidentifier() or name in _RESERVED:
                raise ValueError(f"nombre de variable no permitido: {name!r}")
        clash = set(self.let) & set(self.constants)
        if clash:
            raise ValueError(f"'{sorted(clash)[0]}' está en 'let' y en 'constants'")
        if self.at is not None and self.at not in self.let:
            raise ValueError(f"'at' debe nombrar una variable de 'let'; '{self.at}' no existe")
        unknown = [name for name in self.amounts if name not in self.let and name not in self.constants]
        if unknown:
            raise ValueError(f"'amounts' nombra '{unknown[0]}', que no está en 'let' ni en 'constants'")
        return self
