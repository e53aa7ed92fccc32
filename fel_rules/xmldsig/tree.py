"""Walking down a signature by child tags: what ``find``/``iterfind`` with a path of plain child steps find, without
going through lxml's ElementPath (a few microseconds per call, many calls per signature)."""

from __future__ import annotations

from lxml import etree

__all__ = ["child", "descendants_at"]


def child(element: etree._Element, tag: str) -> etree._Element | None:
    """The first child element of ``element`` with ``tag`` (Clark notation), as ``element.find(tag)``."""
    for found in element.iterchildren(tag):
        return found
    return None


def descendants_at(element: etree._Element, *tags: str) -> list[etree._Element]:
    """The elements at the path of child ``tags`` under ``element``, in document order, as
    ``element.findall("a/b/c")``."""
    found = [element]
    for tag in tags:
        found = [below for above in found for below in above.iterchildren(tag)]
    return found
