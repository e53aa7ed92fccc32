"""What a document's ``dte:Adenda`` says (order number, seller, notes…), as plain label/value text for printing.

The adenda is free-form data outside every SAT schema, set aside before validation: it is read here from the
document as received, before it is removed, and never influences a verdict. The reading is bounded whatever the
adenda holds: at most :data:`MAX_ENTRIES` entries of at most :data:`MAX_VALUE` characters, after looking at no
more than :data:`MAX_ELEMENTS` elements.
"""

from __future__ import annotations

from typing import NamedTuple

from lxml import etree

from ..core.namespaces import DTE

__all__ = ["MAX_ELEMENTS", "MAX_ENTRIES", "MAX_LABEL", "MAX_VALUE", "AdendaText", "read_adenda"]

MAX_ENTRIES = 20
MAX_LABEL = 60
MAX_VALUE = 500
MAX_ELEMENTS = 2000
_ADENDA = f"{{{DTE}}}Adenda"


class AdendaText(NamedTuple):
    """The printable entries of the adendas, and how many more there were."""

    entries: list[tuple[str, str]]
    omitted: int


def read_adenda(root: etree._Element) -> AdendaText:
    """Label/value pairs of every ``dte:SAT/dte:Adenda`` of ``root``: each element's own text and each
    attribute, labelled by the local name; blank values are left out, long ones shortened with "…"."""
    entries: list[tuple[str, str]] = []
    omitted = visited = 0
    for sat in root:
        for adenda in sat:
            if adenda.tag != _ADENDA:
                continue
            for element in adenda.iter():
                visited += 1
                if visited > MAX_ELEMENTS:
                    return AdendaText(entries, omitted + 1)
                if element is adenda or not isinstance(element.tag, str):
                    continue
                for label, value in _pairs(element):
                    if len(entries) < MAX_ENTRIES:
                        entries.append((label, value))
                    else:
                        omitted += 1
    return AdendaText(entries, omitted)


def _pairs(element: etree._Element) -> list[tuple[str, str]]:
    name = etree.QName(element).localname
    pairs = [(f"{name} {etree.QName(key).localname}", value) for key, value in element.attrib.items()]
    if element.text and len(element) == 0:
        pairs.append((name, element.text))
    return [(_bounded(label, MAX_LABEL), _bounded(value, MAX_VALUE)) for label, value in pairs
            if value and value.strip()]


def _bounded(text: str, limit: int) -> str:
    text = " ".join(text[: 4 * limit].split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
