"""Walking down a signature by child tags: what ``find``/``findall`` with a path of plain child steps find, without
going through lxml's ElementPath (a few microseconds per call, many calls per signature)."""

from __future__ import annotations

from lxml import etree

__all__ = ["child", "child_path"]


def child(element: etree._Element, tag: str) -> etree._Element | None:
    """The first child element of ``element`` with ``tag`` (Clark notation), as ``element.find(tag)``."""
    for found in element:
        if found.tag == tag:
            return found
    return None


def child_path(*tags: str) -> etree.XPath:
    """A compiled path of child steps ``tags`` (Clark notation): called on an element, it returns the elements at
    that path in document order, as ``element.findall("a/b/c")`` does."""
    prefixes: dict[str, str] = {}  # namespace → prefix
    steps = []
    for tag in tags:
        name = etree.QName(tag)
        if name.namespace is None:
            steps.append(name.localname)
        else:
            prefix = prefixes.setdefault(name.namespace, f"n{len(prefixes)}")
            steps.append(f"{prefix}:{name.localname}")
    return etree.XPath("/".join(steps), namespaces={prefix: namespace for namespace, prefix in prefixes.items()})
