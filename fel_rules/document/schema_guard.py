"""The documents on which libxml2's "valid" is not taken as the verdict: those go to the reference engine.

libxml2 (the decider) and xmlschema with :func:`~fel_rules.document.schema_lexical.lexical_errors` (the
reference) agree on every value of the FEL schema sets but a few kinds, where libxml2 accepts what the
reference refuses:

* ``xs:base64Binary`` — libxml2 skips every character outside the base64 alphabet (``QQ8E-Ief…``, ``1,000``);
* ``xs:float`` / ``xs:double`` — libxml2 takes an exponent without digits (``1e``, ``2E+``); xmlschema reads a
  float in double precision, so ``-1e-46`` is negative to it and zero to libxml2; ``NaN`` fails every bound;
* patterns with ``\\w``, ``\\d`` (or ``\\i``, ``\\c``, ``\\p{…}``) — libxml2's Unicode tables are older: it takes
  unassigned and private-use characters as letters, and its digits differ from today's;
* any value holding a character Python counts as a space and XML does not (no-break space, em space, NEL…):
  xmlschema strips and merges those (a name made of one no-break space is empty to it);
* ``xs:date``, ``xs:dateTime``, ``xs:gYear`` and ``xs:gYearMonth`` — libxml2 takes a year of any length, xmlschema
  cannot represent one of ten digits or more (nor, in places, a negative one) and says so as an error;
* whatever lax content (``ds:Object``, ``ds:KeyInfo``, an ``xs:anyType`` element) holds from the namespaces the
  reference knows from its own meta-schema and libxml2's set does not (XML Schema's, ``xml:``, ``xsi:``):
  libxml2 skips ``<xs:element name="1"/>``, ``xml:lang="!!"`` or ``xsi:nil="maybe"`` there, the reference
  validates them; and ``xsi:type`` can give any element one of the kinds above.

:class:`DecisionGuard` finds, from the schema documents themselves, the elements and attributes whose type is
one of those kinds, and tells for a document whether any of its values falls outside the forms on which both
engines were shown to agree (``tests/test_schema_engines.py``); a document with an element or attribute of those
meta-schema namespaces is doubted too (but ``xsi:schemaLocation`` and ``xsi:noNamespaceSchemaLocation`` on the
root element, where both engines read them alike). Such a document is validated by the reference engine, whatever
libxml2 said. The agreed forms are plain on purpose: ``150.00`` as a float, base64 text without stray characters,
a pattern-checked value in Basic Latin or the Latin letters up to U+0377 (but ``§`` and ``¶``, punctuation today
and symbols to libxml2), a date whose year has four digits.

The byte searches that spare most documents a walk of their tree read the bytes as they are: a name or a
character can also be written as a character reference (``&#xA0;``, ``&#x00000A0;``, a namespace URI with
``&#45;`` in it), so a document with character references is searched in its tree, or for the references too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

from lxml import etree

__all__ = ["DecisionGuard", "searchable_bytes"]

_XS = "http://www.w3.org/2001/XMLSchema"
_XSI = "http://www.w3.org/2001/XMLSchema-instance"
_XML = "http://www.w3.org/XML/1998/namespace"
_FLOAT, _BASE64, _LATIN, _ASCII, _YEAR = "float", "base64", "latin", "ascii", "year"

#: The forms of each kind on which libxml2 and the reference agree (XML white space around them allowed).
_AGREED: dict[str, Callable[[str], object]] = {
    _FLOAT: re.compile(r"[ \t\n\r]*\+?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[ \t\n\r]*").fullmatch,
    _BASE64: re.compile(r"[A-Za-z0-9+/= \t\n\r]*").fullmatch,
    _LATIN: re.compile("[\t\n\r\x20-\u00a6\u00a8-\u00b5\u00b7-\u0377]*").fullmatch,
    _ASCII: re.compile("[\t\n\r\x20-\x7e]*").fullmatch,
    # each value of a list, too, begins with a year of four digits (what follows it: as both engines read it)
    _YEAR: re.compile(r"(?:[ \t\n\r]*[0-9]{4}(?![0-9])[^ \t\n\r]*)*[ \t\n\r]*").fullmatch,
}
_BUILTIN_KINDS = {"float": _FLOAT, "double": _FLOAT, "base64Binary": _BASE64,
                  **dict.fromkeys(("date", "dateTime", "gYear", "gYearMonth"), _YEAR)}
#: Escapes whose meaning depends on a Unicode table: \w \d (Latin letters agree) and \i \c \p (ASCII only).
_ESCAPES = {**dict.fromkeys("wWdD", _LATIN), **dict.fromkeys("iIcCpP", _ASCII)}

#: Characters Python's ``str.split``/``\s`` take for white space and XML does not (the others are not XML).
_FOREIGN_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
#: Their UTF-8 forms, by first byte: the bytes that may follow it.
_FOREIGN_SPACE_UTF8 = {0xC2: re.compile(rb"\xc2[\x85\xa0]"), 0xE1: re.compile(rb"\xe1\x9a\x80"),
                       0xE2: re.compile(rb"\xe2(?:\x80[\x80-\x8a\xa8\xa9\xaf]|\x81\x9f)"),
                       0xE3: re.compile(rb"\xe3\x80\x80")}
#: A character reference, its leading zeros aside (XML allows any number of them): at most 6 hexadecimal or 7
#: decimal digits more (a longer one is no character, and the parser refused it).
_CHARACTER_REFERENCE = re.compile(rb"&#(?:x0*([0-9A-Fa-f]{1,6})|0*([0-9]{1,7}));")
#: What the bytes of a document hold when it may have an element or attribute of a meta-schema namespace: the URI of
#: XML Schema (which begins that of ``xsi:``), the ``xml:`` prefix (the parser refuses that namespace under any other
#: prefix), or a character reference (a URI so written).
_XS_BYTES = _XS.encode()
_META_SCHEMA_NAMES = etree.XPath(
    "boolean(//*[namespace-uri() = $xs] | //@*[namespace-uri() = $xml or namespace-uri() = $xsi and not("
    "(local-name() = 'schemaLocation' or local-name() = 'noNamespaceSchemaLocation') and not(../parent::*))])")
_UTF8 = {"UTF-8", "UTF8", "US-ASCII", "ASCII"}


@dataclass(frozen=True)
class DecisionGuard:
    """Which element texts and attribute values libxml2 may misjudge (by local name, with the kinds to check),
    and the elements that may carry those attributes (``None``: any element may)."""

    texts: dict[str, frozenset[str]] = field(default_factory=dict)
    attributes: dict[str, frozenset[str]] = field(default_factory=dict)
    owners: frozenset[str] | None = frozenset()

    @classmethod
    def of_schema(cls, documents: Iterable[etree._Element]) -> DecisionGuard:
        """The guard for a schema set, read from its parsed XSD documents (every file, the XML Signature
        schema too). Names are taken without their namespace: a same-named element elsewhere is checked as well,
        which only costs time."""
        return _Reader(list(documents)).guard()

    def doubts(self, root: etree._Element, source: bytes | None = None, *, searchable: bool = False) -> bool:
        """True when a value of ``root`` is outside the forms both engines agree on, or ``root`` has an element or
        attribute of a meta-schema namespace; ``source`` (the bytes ``root`` was parsed from) lets both be found by a
        byte search;
        ``searchable``: ``source`` is what :func:`searchable_bytes` gave."""
        if not searchable:
            source = searchable_bytes(root, source)
        if _has_meta_schema_names(root, source) or _has_foreign_space(root, source):
            return True
        if self.texts:
            for element in root.iter(*self._text_tags):
                if not _agreed(element.text or "", self.texts[element.tag.rpartition("}")[2]]):
                    return True
        return any(not _agreed(value, self.attributes[name]) for name, value in self._attribute_values(root))

    @cached_property
    def _text_tags(self) -> tuple[str, ...]:
        return tuple(f"{{*}}{name}" for name in sorted(self.texts))

    @cached_property
    def _owner_tags(self) -> tuple[str, ...]:
        return tuple(f"{{*}}{name}" for name in sorted(self.owners or ()))

    def _attribute_values(self, root: etree._Element) -> Iterator[tuple[str, str]]:
        if not self.attributes:
            return
        if self.owners is None:
            names = " or ".join(f"local-name()='{name}'" for name in sorted(self.attributes))
            for value in root.xpath(f"//@*[{names}]"):
                yield value.attrname.rpartition("}")[2], value
            return
        for element in root.iter(*self._owner_tags):
            for name, value in element.attrib.items():
                local = name.rpartition("}")[2]
                if local in self.attributes:
                    yield local, value


def searchable_bytes(root: etree._Element, source: bytes | None) -> bytes | None:
    """``source``, the bytes ``root`` was parsed from, when a byte search in them finds what the tree holds (UTF-8
    or ASCII: a name is its ASCII bytes, a character its UTF-8 ones), else ``None`` (UTF-16, Latin-1…, or no
    bytes). The parser refuses a DTD, so every element and attribute of the tree is written in the bytes.

    libxml2 says "UTF-8" of a UTF-16 document with a byte order mark and no ``encoding`` declared: a document in
    UTF-16 (or UTF-32) has a NUL among its first four bytes (its first character is a mark, "<" or a space), which
    no UTF-8 document has."""
    if (source is None or b"\x00" in source[:4]
            or (root.getroottree().docinfo.encoding or "UTF-8").upper() not in _UTF8):
        return None
    return source


def _agreed(value: str, kinds: frozenset[str]) -> bool:
    return all(_AGREED[kind](value) for kind in kinds)


def _has_meta_schema_names(root: etree._Element, source: bytes | None) -> bool:
    """True when ``root`` has an element or attribute of a namespace of the reference's meta-schema (see the module
    docstring)."""
    if source is not None and _XS_BYTES not in source and b"xml:" not in source and (
            source.find(0x26) < 0 or b"&#" not in source):  # (a memchr first: most documents have no "&")
        return False  # (such a name needs its namespace declared, or the xml: prefix, and both are in the bytes)
    return bool(_META_SCHEMA_NAMES(root, xs=_XS, xml=_XML, xsi=_XSI))


def _has_foreign_space(root: etree._Element, source: bytes | None) -> bool:
    if source is None:
        return any(_FOREIGN_SPACE.search(text) for text in _values(root))
    for first, pattern in _FOREIGN_SPACE_UTF8.items():
        start = source.find(first)  # a byte search is a memchr: much faster than a regular expression
        if start >= 0 and pattern.search(source, start):
            return True
    ampersand = source.find(0x26)  # a character reference: &#160; &#xA0;
    if ampersand < 0:
        return False
    return any(_FOREIGN_SPACE.match(chr(int(hexadecimal, 16) if hexadecimal else int(decimal)))
               for hexadecimal, decimal in _CHARACTER_REFERENCE.findall(source, ampersand)
               if int(hexadecimal or b"0", 16) <= 0x10FFFF and int(decimal or b"0") <= 0x10FFFF)


def _values(root: etree._Element) -> Iterator[str]:
    for element in root.iter():
        if element.text:
            yield element.text
        if element.tail and element is not root:
            yield element.tail
        yield from element.attrib.values()


class _Reader:
    """Resolves, in a set of XSD documents, the kinds of every declared element's text and attribute."""

    def __init__(self, documents: list[etree._Element]) -> None:
        self.documents = documents
        self.types: dict[str, list[etree._Element]] = {}
        for document in documents:
            for definition in document.iter(f"{{{_XS}}}simpleType", f"{{{_XS}}}complexType"):
                if definition.get("name"):
                    self.types.setdefault(definition.get("name", ""), []).append(definition)
        self.known: dict[etree._Element, frozenset[str]] = {}
        self.pending: set[etree._Element] = set()

    def guard(self) -> DecisionGuard:
        texts: dict[str, set[str]] = {}
        attributes: dict[str, set[str]] = {}
        owners: set[str] | None = set()
        for document in self.documents:
            for declaration in document.iter(f"{{{_XS}}}element"):
                kinds = self.declaration(declaration)
                if kinds and declaration.get("name"):
                    texts.setdefault(declaration.get("name", ""), set()).update(kinds)
            for declaration in document.iter(f"{{{_XS}}}attribute"):
                kinds = self.declaration(declaration)
                if kinds and declaration.get("name"):
                    attributes.setdefault(declaration.get("name", ""), set()).update(kinds)
                    holders = self.holders(declaration)
                    owners = None if holders is None or owners is None else owners | holders
        if any(document.find(".//*[@substitutionGroup]") is not None for document in self.documents):
            owners = None  # an element may stand for another and carry its attributes: look everywhere
        return DecisionGuard({name: frozenset(kinds) for name, kinds in texts.items()},
                             {name: frozenset(kinds) for name, kinds in attributes.items()},
                             None if owners is None else frozenset(owners))

    def declaration(self, declaration: etree._Element) -> frozenset[str]:
        """Kinds of an element's or attribute's value: its ``type``, or its anonymous type."""
        if declaration.get("type"):
            return self.reference(declaration, declaration.get("type", ""))
        return self.children(declaration, ("simpleType", "complexType"))

    def reference(self, node: etree._Element, qname: str) -> frozenset[str]:
        """Kinds of the type a QName attribute of ``node`` names (a built-in one, or every type of that name)."""
        prefix, _, local = qname.rpartition(":")
        if node.nsmap.get(prefix or None) == _XS:
            return frozenset({_BUILTIN_KINDS[local]}) if local in _BUILTIN_KINDS else frozenset()
        kinds: set[str] = set()
        for definition in self.types.get(local, []):
            kinds |= self.definition(definition)
        return frozenset(kinds)

    def definition(self, node: etree._Element) -> frozenset[str]:
        """Kinds of a simple type, or of the text of a complex type with simple content (memoised)."""
        if node in self.known:
            return self.known[node]
        if node in self.pending:  # a circular definition: the schema compiler refuses it anyway
            return frozenset()
        self.pending.add(node)
        kinds: set[str] = set()
        for derivation in _derivations(node):
            for facet in derivation.iterchildren(f"{{{_XS}}}pattern"):
                kinds |= {_ESCAPES[escape] for escape in _escapes(facet.get("value", "")) if escape in _ESCAPES}
            for attribute in ("base", "itemType"):
                if derivation.get(attribute):
                    kinds |= self.reference(derivation, derivation.get(attribute, ""))
            for member in (derivation.get("memberTypes") or "").split():
                kinds |= self.reference(derivation, member)
            kinds |= self.children(derivation, ("simpleType",))
        self.pending.discard(node)
        self.known[node] = frozenset(kinds)
        return self.known[node]

    def children(self, node: etree._Element, names: tuple[str, ...]) -> frozenset[str]:
        kinds: set[str] = set()
        for child in node.iterchildren(*(f"{{{_XS}}}{name}" for name in names)):
            kinds |= self.definition(child)
        return frozenset(kinds)

    def holders(self, attribute: etree._Element) -> set[str] | None:
        """Local names of the elements that may carry a declared attribute; ``None`` when the schema does not say
        it simply (a global attribute or one in an attribute group)."""
        holder = attribute.getparent()
        while holder is not None and holder.tag in {f"{{{_XS}}}{name}" for name in (
                "extension", "restriction", "simpleContent", "complexContent")}:
            holder = holder.getparent()
        if holder is None or holder.tag != f"{{{_XS}}}complexType":
            return None
        return self.type_holders(holder, set())

    def type_holders(self, complex_type: etree._Element, seen: set[str]) -> set[str] | None:
        """Local names of the elements of a complex type, or of a type derived from it."""
        name = complex_type.get("name")
        if name is None:
            parent = complex_type.getparent()
            return {parent.get("name", "")} if parent is not None and parent.get("name") else None
        if name in seen:
            return set()
        seen.add(name)
        found: set[str] = set()
        for document in self.documents:
            for element in document.iter(f"{{{_XS}}}element"):
                if element.get("name") and element.get("type", "").rpartition(":")[2] == name:
                    found.add(element.get("name", ""))
            for derivation in document.iter(f"{{{_XS}}}extension", f"{{{_XS}}}restriction"):
                derived = derivation.getparent().getparent() if derivation.getparent() is not None else None
                if derivation.get("base", "").rpartition(":")[2] == name and derived is not None \
                        and derived.tag == f"{{{_XS}}}complexType":
                    more = self.type_holders(derived, seen)
                    if more is None:
                        return None
                    found |= more
        return found


def _derivations(node: etree._Element) -> Iterator[etree._Element]:
    """The derivation that gives a type its value: ``simpleType/(restriction|list|union)`` or
    ``complexType/simpleContent/(restriction|extension)``; none for element-only or mixed content."""
    yield from node.iterchildren(*(f"{{{_XS}}}{name}" for name in ("restriction", "list", "union")))
    for content in node.iterchildren(f"{{{_XS}}}simpleContent"):
        yield from content.iterchildren(f"{{{_XS}}}restriction", f"{{{_XS}}}extension")


def _escapes(pattern: str) -> Iterator[str]:
    """The letters of the backslash escapes of an XSD pattern (``\\\\w`` is an escaped backslash, then ``w``)."""
    index = 0
    while index < len(pattern) - 1:
        if pattern[index] == "\\":
            yield pattern[index + 1]
            index += 2
        else:
            index += 1
