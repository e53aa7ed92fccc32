"""Decimal arithmetic of FEL amounts: IVA included in the price, ROUND_HALF_UP.

Amounts are never floats. A value written into the XML is kept as an :class:`Amount`: its
text exactly as written and its numeric value (``None`` when a test deliberately writes a
non-numeric text). Values derived from an amount call :meth:`Amount.require`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

Number = Decimal | int | str
"""Accepted input for amounts: Decimal, int or a decimal string (floats are refused)."""

IVA_RATE = Decimal("0.12")
IVA_DIVISOR = Decimal("1.12")


def to_decimal(value: Number) -> Decimal:
    """Convert an input amount to Decimal, refusing floats (binary rounding) and bools."""
    if isinstance(value, (float, bool)) or not isinstance(value, (Decimal, int, str)):
        raise TypeError(f"amounts must be Decimal, int or str, not {type(value).__name__}")
    try:
        result = Decimal(value) if not isinstance(value, str) else Decimal(value.strip())
    except InvalidOperation:
        raise ValueError(f"not a decimal number: {value!r}") from None
    if not result.is_finite():
        raise ValueError(f"not a finite number: {value!r}")
    return result


def quantize(value: Decimal, decimals: int) -> Decimal:
    """Round ``value`` half-up to ``decimals`` fraction digits."""
    return value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def format_decimal(value: Decimal) -> str:
    """Plain notation (never exponent form), keeping trailing zeros: 1E+1 -> '10'."""
    return format(value, "f")


@dataclass(frozen=True)
class Amount:
    """A number as written in the document: ``text`` and its value (None if not numeric)."""

    text: str
    number: Decimal | None

    @classmethod
    def computed(cls, value: Decimal) -> Amount:
        """An amount computed by the builder."""
        return cls(format_decimal(value), value)

    @classmethod
    def given(cls, value: Number) -> Amount:
        """An amount supplied by the caller; strings are written verbatim."""
        if isinstance(value, str):
            try:
                return cls(value, to_decimal(value))
            except ValueError:
                return cls(value, None)
        number = to_decimal(value)
        return cls(format_decimal(number), number)

    def require(self, name: str) -> Decimal:
        """The numeric value; raises when a non-numeric override feeds a computation."""
        if self.number is None:
            raise ValueError(
                f"{name} is {self.text!r}, not a number: override the values computed from it too"
            )
        return self.number


def pick(override: Number | None, compute: Callable[[], Decimal]) -> Amount:
    """The override when given (``compute`` is then not called), else the computed value."""
    return Amount.given(override) if override is not None else Amount.computed(compute())


def split_iva(base: Decimal, decimals: int) -> tuple[Decimal, Decimal]:
    """Split an IVA-inclusive amount into (MontoGravable, MontoImpuesto).

    MontoGravable = base / 1.12 rounded half-up; MontoImpuesto = base - MontoGravable, so the
    two always add up to the (rounded) base exactly.
    """
    base = quantize(base, decimals)
    gravable = quantize(base / IVA_DIVISOR, decimals)
    return gravable, base - gravable


@dataclass(frozen=True)
class TaxAmounts:
    """One dte:Impuesto of an item, as it will be written."""

    nombre_corto: str
    codigo_unidad_gravable: str
    monto_gravable: Amount | None
    cantidad_unidades_gravables: Amount | None
    monto_impuesto: Amount


@dataclass(frozen=True)
class LineAmounts:
    """The amounts of one dte:Item, as they will be written."""

    cantidad: Amount
    precio_unitario: Amount
    precio: Amount
    descuento: Amount | None
    otros_descuento: Amount | None
    impuestos: tuple[TaxAmounts, ...]
    total: Amount


@dataclass(frozen=True)
class DocumentAmounts:
    """All amounts of a document: lines, TotalImpuesto per NombreCorto and GranTotal."""

    lines: tuple[LineAmounts, ...]
    total_impuestos: dict[str, Amount] = field(default_factory=dict)
    gran_total: Amount = Amount("0", Decimal(0))

    def sum_monto_gravable(self, nombre_corto: str = "IVA") -> Decimal:
        """Sum of MontoGravable of every tax line named ``nombre_corto``."""
        return sum(
            (
                tax.monto_gravable.require("MontoGravable")
                for line in self.lines
                for tax in line.impuestos
                if tax.nombre_corto == nombre_corto and tax.monto_gravable is not None
            ),
            Decimal(0),
        )

    def sum_monto_impuesto(self, nombre_corto: str = "IVA") -> Decimal:
        """Sum of MontoImpuesto of every tax line named ``nombre_corto``."""
        return sum(
            (
                tax.monto_impuesto.require("MontoImpuesto")
                for line in self.lines
                for tax in line.impuestos
                if tax.nombre_corto == nombre_corto
            ),
            Decimal(0),
        )
