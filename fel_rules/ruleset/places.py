"""Named places of a document, read from ``rules/data/lugares.yaml`` (see :mod:`fel_rules.checks.places`).

The file maps each kind of document (``documento``, ``anulacion``) to names and absolute XPaths; a
place may start with an earlier place of the same kind (``generales: emision/dte:DatosGenerales``).
A rules folder without the file uses the places that ship with fel-rules. Errors name the file, line
and column, like rule files.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..checks._xpath import compile_xpath
from ..checks.places import PlaceError, expand_places
from ..core.errors import RuleFileError
from ..core.namespaces import DS, DTE, DTE_ANULACION
from ..core.resources import BUILTIN_RULES_DIR
from ..core.yamlfile import load_yaml, position, value_position

__all__ = ["DOCUMENT_NAMESPACES", "PLACES_FILE", "Places", "load_places"]

#: Namespaces of each kind of document; a rule file may add more.
DOCUMENT_NAMESPACES = {"documento": {"dte": DTE, "ds": DS}, "anulacion": {"dte": DTE_ANULACION, "ds": DS}}

#: Where a rules folder defines its places.
PLACES_FILE = Path("data") / "lugares.yaml"

#: {document kind: {place name: absolute XPath}}.
Places = dict[str, dict[str, str]]

_NAME = re.compile(r"[a-z][a-z0-9_]*")


def load_places(rules_dir: Path) -> Places:
    """The places of ``rules_dir`` (its ``data/lugares.yaml``, else the built-in file), fully expanded."""
    path = rules_dir / PLACES_FILE
    if not path.is_file():
        path = BUILTIN_RULES_DIR / PLACES_FILE
        if not path.is_file():
            return {kind: {} for kind in DOCUMENT_NAMESPACES}
    data = load_yaml(path)
    if not isinstance(data, dict):
        raise RuleFileError("se esperaba un mapeo con documento y anulacion",
                            message_en="expected a mapping with documento and anulacion", path=str(path), line=1)
    unknown = [key for key in data if key not in (*DOCUMENT_NAMESPACES, "schema_version", "source")]
    if unknown:
        raise _error(path, data, (unknown[0],), position,
                     f"clave desconocida '{unknown[0]}'; se esperaba documento o anulacion",
                     f"unknown key '{unknown[0]}'; expected documento or anulacion")
    return {kind: _places_of(path, data, kind) for kind in DOCUMENT_NAMESPACES}


def _places_of(path: Path, data: dict, kind: str) -> dict[str, str]:
    entries = data.get(kind) or {}
    if not isinstance(entries, dict):
        raise _error(path, data, (kind,), position, f"'{kind}' debe ser un mapeo nombre → XPath",
                     f"'{kind}' must be a mapping name → XPath")
    places: dict[str, str] = {}
    for name, xpath in entries.items():
        where = (kind, name)
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise _error(path, data, where, position,
                         f"nombre de lugar no permitido {name!r}: minúsculas, dígitos y _",
                         f"place name not allowed {name!r}: lower case, digits and _")
        if not isinstance(xpath, str) or "|" in xpath:
            raise _error(path, data, where, value_position, f"'{name}': se esperaba una sola ruta XPath (sin |)",
                         f"'{name}': expected a single XPath location path (no |)")
        try:
            expanded = expand_places(xpath.strip(), places)
        except PlaceError as exc:
            raise _error(path, data, where, value_position, str(exc), exc.message_en, offset=exc.column) from None
        if not expanded.startswith("/"):
            raise _error(path, data, where, value_position,
                         f"'{name}': la ruta debe ser absoluta (/…) o empezar con un lugar anterior",
                         f"'{name}': the path must be absolute (/…) or start with an earlier place")
        try:
            compile_xpath(expanded, DOCUMENT_NAMESPACES[kind], nodes=True)
        except ValueError as exc:
            raise _error(path, data, where, value_position, f"'{name}': {exc}",
                         f"'{name}': {getattr(exc, 'message_en', exc)}") from None
        places[name] = expanded
    return places


def _error(path: Path, data: Any, keys: tuple, locate, message: str, message_en: str,
           offset: int | None = None) -> RuleFileError:
    line, column = locate(data, keys)
    if offset is not None and column is not None:
        column += offset - 1
    return RuleFileError(message, message_en=message_en, path=str(path), line=line, column=column)
