"""Mechanical fixes that make SAT's published XSDs usable by a standards-conforming validator.

SAT's schemas carry four known defects (fel-facts §0, SOURCES.md §5). They are repaired here,
in memory, so an official folder can be used exactly as SAT publishes it:

1. ``^`` and ``$`` anchors in ``xs:pattern`` (in XSD regex they are literals, so every real NIT fails);
2. ``[^\\\\s]`` written for ``[^\\s]`` (a class without backslash and ``s`` instead of "no whitespace");
3. QName references with an undeclared prefix (``ctup:VersionType`` in MediosDePago);
4. the xmldsig import pointing at a W3C URL (replaced by a local copy or the validator's own).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lxml import etree

__all__ = ["FixLog", "fix_schema_document", "strip_regex_anchors"]

XS = "http://www.w3.org/2001/XMLSchema"
XMLDSIG = "http://www.w3.org/2000/09/xmldsig#"
_QNAME_ATTRIBUTES = ("type", "base", "ref", "itemType", "substitutionGroup")


@dataclass
class FixLog:
    """Which fixes were applied, for the schema set's description."""

    anchors: int = 0
    escaped_classes: int = 0
    prefixes: int = 0
    imports: int = 0

    @property
    def total(self) -> int:
        """Number of changes made."""
        return self.anchors + self.escaped_classes + self.prefixes + self.imports


def strip_regex_anchors(pattern: str) -> str:
    """Remove ``^``/``$`` that stand outside character classes and are not escaped."""
    out: list[str] = []
    in_class = False
    escaped = False
    for char in pattern:
        if escaped:
            out.append(char)
            escaped = False
            continue
        if char == "\\":
            out.append(char)
            escaped = True
            continue
        if in_class:
            if char == "]":
                in_class = False
            out.append(char)
            continue
        if char == "[":
            in_class = True
            out.append(char)
            # a leading ']' or '^]' is literal inside the class; nothing else to track
            continue
        if char in "^$":
            continue
        out.append(char)
    return "".join(out)


def fix_schema_document(
    root: etree._Element, log: FixLog, *, dsig_location: Callable[[], str | None]
) -> None:
    """Apply every fix to the parsed schema ``root`` in place, recording them in ``log``."""
    for facet in root.iter(f"{{{XS}}}pattern"):
        value = facet.get("value", "")
        fixed = value.replace("[^\\\\s]", "[^\\s]")
        if fixed != value:
            log.escaped_classes += 1
        anchorless = strip_regex_anchors(fixed)
        if anchorless != fixed:
            log.anchors += 1
        if anchorless != value:
            facet.set("value", anchorless)
    _fix_undeclared_prefixes(root, log)
    for imported in root.iter(f"{{{XS}}}import"):
        location = imported.get("schemaLocation", "")
        if imported.get("namespace") == XMLDSIG and location.startswith(("http://", "https://")):
            local = dsig_location()
            if local:
                imported.set("schemaLocation", local)
            else:
                del imported.attrib["schemaLocation"]
            log.imports += 1


def _fix_undeclared_prefixes(root: etree._Element, log: FixLog) -> None:
    target = root.get("targetNamespace")
    own_prefix = next((p for p, uri in root.nsmap.items() if uri == target and p), None)
    if own_prefix is None:
        return
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        for name in _QNAME_ATTRIBUTES:
            value = element.get(name)
            if not value or ":" not in value:
                continue
            prefix, local = value.split(":", 1)
            if prefix not in element.nsmap:
                element.set(name, f"{own_prefix}:{local}")
                log.prefixes += 1
