"""SAT catalogues the rules consult at run time: tax units, frases and personerías, from ``rules/data``, and the
holidays business days skip (:mod:`.holidays`).

Both files are the project's own format (see their headers); a rate or frase change is an edit
there, never in a rule. Errors name the file, line and column, like rule files.
"""

from __future__ import annotations

import re
from dataclasses import field
from decimal import Decimal
from pathlib import Path

from ..core.errors import RuleFileError
from ..core.money import parse_decimal
from ..core.record import Record
from ..core.yamlfile import error_at, load_yaml
from .holidays import HOLIDAYS_FILE, HolidayCalendar, load_holidays

__all__ = [
    "Catalogues", "FraseEntry", "TaxUnit", "code_key", "load_catalogues", "load_frases", "load_personerias",
    "load_tax_units",
]

_BASES = ("MontoGravable", "CantidadUnidadesGravables")


class TaxUnit(Record):
    """One CodigoUnidadGravable of a tax: factor, the field it multiplies, and its currency.

    ``currency`` is set for fixed amounts per unit (Q4.70 a gallon, US$30 a ticket); a
    proportional factor (12 %, 6 % of a declared price) has none and applies in any currency.
    """

    factor: Decimal
    base: str
    currency: str | None = None
    name: str = ""


class FraseEntry(Record):
    """One (TipoFrase, CodigoEscenario) of the frases catalogue."""

    text: str
    needs_resolution: bool = False


class Catalogues(Record):
    """Tax units keyed by (NombreCorto, code), frases keyed by (TipoFrase, CodigoEscenario), the
    TipoPersoneria codes allowed to issue RDON, and the holidays."""

    tax_units: dict[tuple[str, str], TaxUnit] = field(default_factory=dict)
    frases: dict[tuple[str, str], FraseEntry] = field(default_factory=dict)
    rdon_personerias: frozenset[str] = frozenset()
    holidays: HolidayCalendar = HolidayCalendar()

    @property
    def rates(self) -> dict[tuple[str, str], Decimal]:
        """``{("IVA", "1"): Decimal("0.12"), …}``."""
        return {key: unit.factor for key, unit in self.tax_units.items()}


def load_catalogues(data_dir: Path, shared: Path | None = None) -> Catalogues:
    """The catalogues of ``data_dir``, a rules folder's ``data`` (an absent file gives an empty catalogue); its
    holidays, when it has none, are those of the data folder ``shared`` (the shipped rules')."""
    holidays = data_dir / HOLIDAYS_FILE.name
    if shared is not None and not holidays.is_file():
        holidays = shared / HOLIDAYS_FILE.name
    return Catalogues(tax_units=load_tax_units(data_dir / "impuestos.yaml"),
                      frases=load_frases(data_dir / "frases.yaml"),
                      rdon_personerias=load_personerias(data_dir / "personerias.yaml"),
                      holidays=load_holidays(holidays))


def load_tax_units(path: Path) -> dict[tuple[str, str], TaxUnit]:
    """Every tax unit of ``impuestos.yaml``; codes are kept as their integer text (``"1"``)."""
    if not path.is_file():
        return {}
    data = load_yaml(path)
    taxes = data.get("impuestos") if isinstance(data, dict) else None
    if not isinstance(taxes, dict):
        raise RuleFileError("falta la clave 'impuestos'", message_en="missing key 'impuestos'", path=str(path), line=1)
    units: dict[tuple[str, str], TaxUnit] = {}
    for tax, entry in taxes.items():
        codes = entry.get("unidades") if isinstance(entry, dict) else None
        if not isinstance(codes, dict):
            raise error_at(path, data, ("impuestos", tax),
                           f"{tax}: se esperaba 'unidades' como un mapeo código → {{factor, base, nombre}}",
                           f"{tax}: expected 'unidades' as a mapping code → {{factor, base, nombre}}")
        for code, unit in codes.items():
            where = ("impuestos", tax, "unidades", code)
            written = unit.get("factor") if isinstance(unit, dict) else None
            if isinstance(written, float):
                raise error_at(path, data, where, f"{tax} código {code}: escriba el factor entre comillas "
                                                  f"(factor: \"{written}\"): sin comillas YAML lo lee con decimales "
                                                  f"binarios, que pierden cifras",
                               f"{tax} code {code}: quote the factor (factor: \"{written}\"): unquoted, YAML reads it "
                               f"as a binary float, which loses digits")
            if type(written) not in (str, int) or not _PLAIN_FACTOR.fullmatch(str(written).strip()):
                raise error_at(path, data, where, f"factor inválido para {tax} código {code}: un número decimal "
                                                  f"sin exponente, p. ej. \"0.12\"",
                               f"invalid factor for {tax} code {code}: a decimal number without exponent, "
                               f"e.g. \"0.12\"")
            factor = Decimal(str(written).strip())
            key = _unique_code(path, data, where, units, str(tax).upper(), code)
            base = unit.get("base")
            if base not in _BASES:
                raise error_at(path, data, where, f"{tax} código {code}: 'base' debe ser {' o '.join(_BASES)}",
                               f"{tax} code {code}: 'base' must be {' or '.join(_BASES)}")
            currency = unit.get("moneda")
            if currency is not None and not (isinstance(currency, str) and len(currency) == 3 and currency.isupper()):
                raise error_at(path, data, where,
                               f"{tax} código {code}: 'moneda' debe ser un código ISO 4217 (GTQ, USD)",
                               f"{tax} code {code}: 'moneda' must be an ISO 4217 code (GTQ, USD)")
            units[key] = TaxUnit(factor=factor, base=base, currency=currency, name=str(unit.get("nombre", "")))
    return units


def load_frases(path: Path) -> dict[tuple[str, str], FraseEntry]:
    """Every (TipoFrase, CodigoEscenario) of ``frases.yaml`` with its printed text."""
    if not path.is_file():
        return {}
    data = load_yaml(path)
    tipos = data.get("tipos") if isinstance(data, dict) else None
    if not isinstance(tipos, dict):
        raise RuleFileError("falta la clave 'tipos'", message_en="missing key 'tipos'", path=str(path), line=1)
    frases: dict[tuple[str, str], FraseEntry] = {}
    for tipo, entry in tipos.items():
        escenarios = entry.get("escenarios") if isinstance(entry, dict) else None
        if not isinstance(escenarios, dict):
            raise error_at(path, data, ("tipos", tipo), f"tipo {tipo}: se esperaba 'escenarios'",
                           f"type {tipo}: expected 'escenarios'")
        for escenario, frase in escenarios.items():
            if not isinstance(frase, dict) or not isinstance(frase.get("texto"), str):
                raise error_at(path, data, ("tipos", tipo, "escenarios", escenario),
                               f"tipo {tipo} escenario {escenario}: se esperaba {{texto: …}}",
                               f"type {tipo} scenario {escenario}: expected {{texto: …}}")
            resolucion = frase.get("resolucion", False)
            if not isinstance(resolucion, bool):
                raise error_at(path, data, ("tipos", tipo, "escenarios", escenario),
                               f"tipo {tipo} escenario {escenario}: 'resolucion' es true o false, sin comillas",
                               f"type {tipo} scenario {escenario}: 'resolucion' is true or false, unquoted")
            key = _unique_code(path, data, ("tipos", tipo, "escenarios", escenario), frases, code_key(tipo),
                               escenario)
            frases[key] = FraseEntry(text=frase["texto"], needs_resolution=resolucion)
    return frases


#: A factor as a data file writes it: digits, maybe a fraction; no sign, no exponent (``1e999999``), no spaces.
_PLAIN_FACTOR = re.compile(r"[0-9]{1,12}(?:\.[0-9]{1,12})?")


def code_key(code: object) -> str:
    """A code as the catalogues key it and the rules look it up: ``1``, ``"1"``, ``"01"`` and ``1.0`` are all
    ``"1"``; a code that is no whole number is its text, stripped."""
    text = str(code).strip()
    number = parse_decimal(text)
    if number is not None and number == number.to_integral_value():
        return str(int(number))
    return text


def _unique_code(path: Path, data: object, where: tuple, known: dict, first: str, code: object) -> tuple[str, str]:
    """The key of ``code`` under ``first``; an error when another code of the file has it already (``1`` and
    ``"01"``): the later one would silently replace the other."""
    key = (first, code_key(code))
    if key in known:
        raise error_at(path, data, where, f"el código {code} repite otro de la misma lista ({key[1]})",
                       f"code {code} repeats another of the same list ({key[1]})")
    return key


def load_personerias(path: Path) -> frozenset[str]:
    """TipoPersoneria codes of ``personerias.yaml`` marked ``rdon: true`` (may issue RDON)."""
    if not path.is_file():
        return frozenset()
    data = load_yaml(path)
    entries = data.get("personerias") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise RuleFileError("falta la clave 'personerias'", message_en="missing key 'personerias'",
                            path=str(path), line=1)
    allowed = set()
    for code, entry in entries.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("rdon"), bool):
            raise error_at(path, data, ("personerias", code),
                           f"personería {code}: se esperaba {{nombre, rdon: true|false}}",
                           f"personería {code}: expected {{nombre, rdon: true|false}}")
        if entry["rdon"]:
            allowed.add(str(code))
    return frozenset(allowed)
