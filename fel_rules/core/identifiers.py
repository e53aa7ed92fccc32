"""Guatemalan identifiers: NIT (mod 11, ``K`` for 10), CUI/DPI check digit and place codes, UUID → Serie/Numero."""

from __future__ import annotations

import re
from functools import lru_cache

from .money import XML_SPACE

__all__ = [
    "CUI_MUNICIPALITIES",
    "cui_problem",
    "nit_check_digit",
    "nit_is_valid",
    "uuid_numero",
    "uuid_serie",
]

_ASCII_DIGITS = re.compile(r"[0-9]+")
_NIT_SHAPE = re.compile(r"[0-9]+[0-9K]")
_UUID_SHAPE = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")

#: Municipalities per department, departments 01 (Guatemala) … 22 (Jutiapa): 340 in all since 2015, when Sipacate
#: (Escuintla, 0514) and Petatán (Huehuetenango, 1333) were created.
CUI_MUNICIPALITIES: tuple[int, ...] = (17, 8, 16, 16, 14, 14, 19, 8, 24, 21, 9, 30, 33, 21, 8, 17, 14, 5, 11, 11, 7, 17)


def nit_check_digit(body: str) -> str:
    """Check digit of a NIT body (digits without the last character): ``0``–``9`` or ``K``."""
    weights = range(len(body) + 1, 1, -1)
    total = sum(int(digit) * weight for digit, weight in zip(body, weights, strict=True))
    remainder = (11 - total % 11) % 11
    return "K" if remainder == 10 else str(remainder)


def nit_is_valid(nit: str) -> bool:
    """True when ``nit`` (hyphens allowed, ``k`` accepted as ``K``) has a correct check digit."""
    return _nit_is_valid(str(nit))  # (a plain text: a value that knows its element would keep its document alive)


@lru_cache(maxsize=4096)  # (an issuer's NIT is on each of its invoices: 2.5 µs computed, 0.1 µs remembered)
def _nit_is_valid(nit: str) -> bool:
    value = nit.replace("-", "").strip(XML_SPACE).upper()
    if len(value) < 2 or not _NIT_SHAPE.fullmatch(value):
        return False
    return nit_check_digit(value[:-1]) == value[-1]


def cui_problem(cui: str) -> str | None:
    """Why ``cui`` is not a valid CUI/DPI (``not_numeric``, ``length``, ``check_digit``, ``department``,
    ``municipality``), or ``None`` when it is valid."""
    value = cui.replace(" ", "").replace("-", "")
    if not _ASCII_DIGITS.fullmatch(value):
        return "not_numeric"
    if len(value) != 13:
        return "length"
    body, check = value[:8], int(value[8])
    department, municipality = int(value[9:11]), int(value[11:13])
    if sum(int(digit) * (index + 2) for index, digit in enumerate(body)) % 11 != check:
        return "check_digit"
    if not 1 <= department <= len(CUI_MUNICIPALITIES):
        return "department"
    if not 1 <= municipality <= CUI_MUNICIPALITIES[department - 1]:
        return "municipality"
    return None


def uuid_serie(uuid: str) -> str | None:
    """Serie of a FEL authorization: the first 8 characters of the UUID (FEL_RCP366)."""
    if not _UUID_SHAPE.fullmatch(uuid.strip(XML_SPACE)):
        return None
    return uuid.strip(XML_SPACE)[:8].upper()


def uuid_numero(uuid: str) -> str | None:
    """Numero of a FEL authorization: hex characters 9–16 of the UUID (hyphens removed) in decimal (FEL_RCP367)."""
    if not _UUID_SHAPE.fullmatch(uuid.strip(XML_SPACE)):
        return None
    hex_digits = uuid.strip(XML_SPACE).replace("-", "")
    return str(int(hex_digits[8:16], 16))
