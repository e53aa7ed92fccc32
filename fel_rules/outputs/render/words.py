"""Amounts in Spanish words, as printed on Guatemalan invoices ("Mil novecientos once quetzales con 50/100")."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

__all__ = ["amount_in_words", "integer_in_words"]

_UNITS = ["cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez",
          "once", "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete", "dieciocho", "diecinueve",
          "veinte", "veintiuno", "veintidós", "veintitrés", "veinticuatro", "veinticinco", "veintiséis",
          "veintisiete", "veintiocho", "veintinueve"]
_TENS = ["", "", "", "treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa"]
_HUNDREDS = ["", "ciento", "doscientos", "trescientos", "cuatrocientos", "quinientos", "seiscientos",
             "setecientos", "ochocientos", "novecientos"]

#: currency code → (singular, plural); other codes are written as the code itself.
_CURRENCIES = {
    "GTQ": ("quetzal", "quetzales"),
    "USD": ("dólar estadounidense", "dólares estadounidenses"),
    "EUR": ("euro", "euros"),
    "MXN": ("peso mexicano", "pesos mexicanos"),
    "HNL": ("lempira", "lempiras"),
    "CRC": ("colón costarricense", "colones costarricenses"),
    "NIO": ("córdoba", "córdobas"),
    "CAD": ("dólar canadiense", "dólares canadienses"),
    "GBP": ("libra esterlina", "libras esterlinas"),
    "JPY": ("yen", "yenes"),
}


def _below_thousand(number: int) -> str:
    if number < 30:
        return _UNITS[number]
    if number < 100:
        tens, units = divmod(number, 10)
        return _TENS[tens] + (f" y {_UNITS[units]}" if units else "")
    if number == 100:
        return "cien"
    hundreds, rest = divmod(number, 100)
    return _HUNDREDS[hundreds] + (f" {_below_thousand(rest)}" if rest else "")


def _apocope(words: str) -> str:
    """"uno" becomes "un" before a noun (veintiún mil, un millón, treinta y un quetzales)."""
    if words.endswith("veintiuno"):
        return words[:-len("veintiuno")] + "veintiún"
    if words.endswith("uno"):
        return words[:-3] + "un"
    return words


def integer_in_words(number: int) -> str:
    """Spanish words of a non-negative integer below 10¹⁵ (long scale: millón, mil millones)."""
    if number < 0 or number >= 10**15:
        raise ValueError(f"fuera de rango: {number}")
    if number < 1000:
        return _below_thousand(number)
    if number < 1_000_000:
        thousands, rest = divmod(number, 1000)
        head = "mil" if thousands == 1 else f"{_apocope(_below_thousand(thousands))} mil"
        return head + (f" {_below_thousand(rest)}" if rest else "")
    millions, rest = divmod(number, 1_000_000)
    head = "un millón" if millions == 1 else f"{_apocope(integer_in_words(millions))} millones"
    return head + (f" {integer_in_words(rest)}" if rest else "")


def amount_in_words(amount: Decimal, currency: str = "GTQ") -> str:
    """``Decimal("1911.50")`` → ``"Mil novecientos once quetzales con 50/100"``."""
    cents_total = int(amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP) * 100)
    units, cents = divmod(abs(cents_total), 100)
    singular, plural = _CURRENCIES.get(currency.upper(), (currency.upper(), currency.upper()))
    words = integer_in_words(units)
    noun = singular if units == 1 else plural
    if units == 1:
        words = "un"
    else:
        words = _apocope(words)
    joiner = " de " if units >= 1_000_000 and units % 1_000_000 == 0 else " "
    text = f"{words}{joiner}{noun} con {cents:02d}/100"
    return text[0].upper() + text[1:]
