"""Walking down a signature by child tags: what ``find`` with a plain child step finds, without going through
lxml's ElementPath (a few microseconds per call)."""

from __future__ import annotations

from lxml import etree

__all__ = ["child", "first_children"]


def child(element: etree._Element, tag: str) -> etree._Element | None:
    """The first child element of ``element`` with ``tag`` (Clark notation), as ``element.find(tag)``."""
    for found in element:
        if found.tag == tag:
            return found
    return None


def first_children(element: etree._Element | None, *tags: str) -> list[etree._Element | None]:
    """The first child element of ``element`` with each of ``tags``, found in one pass over its children (``None``
    for a tag it has no child of, and for every tag when ``element`` is ``None``)."""
    found: dict[str, etree._Element] = {}
    if element is not None:
        for node in element[:]:
            tag = node.tag
            if tag in tags and tag not in found:
                found[tag] = node
    return [found.get(tag) for tag in tags]
