"""JSON text indented by two spaces, the very text of ``json.dumps(data, ensure_ascii=False, indent=2)``, written
faster: the standard library's C encoder does not indent, and its Python one makes a generator per value."""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any

__all__ = ["indented_json"]

_LITERALS = {None: "null", True: "true", False: "false"}
_KEYS: dict[str, str] = {}  # each key as written before its value (reports have a few dozen)


def indented_json(data: object) -> str:
    """``data`` (dicts with text keys, lists and tuples, text, numbers, booleans, None) as indented JSON text."""
    return _text(data, "")


def _key(key: str) -> str:
    written = _KEYS.get(key)
    if written is None:
        written = encode_basestring(key) + ": "
        if len(_KEYS) < 1024:
            _KEYS[key] = written
    return written


def _text(value: Any, pad: str) -> str:
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is dict or (kind is not list and isinstance(value, dict)):
        if not value:
            return "{}"
        inner = pad + "  "
        return "{\n" + ",\n".join([inner + _key(key) + (encode_basestring(item) if type(item) is str
                                                        else _text(item, inner))
                                   for key, item in value.items()]) + "\n" + pad + "}"
    if kind is list or isinstance(value, list | tuple):
        if not value:
            return "[]"
        inner = pad + "  "
        return "[\n" + ",\n".join([inner + _text(item, inner) for item in value]) + "\n" + pad + "]"
    if value is None or value is True or value is False:
        return _LITERALS[value]
    if isinstance(value, str):
        return encode_basestring(value)
    if isinstance(value, int):
        return int.__repr__(value)
    return json.dumps(value, ensure_ascii=False)  # a float as json writes it (1e-05, NaN), or json's TypeError
