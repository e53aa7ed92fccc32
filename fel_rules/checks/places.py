"""Named places of a document (``emision``, ``items``, ``certificacion``…) written inside rule XPaths.

A rule may start a location path with the name of a place instead of its absolute XPath:
``frases[@TipoFrase = 4]`` stands for ``/dte:GTDocumento/…/dte:Frases/dte:Frase[@TipoFrase = 4]``.
A place is an unprefixed name at the start of a location path (document elements always carry a
prefix, so such a name never means an element); anywhere else an unprefixed name keeps its XPath
meaning (``@Tipo``, ``count(…)``, ``self::node()``). The names are defined once, in
``rules/data/lugares.yaml``; an unknown name is an error when the rules load, with its column.
Without places (a check kind used on its own, on documents without namespaces) paths are plain XPath.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["PlaceError", "expand_places"]

_TOKEN = re.compile(
    r"""(?P<space>\s+)
    |(?P<literal>"[^"]*"|'[^']*')
    |(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)
    |(?P<name>[A-Za-z_][\w.-]*(?::(?:[A-Za-z_][\w.-]*|\*))?)
    |(?P<symbol>::|//|\.\.|!=|<=|>=|\S)""",
    re.VERBOSE,
)

#: Tokens after which a name is a name test, not an operator (XPath 1.0, section 3.7).
_OPERATOR_CONTEXT = {"@", "::", "(", "[", ",", "/", "//", "|", "+", "-", "=", "!=", "<", "<=", ">", ">=", "$",
                     "and", "or", "mod", "div", "*"}

#: Tokens after which a name test continues a path or names an attribute, axis or variable.
_INSIDE_PATH = {"@", "::", "/", "//", "$"}


class PlaceError(ValueError):
    """An unknown place name; ``column`` is 1-based within the XPath text."""

    def __init__(self, message: str, message_en: str, column: int) -> None:
        super().__init__(message)
        self.message_en = message_en
        self.column = column


def expand_places(path: str, places: Mapping[str, str]) -> str:
    """``path`` with every place name at the start of a location path replaced by its XPath."""
    if not places:
        return path
    out: list[str] = []
    previous: str | None = None  # the last token that was not whitespace, as written
    previous_is_operator = True  # at the start, a name is a name test
    tokens = [(match.lastgroup, match.group(), match.start()) for match in _TOKEN.finditer(path)]
    for index, (kind, text, start) in enumerate(tokens):
        if kind == "space":
            out.append(text)
            continue
        if kind == "name" and not previous_is_operator:
            out.append(text)  # an operator name: and, or, div, mod
            previous, previous_is_operator = text, True
            continue
        if kind == "name" and ":" not in text and previous not in _INSIDE_PATH and not _followed_by(tokens, index):
            out.append(_place(text, places, start))
        else:
            out.append(text)
        if kind == "symbol" and text == "*":
            operator = not previous_is_operator  # after an operand, * multiplies
        else:
            operator = kind == "symbol" and text in _OPERATOR_CONTEXT
        previous, previous_is_operator = text, operator
    return "".join(out)


def _followed_by(tokens: list[tuple[str | None, str, int]], index: int) -> bool:
    """True when the name at ``index`` is a function, node type or axis (next token ``(`` or ``::``)."""
    for kind, text, _ in tokens[index + 1:]:
        if kind != "space":
            return text in ("(", "::")
    return False


def _place(name: str, places: Mapping[str, str], start: int) -> str:
    expansion = places.get(name)
    if expansion is None:
        known = ", ".join(sorted(places))
        raise PlaceError(
            f"lugar desconocido '{name}'; lugares definidos en rules/data/lugares.yaml: {known}",
            f"unknown place '{name}'; places defined in rules/data/lugares.yaml: {known}",
            start + 1,
        )
    return expansion
