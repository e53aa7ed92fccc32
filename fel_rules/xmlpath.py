"""Readable, prefixed XPaths of lxml nodes (``/dte:GTDocumento/…/dte:Item[2]/dte:Total``)."""

from __future__ import annotations

from lxml import etree

from .namespaces import prefixed

__all__ = ["element_xpath", "node_xpath"]


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


def node_xpath(node: object) -> tuple[str | None, int | None]:
    """(xpath, line) of an element, attribute result or text result of an lxml XPath query."""
    if isinstance(node, etree._Element):
        return element_xpath(node), node.sourceline
    parent_getter = getattr(node, "getparent", None)
    if parent_getter is None:
        return None, None
    parent = parent_getter()
    if parent is None:
        return None, None
    base = element_xpath(parent)
    if getattr(node, "is_attribute", False):
        return f"{base}/@{node.attrname}", parent.sourceline
    return base, parent.sourceline
