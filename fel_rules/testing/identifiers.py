"""Guatemalan identifiers used in FEL documents: NIT, CUI and the authorization UUID.

* NIT: the last character is a mod-11 check digit ("K" stands for 10); the body digits are
  weighted from ``len(body) + 1`` down to 2, left to right.
* CUI (DPI): 13 digits ``NNNNNNNN V DD MM``; V = (sum of d_i * (i + 2) for the first 8 digits)
  mod 11, DD = department (01-22), MM = municipality inside that department.
* Serie/Numero of a certified DTE (SAT rules FEL_RCP366/367): Serie = first 8 hex digits of
  the UUID, Numero = decimal value of hex digits 9-16 (hyphens removed).
"""

from __future__ import annotations

import re

# Number of municipalities per department (index 0 = department 01, Guatemala).
MUNICIPIOS_POR_DEPARTAMENTO: tuple[int, ...] = (
    17, 8, 16, 16, 14, 14, 19, 8, 24, 21, 9, 30, 33, 21, 8, 17, 14, 5, 11, 11, 7, 17,
)

__all__ = [
    "cui_check_digit", "cui_is_valid", "cui_with_check_digit", "nit_check_digit", "nit_is_valid",
    "nit_with_check_digit", "uuid_serie_numero"
]

_UUID_RE = re.compile(r"^[0-9A-Fa-f]{8}-([0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}$")


def nit_check_digit(body: str) -> str:
    """Return the check digit ("0"-"9" or "K") for the digits of a NIT body."""
    if not body.isdigit():
        raise ValueError(f"NIT body must contain digits only: {body!r}")
    weights = range(len(body) + 1, 1, -1)
    total = sum(int(digit) * weight for digit, weight in zip(body, weights, strict=True))
    remainder = (11 - total % 11) % 11
    return "K" if remainder == 10 else str(remainder)


def nit_with_check_digit(body: str) -> str:
    """Append the check digit to a NIT body: ``nit_with_check_digit("1252133") == "12521337"``."""
    return body + nit_check_digit(body)


def nit_is_valid(nit: str) -> bool:
    """True when ``nit`` (hyphens allowed, "k" or "K") carries a correct check digit."""
    cleaned = nit.replace("-", "").strip().upper()
    if len(cleaned) < 2 or not cleaned[:-1].isdigit():
        return False
    return nit_check_digit(cleaned[:-1]) == cleaned[-1]


def cui_check_digit(numero: str) -> str:
    """Return the check digit of the first 8 digits of a CUI.

    Raises ValueError when the remainder is 10: no CUI can be built from such a number.
    """
    if len(numero) != 8 or not numero.isdigit():
        raise ValueError(f"CUI number must be 8 digits: {numero!r}")
    remainder = sum(int(digit) * (index + 2) for index, digit in enumerate(numero)) % 11
    if remainder == 10:
        raise ValueError(f"{numero!r} has remainder 10: no valid CUI check digit")
    return str(remainder)


def cui_with_check_digit(numero: str, departamento: int, municipio: int) -> str:
    """Build a 13-digit CUI from 8 digits, a department (1-22) and a municipality."""
    if not 1 <= departamento <= len(MUNICIPIOS_POR_DEPARTAMENTO):
        raise ValueError(f"department out of range: {departamento}")
    if not 1 <= municipio <= MUNICIPIOS_POR_DEPARTAMENTO[departamento - 1]:
        raise ValueError(f"municipality {municipio} does not exist in department {departamento}")
    return f"{numero}{cui_check_digit(numero)}{departamento:02d}{municipio:02d}"


def cui_is_valid(cui: str) -> bool:
    """True when ``cui`` (spaces/hyphens allowed) has a valid check digit, department, municipality."""
    cleaned = re.sub(r"[\s-]", "", cui)
    if len(cleaned) != 13 or not cleaned.isdigit():
        return False
    try:
        expected = cui_with_check_digit(cleaned[:8], int(cleaned[9:11]), int(cleaned[11:13]))
    except ValueError:
        return False
    return expected == cleaned


def uuid_serie_numero(uuid: str) -> tuple[str, str]:
    """Derive (Serie, Numero) of the authorization from its UUID (FEL_RCP366/367).

    >>> uuid_serie_numero("9E52C854-E18B-45C1-A77B-C87CF42F35F1")
    ('9E52C854', '3784000961')
    """
    if not _UUID_RE.match(uuid):
        raise ValueError(f"not a UUID: {uuid!r}")
    hex_digits = uuid.replace("-", "").upper()
    return hex_digits[:8], str(int(hex_digits[8:16], 16))
