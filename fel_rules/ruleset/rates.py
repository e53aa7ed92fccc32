"""Tax rates per (tax, CodigoUnidadGravable), read from ``rules/data/impuestos.yaml``."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from pathlib import Path

from ..errors import RuleFileError
from .yamlfile import load_yaml, position

__all__ = ["load_rates"]


def load_rates(path: Path) -> dict[tuple[str, str], Decimal]:
    """``{("IVA", "1"): Decimal("0.12"), …}``; an absent file gives no rates."""
    if not path.is_file():
        return {}
    data = load_yaml(path)
    rates: dict[tuple[str, str], Decimal] = {}
    taxes = data.get("impuestos") if isinstance(data, dict) else None
    if not isinstance(taxes, dict):
        raise RuleFileError("falta la clave 'impuestos'", message_en="missing key 'impuestos'", path=str(path), line=1)
    for tax, entry in taxes.items():
        units = entry.get("unidades") if isinstance(entry, dict) else None
        if not isinstance(units, dict):
            line, column = position(data, ("impuestos", tax))
            raise RuleFileError(
                f"{tax}: se esperaba 'unidades' como un mapeo código → {{factor, base, nombre}}",
                message_en=f"{tax}: expected 'unidades' as a mapping code → {{factor, base, nombre}}",
                path=str(path), line=line, column=column,
            )
        for code, unit in units.items():
            try:
                factor = Decimal(str(unit["factor"]))
                if not factor.is_finite() or factor < 0:
                    raise InvalidOperation
                rates[(str(tax).upper(), str(code))] = factor
            except (KeyError, TypeError, InvalidOperation):
                line, column = position(data, ("impuestos", tax, "unidades", code))
                raise RuleFileError(
                    f"factor inválido para {tax} código {code}",
                    message_en=f"invalid factor for {tax} code {code}",
                    path=str(path), line=line, column=column,
                ) from None
    return rates
