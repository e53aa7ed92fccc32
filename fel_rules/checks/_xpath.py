"""Helpers shared by XPath-driven check kinds: compiling paths and reading nodes."""

from __future__ import annotations

import re
from collections.abc import Mapping

from lxml import etree

from ..namespaces import DTE
from ..xmlpath import element_xpath

__all__ = ["compile_xpath", "item_number", "located", "referenced_variables"]

_VARIABLE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_ITEM = f"{{{DTE}}}Item"


def compile_xpath(path: str, namespaces: Mapping[str, str]) -> etree.XPath:
    """Compile ``path`` (XPath 1.0) or raise ``ValueError`` with a readable reason."""
    try:
        return etree.XPath(path, namespaces=dict(namespaces), smart_strings=True)
    except etree.XPathSyntaxError as exc:
        raise ValueError(f"XPath inválido '{path}': {exc}") from None


def referenced_variables(path: str) -> set[str]:
    """Names of ``$variables`` used in an XPath."""
    return set(_VARIABLE.findall(path))


def located(node: object) -> tuple[str | None, int | None, str | None, etree._Element | None]:
    """(xpath, line, field name, owning element) of a node returned by an XPath query."""
    if isinstance(node, etree._Element):
        return element_xpath(node), node.sourceline, etree.QName(node).localname, node
    getparent = getattr(node, "getparent", None)
    parent = getparent() if getparent else None
    if parent is None:
        return None, None, None, None
    if getattr(node, "is_attribute", False):
        return f"{element_xpath(parent)}/@{node.attrname}", parent.sourceline, node.attrname, parent
    return element_xpath(parent), parent.sourceline, etree.QName(parent).localname, parent


def item_number(element: etree._Element | None) -> int | None:
    """NumeroLinea of the dte:Item that is ``element`` or contains it."""
    node = element
    while node is not None:
        if node.tag == _ITEM:
            number = node.get("NumeroLinea", "")
            return int(number) if number.isdigit() else None
        node = node.getparent()
    return None
