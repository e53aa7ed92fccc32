"""Readable, prefixed XPaths of lxml nodes (``/dte:GTDocumento/…/dte:Item[2]/dte:Total``)."""

from __future__ import annotations

from lxml import etree

from .money import parse_small_int
from .namespaces import DTE, prefixed

__all__ = ["children_by_tag", "element_xpath", "item_number"]

_ITEM = f"{{{DTE}}}Item"


def element_xpath(element: etree._Element) -> str:
    """Absolute XPath of ``element``, with ``[n]`` only where siblings share the tag."""
    steps: list[str] = []
    node = element
    while node is not None:
        parent = node.getparent()
        name = prefixed(node.tag) if isinstance(node.tag, str) else "node()"
        if parent is not None:
            before = sum(1 for _ in node.itersiblings(node.tag, preceding=True))
            if before or next(node.itersiblings(node.tag), None) is not None:
                name += f"[{before + 1}]"
        steps.append(name)
        node = parent
    return "/" + "/".join(reversed(steps))


def item_number(element: etree._Element | None) -> int | None:
    """NumeroLinea of the dte:Item that is ``element`` or contains it."""
    node = element
    while node is not None:
        if node.tag == _ITEM:
            return parse_small_int(node.get("NumeroLinea"))
        node = node.getparent()
    return None


def children_by_tag(parent: etree._Element, memo: dict) -> dict[object, list[etree._Element]]:
    """``parent``'s children by tag (in document order), indexed in ``memo`` the first time: a document's memo,
    where the element itself is the key, so the facts, the rules and the totals share one index per element."""
    children = memo.get(parent)
    if children is None:
        children = memo[parent] = {}
        for child in parent[:]:  # (a slice makes the children's proxies in one call: faster than iterchildren)
            found = children.get(child.tag)
            if found is None:
                children[child.tag] = [child]
            else:
                found.append(child)
    return children
