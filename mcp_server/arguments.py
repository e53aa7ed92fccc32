"""Tool-argument errors said in Spanish: pydantic's error types turned into short sentences a model can act on."""

from __future__ import annotations

from pydantic import ValidationError

__all__ = ["argument_problems"]

#: pydantic error type → Spanish text (``{name}`` placeholders come from the error's context).
_TEXTS = {
    "missing": "falta (es obligatorio)",
    "extra_forbidden": "no es un argumento de esta herramienta",
    "string_type": "debe ser texto",
    "bool_type": "debe ser true o false",
    "bool_parsing": "debe ser true o false",
    "int_type": "debe ser un número entero",
    "int_parsing": "debe ser un número entero",
    "int_from_float": "debe ser un número entero",
    "greater_than_equal": "debe ser mayor o igual que {ge}",
    "less_than_equal": "debe ser menor o igual que {le}",
    "greater_than": "debe ser mayor que {gt}",
    "less_than": "debe ser menor que {lt}",
    "literal_error": "debe ser uno de: {expected}",
    "string_too_long": "es demasiado largo (máximo {max_length} caracteres)",
    "string_too_short": "es demasiado corto (mínimo {min_length} caracteres)",
    "dict_type": "debe ser un objeto",
    "model_type": "debe ser un objeto",
    "list_type": "debe ser una lista",
}


def argument_problems(exc: ValidationError) -> str:
    """Every problem of ``exc`` as ``field: what is wrong``, separated by ``; `` (never pydantic's English)."""
    return "; ".join(_problem(error) for error in exc.errors())


def _problem(error: dict) -> str:
    where = ".".join(str(part) for part in error.get("loc", ()) if part != "__root__") or "argumentos"
    context = error.get("ctx") or {}
    if error.get("type") == "value_error":  # the tools' own checks raise ValueError with a Spanish text
        return f"{where}: {context.get('error', '')}" if where != "argumentos" else str(context.get("error", ""))
    text = _TEXTS.get(error.get("type", ""), "tiene un valor no válido")
    try:
        said = text.format(**{key: _spanish(value) for key, value in context.items()})
    except (KeyError, IndexError, ValueError):
        said = text
    return f"{where}: {said}"


def _spanish(value: object) -> str:
    """pydantic's ``'a' or 'b'`` lists said with Spanish ``o``."""
    return str(value).replace("' or '", "' o '")
