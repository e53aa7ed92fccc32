"""XML Schema patterns as XML Schema defines them, for xmlschema (the reference engine).

xmlschema hands a multi-character escape written outside square brackets (``\\w``, ``\\d``, ``\\s`` and their
negations) to Python's ``re`` unchanged, so it means what Python says: ``\\w`` takes ``_`` and refuses ``$``,
``+``, ``=``, ``^``, ``|``, ``~`` and combining marks; ``\\s`` takes the no-break space; ``\\d`` is Python's
digit set. In XML Schema ``\\w`` is every character outside the Unicode categories P, Z and C, ``\\s`` is
exactly space, tab, CR and LF, and ``\\d`` is category Nd. Inside square brackets xmlschema already reads the
escapes that way, and ``[\\w]`` means ``\\w`` by definition, so each pattern is compiled with its bare
multi-character escapes put inside brackets. The schema keeps the pattern as written, so messages quote it
as the schema author wrote it.
"""

from __future__ import annotations

from functools import cache
from xml.etree.ElementTree import Element

__all__ = ["bracket_escapes", "reference_schema_class"]

#: Multi-character escapes that xmlschema passes to Python as they are when they stand outside brackets.
_PYTHON_READS = frozenset("wWdDsS")


def bracket_escapes(pattern: str) -> str:
    """``pattern`` with every ``\\w \\W \\d \\D \\s \\S`` outside a character class written as ``[\\w]``… —
    the same language (XSD 1.0 Part 2, appendix F), spelled so that xmlschema reads it as XML Schema does."""
    out: list[str] = []
    depth = 0  # character-class nesting ("[a-z-[aeiou]]" nests one subtraction)
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            escape = pattern[index:index + 2]
            out.append(f"[{escape}]" if depth == 0 and escape[1] in _PYTHON_READS else escape)
            index += 2
            continue
        if char == "[":
            depth += 1
        elif char == "]" and depth:
            depth -= 1
        out.append(char)
        index += 1
    return "".join(out)


@cache
def reference_schema_class() -> type:
    """``xmlschema.XMLSchema10`` whose pattern facets compile :func:`bracket_escapes` of their value."""
    import xmlschema  # slow import, kept off the import path of fel_rules
    from xmlschema.validators.builders import XsdBuilders
    from xmlschema.validators.facets import XsdPatternFacets

    class ConformantPatterns(XsdPatternFacets):
        def _parse_value(self, elem):
            value = elem.attrib.get("value")
            if value is None or bracket_escapes(value) == value:
                return super()._parse_value(elem)
            return super()._parse_value(Element(elem.tag, {**elem.attrib, "value": bracket_escapes(value)}))

    class ReferenceSchema(xmlschema.XMLSchema10):
        builders = XsdBuilders(None, ConformantPatterns)

    return ReferenceSchema
