"""Walking down a signature by child tags: what ``find`` with a plain child step finds, without going through
lxml's ElementPath (a few microseconds per call)."""

from __future__ import annotations

from lxml import etree

__all__ = ["child"]


def child(element: etree._Element, tag: str) -> etree._Element | None:
    """The first child element of ``element`` with ``tag`` (Clark notation), as ``element.find(tag)``."""
    for found in element:
        if found.tag == tag:
            return found
    return None
