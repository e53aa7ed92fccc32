"""Decimal arithmetic for money: parsing, half-up rounding, canonical strings.

Floats never come near an amount. Every amount the engine reads becomes a
:class:`~decimal.Decimal` through :func:`parse_decimal`, and every rounding goes
through :func:`round_half_up` (commercial rounding, not Python's banker's rounding).
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import NamedTuple, overload

__all__ = [
    "CURRENCY_SYMBOLS", "MAX_DIGITS", "MONEY_CONTEXT", "MONEY_FIELDS", "XML_SPACE", "Amount", "decimal_str",
    "format_money", "format_number", "parse_decimal", "parse_small_int", "remembered_decimals", "round_half_up",
]

#: Enough precision for the XSD's 22 total digits with 10 decimals, plus products of two such values.
MONEY_CONTEXT = Context(prec=60, rounding=ROUND_HALF_UP)


#: Longest number accepted (the XSD allows 22 digits; more is certainly not an amount).
MAX_DIGITS = 40
_XSD_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_SMALL_INT = re.compile(r"[0-9]{1,9}")
#: XML's whitespace (space, tab, CR, LF); a no-break or em space is part of a value, never trimmed.
XML_SPACE = " \t\r\n"


def parse_decimal(text: str | None) -> Decimal | None:
    """``Decimal`` of an xs:decimal lexical value (ASCII digits, no exponent), else ``None``.

    Exponents (``1E+999999``), underscores, non-ASCII digits, inner or non-XML whitespace
    (``99 999.99``, a no-break space) and numbers longer than :data:`MAX_DIGITS` digits are
    refused, so no document can make an amount explode or be read as another amount.

    The same few texts come again and again (``0.00``, ``1``, a price): short ones are remembered with their
    value, a pure function of the text (Decimals cannot change), in a table emptied when it is full.
    """
    if text is None:
        return None
    value = _PARSED.get(text, _UNKNOWN)
    if value is _UNKNOWN:
        value = _parse_decimal(text)
        if len(text) <= _MAX_REMEMBERED_LENGTH:
            if len(_PARSED) >= _MAX_REMEMBERED:
                _PARSED.clear()
            _PARSED[str(text)] = value  # a plain str: lxml's "smart strings" hold on to their element
    return value  # type: ignore[return-value]


def _parse_decimal(text: str) -> Decimal | None:
    text = text.strip(XML_SPACE)
    if len(text) > MAX_DIGITS + 2 or not _XSD_DECIMAL.fullmatch(text):  # + sign and decimal point
        return None
    return Decimal(text)


#: Texts already read by :func:`parse_decimal` and their values (``None``: not a number).
_PARSED: dict[str, Decimal | None] = {}
_UNKNOWN = object()
_MAX_REMEMBERED = 4096
_MAX_REMEMBERED_LENGTH = 64


def remembered_decimals() -> tuple[dict[str, Decimal | None], object]:
    """The table of texts :func:`parse_decimal` remembers (text → its value) and the marker a look-up in it gives
    for a text not there: code reading many amounts looks a text up there first, and calls :func:`parse_decimal`
    only for a text not there (the same value, one call fewer). Read-only: only :func:`parse_decimal` writes it."""
    return _PARSED, _UNKNOWN


def parse_small_int(text: str | None) -> int | None:
    """An int of 1–9 ASCII digits (line numbers, codes), else ``None``."""
    if text is None or not _SMALL_INT.fullmatch(text.strip(XML_SPACE)):
        return None
    return int(text.strip(XML_SPACE))


#: The quantum of each common number of decimals (``0.01`` for 2), made once.
_QUANTA = {places: Decimal(1).scaleb(-places) for places in range(11)}


def round_half_up(value: Decimal, places: int = 2, rounding: str = ROUND_HALF_UP) -> Decimal:
    """``value`` rounded to ``places`` decimals (half-up unless another mode is configured)."""
    quantum = _QUANTA.get(places) if type(places) is int else None
    if quantum is None:
        quantum = Decimal(1).scaleb(-places)
    return value.quantize(quantum, rounding=rounding, context=MONEY_CONTEXT)


@overload
def decimal_str(value: Decimal) -> str: ...


@overload
def decimal_str(value: Decimal | None) -> str | None: ...


def decimal_str(value: Decimal | None) -> str | None:
    """Canonical text of a Decimal for reports: plain notation, no exponent, no thousands separator."""
    if value is None:
        return None
    if value == 0:
        value = abs(value)  # never "-0.00"
    text = format(value, "f")
    return text


# ---- amounts as people read them: the PDF, and the messages of the issues ---------------------------------

#: The symbol printed before an amount in each currency; another currency is printed by its code (``HNL 1.00``).
CURRENCY_SYMBOLS = {"GTQ": "Q", "USD": "US$", "EUR": "€", "MXN": "MX$"}

#: Fields of a FEL document (and its complements) that hold an amount of money, by local name: a rule value read
#: from one of them is said as an amount (``Q 1,911.50``). Quantities, units and rates are not amounts.
MONEY_FIELDS = frozenset({
    "Precio", "PrecioUnitario", "Descuento", "OtrosDescuento", "Total", "MontoGravable", "MontoImpuesto",
    "TotalMontoImpuesto", "GranTotal", "MontoAbono", "Monto", "RetencionISR", "RetencionIVA", "RetencionICT",
    "TotalMenosRetenciones", "MontoIVAExento", "BaseImponible", "MontoCobroDAI", "MontoCobroIVA", "MontoCobroOtros",
    "MontoCobroTotal", "ImpuestoBebidasAlcoholicas", "PrecioVentaSugerido",
})


def format_number(value: Decimal, min_places: int = 0) -> str:
    """``value`` with its thousands separated by commas, at least ``min_places`` decimals and never fewer than it
    was written with (``1234.5`` → ``1,234.50`` for 2; ``0.125`` keeps its three)."""
    exponent = value.as_tuple().exponent
    places = max(min_places, -exponent if isinstance(exponent, int) else 0)
    return f"{value:,.{places}f}"


def format_money(amount: Decimal | None, currency: str | None = "GTQ", *, exact: bool = False) -> str:
    """An amount as the PDF prints it: ``Q 60,000.00``, ``US$ 1,234.56``, ``-Q 11.50`` (another currency by its
    code, ``HNL 1,234.56``); two decimals rounded half-up, or with ``exact`` every decimal it has (at least two:
    a message never hides a difference of ``0.005``). ``None`` is the empty text."""
    if amount is None:
        return ""
    code = (currency or "GTQ").upper()
    symbol = CURRENCY_SYMBOLS.get(code, code)
    shown = abs(amount) if exact else round_half_up(abs(amount), 2)
    text = f"{symbol} {format_number(shown, 2)}"
    return f"-{text}" if amount < 0 and shown != 0 else text


class Amount(NamedTuple):
    """An amount of money a finding reports: its message says it as the PDF prints it (``Q 60,000.00``, in the
    document's currency); ``str()`` is the exact value, as the report's ``expected``/``actual`` keep it."""

    value: Decimal

    def __str__(self) -> str:
        return decimal_str(self.value)
