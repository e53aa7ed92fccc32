"""What an xmlschema validation error says, as a FEL-XSD-01 finding: a readable sentence per kind of error (the
catalogue's ``xsd.*`` texts), in Spanish or English; xmlschema's own words are the finding's detail."""

from __future__ import annotations

import re
from collections.abc import Callable

from lxml import etree

from ..core.identifiers import uuid_numero, uuid_serie
from ..core.namespaces import prefixed
from ..core.text import Text
from ..core.xmlpath import element_xpath, item_number
from ..findings.model import Finding

__all__ = ["describe_error"]

_ORIGIN_FIELDS = {"SerieDocumentoOrigen", "NumeroDocumentoOrigen"}
_ATTRIBUTE = re.compile(r"^attribute (?P<attr>[\w:]+)='(?P<value>.*?)': (?P<rest>.*)$", re.S)
_MISSING_ATTRIBUTE = re.compile(r"^missing required attribute '(?P<attr>[^']+)'$")

#: Pattern on xmlschema's reason about a value → catalogue text (which sees what, value, and the groups). A reason
#: no pattern knows gets ``xsd.invalid_value``; the reason itself is kept as the finding's detail.
_FACETS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^value doesn't match any pattern of \[(?P<patterns>.*)\]$", re.S), "xsd.pattern"),
    (re.compile(r"^value must be one of \[(?P<options>.*)\]$", re.S), "xsd.enumeration"),
    (re.compile(r"^value has to be greater or equal than (?:Decimal\(')?(?P<limit>[^')]+)'?\)?$"), "xsd.min_inclusive"),
    (re.compile(r"^value has to be (?:lesser|less than) or equal than (?:Decimal\(')?(?P<limit>[^')]+)'?\)?$"),
     "xsd.max_inclusive"),
    (re.compile(r"^value has to be greater than (?:Decimal\(')?(?P<limit>[^')]+)'?\)?$"), "xsd.min_exclusive"),
    (re.compile(r"^value has to be (?:lesser|less) than (?:Decimal\(')?(?P<limit>[^')]+)'?\)?$"), "xsd.max_exclusive"),
    (re.compile(r"^the number of fraction digits has to be lesser or equal than (?P<limit>\d+)$"),
     "xsd.fraction_digits"),
    (re.compile(r"^the number of digits has to be lesser or equal than (?P<limit>\d+)$"), "xsd.total_digits"),
    (re.compile(r"^invalid value '(?P<raw>.*)' for xs:(?P<type>\w+)$", re.S), "xsd.invalid_type"),
    (re.compile(r"^value is not a valid xs:(?P<type>\w+)$"), "xsd.invalid_type"),
    (re.compile(r"^Invalid (?:datetime|dateTime|DateTime)\w* string '(?P<raw>.*)' for ", re.S), "xsd.not_datetime"),
    (re.compile(r"^Invalid date\w* string '(?P<raw>.*)' for ", re.S), "xsd.not_date"),
    (re.compile(r"^Invalid \w+ string '(?P<raw>.*)' for ", re.S), "xsd.not_time"),
    (re.compile(r"^(?:day|month|year|hour|minute|second|microsecond)s? (?:is )?(?:out of range|must be in)"),
     "xsd.no_such_date"),
    (re.compile(r"^invalid literal for int\(\)"), "xsd.not_integer"),
    (re.compile(r"^value must be positive$"), "xsd.positive"),
    (re.compile(r"^value must be non negative$"), "xsd.non_negative"),
    (re.compile(r"^value must be negative$"), "xsd.negative"),
    (re.compile(r"^value must be non positive$"), "xsd.non_positive"),
    (re.compile(r"^value length cannot be (?:lesser|less) than (?P<limit>\d+)$"), "xsd.min_length"),
    (re.compile(r"^value length cannot be greater than (?P<limit>\d+)$"), "xsd.max_length"),
    (re.compile(r"^length has to be (?P<limit>\d+)$"), "xsd.length"),
    (re.compile(r"^value contains (?:non collapsed white spaces|tabs or newlines)$"), "xsd.whitespace"),
    (re.compile(r"^(?:must have the fixed value|value must be) '?(?P<fixed>.*?)'?$"), "xsd.fixed"),
]

#: Pattern on xmlschema's reason about an element → its catalogue text and values.
_ELEMENTS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Text]]] = [
    (re.compile(r"^Unexpected child with tag '(?P<tag>[^']+)' at position (?P<pos>\d+)\."
                r"(?: Tag (?P<exp>.+) expected\.)?$", re.S),
     lambda m: Text.of("xsd.unexpected_child_expected", tag=m["tag"], pos=m["pos"], expected=_expected(m["exp"]))
     if m["exp"] else Text.of("xsd.unexpected_child", tag=m["tag"], pos=m["pos"])),
    (re.compile(r"^The content of element '(?P<el>[^']+)' is not complete\.(?: Tag (?P<exp>.+) expected\.)?$", re.S),
     lambda m: Text.of("xsd.incomplete_expected", element=m["el"], expected=_expected(m["exp"]))
     if m["exp"] else Text.of("xsd.incomplete", element=m["el"])),
    (re.compile(r"^missing required attribute '(?P<attr>[^']+)'$"),
     lambda m: Text.of("xsd.missing_attribute", attribute=m["attr"])),
    (re.compile(r"^'(?P<attr>[^']+)' attribute not allowed for element\.?$"),
     lambda m: Text.of("xsd.attribute_not_allowed", attribute=m["attr"])),
    (re.compile(r"^character data between child elements not allowed$"),
     lambda m: Text("xsd.text_between_children")),
    (re.compile(r"^character data is not allowed because content is empty$"),
     lambda m: Text("xsd.text_not_allowed")),
    (re.compile(r"^attribute '(?P<attr>[^']+)' not allowed"),
     lambda m: Text.of("xsd.attribute_not_allowed", attribute=m["attr"])),
    (re.compile(r"^'?(?P<el>[^' ]+)'? is not an element of the schema"),
     lambda m: Text.of("xsd.unknown_element", element=m["el"])),
]


def _expected(text: str) -> Text | str:
    """xmlschema's ``'a' or 'b'`` as the alternatives a or b (said in the report's language)."""
    names = text.replace("'", "").split(" or ")
    said: Text | str = names[0]
    for name in names[1:]:
        said = Text.of("list.or", first=said, second=name)
    return said


def describe_error(error: object) -> Finding:
    """One xmlschema validation error as a FEL-XSD-01 finding."""
    found = getattr(error, "elem", None)
    element = found if isinstance(found, etree._Element) else None
    reason = str(getattr(error, "reason", None) or error)
    tag = element.tag if element is not None else None  # not a str: a comment or processing instruction
    where = prefixed(tag) if isinstance(tag, str) else Text("xsd.the_document")
    xpath = element_xpath(element) if element is not None else getattr(error, "path", None)
    line = element.sourceline if element is not None else getattr(error, "sourceline", None)
    field = etree.QName(element).localname if isinstance(tag, str) else None

    attribute = _ATTRIBUTE.match(reason)
    if attribute:
        field = attribute["attr"]
        xpath = f"{xpath}/@{field}" if xpath else None
        detail = _facet(attribute["rest"], Text.of("xsd.what.attribute", field=field, where=where), attribute["value"])
    else:
        missing = _MISSING_ATTRIBUTE.match(reason.strip())
        if missing:
            field = missing["attr"]
        detail = _element_text(reason) or _facet(reason, Text.of("xsd.what.field", where=where), _content(element))
    detail = Text(detail.id, {**detail.values, "where": where})
    return Finding(id="FEL-XSD-01", xpath=xpath, line=line, item=item_number(element) if element is not None else None,
                   field=field, values={"detail": detail}, hint=_origin_hint(element, field), detail=reason)


def _origin_hint(element: etree._Element | None, field: str | None) -> Text | None:
    """For a note or constancia missing its origin's SerieDocumentoOrigen/NumeroDocumentoOrigen: what to put there
    (for an electronic origin, derived from its authorization number)."""
    if element is None or field not in _ORIGIN_FIELDS or not isinstance(element.tag, str):
        return None
    uuid = element.get("NumeroAutorizacionDocumentoOrigen") or ""
    serie, numero = uuid_serie(uuid), uuid_numero(uuid)
    if serie is None or numero is None:
        return Text("xsd.hint.origin_serie_numero")
    return Text.of("xsd.hint.origin_serie_numero_of", uuid=uuid, serie=serie, numero=numero)


def _facet(rest: str, what: Text, value: str) -> Text:
    for pattern, text in _FACETS:
        match = pattern.match(rest.strip())
        if match:
            return Text(text, {"what": what, "value": value, **match.groupdict()})
    return Text.of("xsd.invalid_value", what=what, value=value)


def _element_text(reason: str) -> Text | None:
    for pattern, build in _ELEMENTS:
        match = pattern.match(reason.strip())
        if match:
            return build(match)
    return None


def _content(element: etree._Element | None) -> str:
    """The text of ``element`` without surrounding blanks (none when the error has no element)."""
    return (element.text or "").strip() if element is not None else ""
