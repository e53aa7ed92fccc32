"""Simple values judged as a conformant XSD validator judges them (xmlschema's extra validator).

xmlschema normalises whitespace with Python's Unicode ``\\s`` and its xs:decimal reader drops
every inner space, so ``99 999.99``, ``5 5`` or an amount with a no-break space pass as
decimals; Python's ``int`` lets ``1_2`` and Arabic-Indic digits pass as xs:integer. In XML
Schema only #x20, #x9, #xA and #xD are whitespace (``whiteSpace`` replace/collapse touch
nothing else), and a number has one lexical form of ASCII digits. :func:`lexical_errors` judges
again every simple value of an element (text and declared attributes) that way; it is given to
``iter_errors`` as ``extra_validator``, so its errors are schema errors like any other.

It also refuses what xmlschema lets through and XML Schema 1.0 does not:

* ``NaN`` where the type has a bound (``minInclusive``…): NaN compares with nothing, so it is outside
  every bounded float or double type (XSD 1.0 Second Edition, erratum E2-40);
* an ``xs:anyURI`` that is no URI reference (``#a#b``, ``a%zz``, ``+a:b``, ``[``) and a name (``xs:ID``,
  ``xs:NCName``…) with a character XML 1.0 names do not have (a no-break space, ``⁰``, a leading ``١``):
  xmlschema checks neither the URI syntax nor the XML 1.0 name tables, so these two families are
  judged by libxml2's own datatype check (RFC 3986 after escaping; the XML 1.0 name productions);
* character data made of no-break or other non-XML spaces between child elements, which xmlschema
  takes for ignorable white space.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from functools import cache, lru_cache

from lxml import etree

__all__ = ["lexical_errors", "names_types"]

_XS = "{http://www.w3.org/2001/XMLSchema}"
_XSI = "http://www.w3.org/2001/XMLSchema-instance"
_XSI_TYPE = f"{{{_XSI}}}type"

#: Characters Python takes for whitespace and XML does not (no-break space, em space, …).
_NON_XML_SPACE = re.compile(r"[^\S\t\n\r ]")
_XML_SPACES = re.compile(r"[\t\n\r ]+")
_XML_SPACE = re.compile(r"[\t\n\r]")
_ANY_SPACE = re.compile(r"\s")
#: What a probe puts in place of a non-XML space: a character that is no whitespace to Python either and
#: that patterns class as they class a no-break space — not \w (category Cf, as Z is not), \S, ``.``, in no
#: ASCII range, no name character (U+FFFD, a symbol, would pass for \w). Only ``\p{Z}`` tells them apart.
_NOT_A_SPACE = "\u200b"
#: Steps from a builtin type up to xs:anySimpleType (xs:byte is the deepest, 6 steps).
_MAX_DERIVATION = 12

#: Lexical forms (XSD 1.0 Part 2, §3.2.3, §3.3.13, §3.2.4/5) with ASCII digits only.
_LEXICAL = {
    "decimal": re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", re.ASCII),
    "integer": re.compile(r"[+-]?[0-9]+", re.ASCII),
    "float": re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[Ee][+-]?[0-9]+)?|INF|-INF|NaN", re.ASCII),
}
_FAMILIES = {
    f"{_XS}integer": "integer",
    f"{_XS}decimal": "decimal",
    f"{_XS}float": "float",
    f"{_XS}double": "float",
    **{f"{_XS}{name}": "token" for name in (
        "boolean", "duration", "dateTime", "time", "date", "gYearMonth", "gYear", "gMonthDay", "gDay", "gMonth",
    )},
    **{f"{_XS}{name}": "libxml2" for name in ("anyURI", "ID", "NCName", "Name", "NMTOKEN")},
}
#: xmlschema's way of saying a bound is not met, per facet (for NaN, which meets none).
_BOUNDS = (("minInclusive", "greater or equal than"), ("minExclusive", "greater than"),
           ("maxInclusive", "lesser or equal than"), ("maxExclusive", "lesser than"))
_TEXT_BETWEEN_CHILDREN = "character data between child elements not allowed"


def lexical_errors(element, xsd_element) -> Iterator[str]:
    """Why ``element``'s text or attributes are invalid where xmlschema's own reading lets them through.

    xmlschema turns each reason into a validation error of ``element``. An element with ``xsi:type`` is judged
    by the type it names (on an lxml element, whose prefixes are known; see :func:`names_types`).
    """
    xsd_type = xsd_element.type
    if _XSI_TYPE in element.attrib:
        xsd_type = _instance_type(element, xsd_element)
        if xsd_type is None:  # a type xmlschema cannot find either: its own error says so
            return
    content, attributes, element_only = _plan(xsd_type)
    if element_only and _foreign_space_between_children(element):
        yield _TEXT_BETWEEN_CHILDREN
    if content is not None and element.text is not None:
        reason = _judge(element.text, content)
        if reason is not None:
            yield reason
    if attributes:
        for name, value in element.attrib.items():
            simple_type = attributes.get(name)
            reason = _judge(value, simple_type) if simple_type is not None else None
            if reason is not None:
                yield f"attribute {name}={value!r}: {reason}"


def names_types(source: bytes) -> bool:
    """True when ``source`` may use ``xsi:type``: an ElementTree copy of it, which forgets prefixes, cannot be
    judged by :func:`lexical_errors`."""
    return _XSI.encode() in source


def _instance_type(element, xsd_element):
    """The type ``xsi:type`` names on ``element``, or ``None``."""
    prefix, _, local = element.get(_XSI_TYPE, "").strip().rpartition(":")
    namespace = getattr(element, "nsmap", {}).get(prefix or None)
    if namespace is None and prefix:
        return None
    return xsd_element.schema.maps.types.get(f"{{{namespace}}}{local}" if namespace else local)


@lru_cache(maxsize=4096)
def _plan(xsd_type) -> tuple[object | None, dict[str, object], bool]:
    """(simple type of the text, simple type per attribute name, element-only content?) of an element's type,
    judged types only."""
    if xsd_type.is_simple():
        return (xsd_type if _kind(xsd_type)[0] else None), {}, False
    content = xsd_type.content if xsd_type.has_simple_content() else None
    attributes = {name: attribute.type for name, attribute in xsd_type.attributes.items()
                  if name and attribute.type is not None and _kind(attribute.type)[0]}
    return (content if content is not None and _kind(content)[0] else None), attributes, xsd_type.is_element_only()


def _foreign_space_between_children(element) -> bool:
    """True when text between the children of an element-only element holds a non-XML space."""
    if element.text and _NON_XML_SPACE.search(element.text):
        return True
    return any(child.tail and _NON_XML_SPACE.search(child.tail) for child in element)


def _judge(value: str, simple_type) -> str | None:
    """Why a conformant validator refuses ``value`` that xmlschema accepts, else ``None``.

    A value xmlschema refuses too is left to xmlschema's own error (one error per value).
    """
    family, builtin, white_space = _kind(simple_type)
    if family is None or (family == "string" and not _NON_XML_SPACE.search(value)):
        return None  # the common case: xmlschema's reading is already the conformant one
    normalized = _xml_normalized(value, white_space)
    if family in _LEXICAL:
        reason = None if _LEXICAL[family].fullmatch(normalized) else _invalid(value, builtin)
        if reason is None and family == "float" and normalized == "NaN":
            reason = _nan_bound(simple_type)
    elif family == "libxml2":
        lexical = "NCName" if builtin in ("IDREF", "ENTITY") else builtin  # what libxml2 checks beyond is the DTD's
        reason = None if _libxml2_accepts(lexical, value) else _invalid(value, builtin)
    elif family == "token":
        reason = _invalid(value, builtin) if _ANY_SPACE.search(normalized) else None
    else:
        reason = _first_error(simple_type, _NON_XML_SPACE.sub(_NOT_A_SPACE, normalized))
    if reason is None or _first_error(simple_type, value) is not None:
        return None
    return reason


def _nan_bound(simple_type) -> str | None:
    """Why NaN is outside ``simple_type``: the first bound it has (NaN meets none), else ``None``."""
    for facet, words in _BOUNDS:
        found = simple_type.get_facet(f"{_XS}{facet}")
        if found is not None:
            return f"value has to be {words} {found.value}"
    return None


_libxml2_lock = threading.Lock()


def _libxml2_accepts(builtin: str, value: str) -> bool:
    """libxml2's verdict on ``value`` as an ``xs:<builtin>`` (its lexical check only; facets are xmlschema's):
    the URI syntax (escaped, then RFC 3986) and the XML 1.0 name productions, which xmlschema does not check."""
    element = etree.Element("v")
    element.text = value
    with _libxml2_lock:  # a compiled schema's error log is shared: one validation at a time
        return _libxml2_type(builtin).validate(element)


@cache
def _libxml2_type(builtin: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.fromstring(
        f'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="v" type="xs:{builtin}"/>'
        "</xs:schema>"))


def _first_error(simple_type, value: str) -> str | None:
    error = next(iter(simple_type.iter_errors(value)), None)
    return None if error is None else str(getattr(error, "reason", None) or error)


@lru_cache(maxsize=4096)
def _kind(simple_type) -> tuple[str | None, str, str | None]:
    """(family, builtin name, whiteSpace) of a simple type; family ``None`` for lists, unions, anySimpleType."""
    from xmlschema.validators import (
        XsdAtomicBuiltin,  # slow import, kept off the import path of fel_rules
    )

    builtin = simple_type
    while not isinstance(builtin, XsdAtomicBuiltin):
        if builtin is None or builtin.is_list() or builtin.is_union():
            return None, "", None
        builtin = builtin.base_type
    white_space = getattr(simple_type, "white_space", None)
    family = next((_FAMILIES[name] for name in _builtin_chain(builtin) if name in _FAMILIES), "string")
    return family, builtin.local_name or "", white_space


def _builtin_chain(builtin) -> Iterator[str]:
    """Names of a builtin type and of the builtins it derives from (xs:int, xs:long, …, xs:decimal)."""
    for _ in range(_MAX_DERIVATION):
        name = getattr(builtin, "name", None)
        if builtin is None or not name:
            return
        yield name
        builtin = builtin.base_type


def _xml_normalized(value: str, white_space: str | None) -> str:
    if white_space == "collapse":
        return _XML_SPACES.sub(" ", value).strip(" ")
    if white_space == "replace":
        return _XML_SPACE.sub(" ", value)
    return value


def _invalid(value: str, builtin: str) -> str:
    return f"invalid value {value!r} for xs:{builtin}"

