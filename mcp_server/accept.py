"""The quick acceptance check of tool arguments, standard library only: it decides plainly right arguments (the
right keys, types, choices, lengths and ranges of the tool's input schema) and hands their values, defaults
filled in, to the handler. Whatever it does not accept goes to the tool's pydantic model (``mcp_server.tools``),
which either coerces it or says in Spanish what is wrong — so the check may refuse more than the model, never
less, and the messages are always the model's."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from .channel import DEFAULT_LINE_LIMIT

__all__ = ["DEFAULT_XML_TEXT_LIMIT", "XML_TEXT_LIMIT", "XML_TEXT_LIMIT_PROBLEM", "Param", "Params", "accept",
           "line_limit_for", "xml_text_limit"]

DEFAULT_XML_TEXT_LIMIT = 2 * 1024 * 1024  # characters of inline XML, unless FEL_MCP_MAX_XML_TEXT says otherwise
#: The bytes one character of a JSON string may take on the wire: ``\ud83d\ude00`` (an escaped astral character).
_WIRE_BYTES_PER_CHARACTER = 12


def xml_text_limit(value: str | None) -> tuple[int, str | None]:
    """The limit of ``xml_text`` a value of ``FEL_MCP_MAX_XML_TEXT`` sets (unset or empty: the default), and what
    is wrong with the value (``None``: nothing; the server refuses to start and says it, the default stands)."""
    if value is None or not value.strip():
        return DEFAULT_XML_TEXT_LIMIT, None
    text = value.strip()
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        return DEFAULT_XML_TEXT_LIMIT, (f"FEL_MCP_MAX_XML_TEXT debe ser un número entero de caracteres mayor que 0 "
                                        f"(se recibió {value!r})")
    return int(text), None


XML_TEXT_LIMIT, XML_TEXT_LIMIT_PROBLEM = xml_text_limit(os.environ.get("FEL_MCP_MAX_XML_TEXT"))


def line_limit_for(xml_text: int) -> int:
    """The longest JSON-RPC line to read when ``xml_text`` may hold ``xml_text`` characters: any tools/call within
    that limit fits, however its client escapes the characters (at least ``DEFAULT_LINE_LIMIT``)."""
    return max(DEFAULT_LINE_LIMIT, xml_text * _WIRE_BYTES_PER_CHARACTER + 64 * 1024)

_SURROGATE = re.compile("[\ud800-\udfff]")  # pydantic refuses a lone surrogate in a string with a length limit


@dataclass(frozen=True)
class Param:
    """One argument: its JSON type (``str``, ``bool`` or ``int``, taken strictly: no coercion, no bool for an
    int), whether ``null`` is allowed, its default (``required`` when it has none), and its constraints."""

    kind: type
    default: Any = None
    required: bool = False
    nullable: bool = False
    choices: tuple[str, ...] | None = None
    max_length: int | None = None
    minimum: int | None = None
    maximum: int | None = None

    def takes(self, value: Any) -> bool:
        """True when ``value`` is plainly right for this argument (the model would keep it as it is)."""
        if value is None:
            return self.nullable
        if type(value) is not self.kind:
            return False
        if self.choices is not None and value not in self.choices:
            return False
        if self.max_length is not None and (len(value) > self.max_length or _SURROGATE.search(value)):
            return False
        if self.minimum is not None and value < self.minimum:
            return False
        return self.maximum is None or value <= self.maximum


@dataclass(frozen=True)
class Params:
    """A tool's arguments: name → :class:`Param`; ``one_of``: names of which exactly one must be given (not null)."""

    fields: dict[str, Param]
    one_of: tuple[str, ...] = ()


def accept(params: Params, arguments: dict) -> dict[str, Any] | None:
    """Every argument's value (defaults filled in) when ``arguments`` are plainly right; ``None`` otherwise."""
    fields = params.fields
    for name, value in arguments.items():
        param = fields.get(name)
        if param is None or not param.takes(value):
            return None
    values: dict[str, Any] = {}
    for name, param in fields.items():
        if name in arguments:
            values[name] = arguments[name]
        elif param.required:
            return None
        else:
            values[name] = param.default
    if params.one_of and sum(values[name] is not None for name in params.one_of) != 1:
        return None
    return values
