"""Readable Spanish and English messages for xmlschema validation errors."""

from __future__ import annotations

import re
from collections.abc import Callable

from lxml import etree

from ..core.namespaces import prefixed
from ..core.report import Issue, Location
from ..core.xmlpath import element_xpath, item_number
from ..findings.messages import ENGINE_MESSAGES

__all__ = ["describe_error"]

_ATTRIBUTE = re.compile(r"^attribute (?P<attr>[\w:]+)='(?P<value>.*?)': (?P<rest>.*)$", re.S)
_MISSING_ATTRIBUTE = re.compile(r"^missing required attribute '(?P<attr>[^']+)'$")

# (pattern on xmlschema's reason, Spanish template). Templates see: what, value, and the groups.
_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^value doesn't match any pattern of \[(?P<patterns>.*)\]$", re.S),
     "{what} tiene el valor '{value}', que no cumple el formato permitido ({patterns})."),
    (re.compile(r"^value must be one of \[(?P<options>.*)\]$", re.S),
     "{what} tiene el valor '{value}', que no está permitido; valores válidos: {options}."),
    (re.compile(r"^value has to be greater or equal than (?:Decimal\(')?(?P<limit>[^')]+)'?\)?$"),
     "{what} tiene el valor '{value}', que debe ser mayor o igual a {limit}."),
    (re.compile(r"^value has to be lesser or equal than (?:Decimal\(')?(?P<limit>[^')]+)'?\)?$"),
     "{what} tiene el valor '{value}', que debe ser menor o igual a {limit}."),
    (re.compile(r"^the number of fraction digits has to be lesser or equal than (?P<limit>\d+)$"),
     "{what} tiene el valor '{value}', con más de {limit} decimales."),
    (re.compile(r"^the number of digits has to be lesser or equal than (?P<limit>\d+)$"),
     "{what} tiene el valor '{value}', con más de {limit} dígitos."),
    (re.compile(r"^invalid value '(?P<raw>.*)' for xs:(?P<type>\w+)$", re.S),
     "{what} tiene el valor '{raw}', que no es un {type} válido."),
    (re.compile(r"^value length cannot be (?:lesser|less) than (?P<limit>\d+)$"),
     "{what} tiene el valor '{value}', más corto que el mínimo de {limit} caracteres."),
    (re.compile(r"^value length cannot be greater than (?P<limit>\d+)$"),
     "{what} tiene el valor '{value}', más largo que el máximo de {limit} caracteres."),
    (re.compile(r"^value must be (?P<fixed>.*)$"),
     "{what} tiene el valor '{value}' y debe ser {fixed}."),
]

_ELEMENT_RULES: list[tuple[re.Pattern[str], Callable[[re.Match[str], str], str]]] = [
    (re.compile(r"^Unexpected child with tag '(?P<tag>[^']+)' at position (?P<pos>\d+)\.(?: Tag (?P<exp>.+) expected\.)?$", re.S),
     lambda m, where: f"Elemento {m['tag']} inesperado en la posición {m['pos']} de {where}"
     + (f"; se esperaba {_expected(m['exp'])}." if m["exp"] else ".")),
    (re.compile(r"^The content of element '(?P<el>[^']+)' is not complete\.(?: Tag (?P<exp>.+) expected\.)?$", re.S),
     lambda m, where: f"El contenido de {m['el']} está incompleto"
     + (f": falta {_expected(m['exp'])}." if m["exp"] else ".")),
    (re.compile(r"^missing required attribute '(?P<attr>[^']+)'$"),
     lambda m, where: f"Falta el atributo obligatorio {m['attr']} en {where}."),
    (re.compile(r"^'(?P<attr>[^']+)' attribute not allowed for element\.?$"),
     lambda m, where: f"El atributo {m['attr']} no está permitido en {where}."),
    (re.compile(r"^character data between child elements not allowed$"),
     lambda m, where: f"{where} no admite texto entre sus elementos hijos."),
]


def _expected(text: str) -> str:
    return text.replace("'", "").replace(" or ", " o ")


def describe_error(error: object, lang: str) -> Issue:
    """Turn one xmlschema validation error into a FEL-XSD-01 issue."""
    entry = ENGINE_MESSAGES["FEL-XSD-01"]
    element = getattr(error, "elem", None)
    reason = str(getattr(error, "reason", None) or error)
    is_element = isinstance(element, etree._Element)
    where = prefixed(element.tag) if is_element and isinstance(element.tag, str) else "el documento"
    xpath = element_xpath(element) if is_element else getattr(error, "path", None)
    line = element.sourceline if is_element else getattr(error, "sourceline", None)
    field = etree.QName(element).localname if is_element and isinstance(element.tag, str) else None

    attribute = _ATTRIBUTE.match(reason)
    if attribute:
        field = attribute["attr"]
        xpath = f"{xpath}/@{field}" if xpath else None
        spanish = _facet_message(attribute["rest"], f"El atributo {field} de {where}", attribute["value"])
        english = f"{where}: {reason}"
    else:
        missing = _MISSING_ATTRIBUTE.match(reason.strip())
        if missing:
            field = missing["attr"]
        spanish = _element_message(reason, where)
        if spanish is None:
            value = (element.text or "").strip() if is_element else ""
            spanish = _facet_message(reason, f"El campo {where}", value)
        english = f"{where}: {reason}"
    index = 1 if lang == "en" else 0
    return Issue(
        rule_id=entry.rule_id,
        severity=entry.severity,
        stage=entry.stage,
        title=entry.title[index],
        message=english if lang == "en" else spanish,
        hint=entry.hint[index] if entry.hint else None,
        location=Location(xpath=xpath, line=line, item=item_number(element) if is_element else None, field=field),
    )


def _facet_message(rest: str, what: str, value: str) -> str:
    for pattern, template in _RULES:
        match = pattern.match(rest.strip())
        if match:
            return template.format(what=what, value=value, **match.groupdict())
    return f"{what} tiene el valor '{value}', que no es válido ({rest.strip()})."


def _element_message(reason: str, where: str) -> str | None:
    for pattern, build in _ELEMENT_RULES:
        match = pattern.match(reason.strip())
        if match:
            return build(match, where)
    return None
