"""Decimal arithmetic for money: parsing, half-up rounding, canonical strings.

Floats never come near an amount. Every amount the engine reads becomes a
:class:`~decimal.Decimal` through :func:`parse_decimal`, and every rounding goes
through :func:`round_half_up` (commercial rounding, not Python's banker's rounding).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation

__all__ = ["MONEY_CONTEXT", "decimal_str", "parse_decimal", "round_half_up"]

#: Enough precision for the XSD's 22 total digits with 10 decimals, plus products of two such values.
MONEY_CONTEXT = Context(prec=60, rounding=ROUND_HALF_UP)


def parse_decimal(text: str | None) -> Decimal | None:
    """``Decimal`` of an XML number, or ``None`` when absent or not a finite number."""
    if text is None:
        return None
    text = text.strip()
    if not text:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def round_half_up(value: Decimal, places: int = 2, rounding: str = ROUND_HALF_UP) -> Decimal:
    """``value`` rounded to ``places`` decimals (half-up unless another mode is configured)."""
    return value.quantize(Decimal(1).scaleb(-places), rounding=rounding, context=MONEY_CONTEXT)


def decimal_str(value: Decimal | None) -> str | None:
    """Canonical text of a Decimal for reports: plain notation, no exponent, no thousands separator."""
    if value is None:
        return None
    if value == 0:
        value = abs(value)  # never "-0.00"
    text = format(value, "f")
    return text
