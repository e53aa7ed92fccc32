"""Canonical octets of what a signature covers: C14N 1.0 and exclusive C14N (libxml2 through lxml), the
enveloped-signature transform, and the digests a reference may state."""

from __future__ import annotations

import binascii
import copy
import hashlib
from collections.abc import Iterator

from lxml import etree

from .tree import child

__all__ = [
    "C14N_METHODS", "DIGESTS", "ENVELOPED", "canonical_reference", "canonical_signed_info", "decode_base64",
    "inclusive_prefixes", "matches_in_another_layout", "signed_info_in_other_layouts",
]

#: Canonicalisation algorithms: URI → (exclusive, with comments).
C14N_METHODS = {
    "http://www.w3.org/TR/2001/REC-xml-c14n-20010315": (False, False),
    "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments": (False, True),
    "http://www.w3.org/2001/10/xml-exc-c14n#": (True, False),
    "http://www.w3.org/2001/10/xml-exc-c14n#WithComments": (True, True),
}
ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
_INCLUSIVE_NAMESPACES = "{http://www.w3.org/2001/10/xml-exc-c14n#}InclusiveNamespaces"

#: Digest algorithms: URI → hashlib name.
DIGESTS = {
    "http://www.w3.org/2000/09/xmldsig#sha1": "sha1",
    "http://www.w3.org/2001/04/xmldsig-more#sha224": "sha224",
    "http://www.w3.org/2001/04/xmlenc#sha256": "sha256",
    "http://www.w3.org/2001/04/xmldsig-more#sha384": "sha384",
    "http://www.w3.org/2001/04/xmlenc#sha512": "sha512",
}


def decode_base64(text: str | None) -> bytes | None:
    """Strict base64 (whitespace allowed between characters); ``None`` when absent or invalid."""
    if not text:
        return None
    try:  # text without whitespace (strict mode refuses any): what its compact form decodes to
        return binascii.a2b_base64(text, strict_mode=True)
    except (binascii.Error, ValueError):
        pass
    compact = "".join(text.split())
    if not compact:
        return None
    try:
        return binascii.a2b_base64(compact, strict_mode=True)  # (what base64.b64decode(validate=True) does)
    except (binascii.Error, ValueError):
        return None


def inclusive_prefixes(transform: etree._Element) -> list[str] | None:
    """The ``InclusiveNamespaces PrefixList`` of an exclusive-C14N transform or method, if any."""
    node = child(transform, _INCLUSIVE_NAMESPACES)
    if node is None:
        return None
    return [prefix for prefix in (node.get("PrefixList") or "").split() if prefix] or None


def canonical_signed_info(signed_info: etree._Element, method: etree._Element, algorithm: str) -> bytes:
    """Canonical octets of ``ds:SignedInfo`` under its ``ds:CanonicalizationMethod`` (``etree.C14NError``)."""
    exclusive, comments = C14N_METHODS[algorithm]
    return etree.tostring(signed_info, method="c14n", exclusive=exclusive, with_comments=comments,
                          inclusive_ns_prefixes=inclusive_prefixes(method) if exclusive else None)


def canonical_reference(
    target: etree._Element | etree._ElementTree,
    enveloping: etree._Element | None,
    exclusive: bool,
    prefixes: list[str] | None,
) -> bytes:
    """Canonical octets of a same-document reference (comments excluded, as for "" and "#id"), without
    ``enveloping`` (the signature itself, under the enveloped-signature transform)."""
    if enveloping is not None and _contains(target, enveloping):
        target, copied = _copy_with(target, enveloping)
        _remove_keeping_tail(copied)
    return etree.tostring(target, method="c14n", exclusive=exclusive, with_comments=False,
                          inclusive_ns_prefixes=prefixes)


#: How a signer may have laid its XML out before signing: no whitespace between elements, one line break between
#: elements (as certifiers write ds:SignedInfo), or indentation by 2 or 4 spaces or a tab from the document's root.
_LAYOUTS = ("", "\n", "  ", "    ", "\t")


def matches_in_another_layout(target, enveloping, exclusive, prefixes, algorithm, stated) -> bool:
    """Whether the digest matches once only the whitespace between elements is laid out another way: the file
    was re-indented after signing (diagnosis of a failed digest)."""
    if enveloping is not None and _contains(target, enveloping):
        return False  # not worth it: FEL's references never envelop their signature
    for layout in _LAYOUTS:
        try:
            copied_target, _ = _copy_with(target, target, layout)
            octets = etree.tostring(copied_target, method="c14n", exclusive=exclusive, with_comments=False,
                                    inclusive_ns_prefixes=prefixes)
        except (etree.C14NError, IndexError, TypeError):
            return False
        if hashlib.new(DIGESTS[algorithm], octets).digest() == stated:
            return True
    return False


def signed_info_in_other_layouts(
    signed_info: etree._Element, method: etree._Element, algorithm: str
) -> Iterator[bytes]:
    """Canonical octets of ``ds:SignedInfo`` in each layout it may have had before someone re-indented it
    (diagnosis of a failed signature value; ``etree.C14NError``)."""
    for layout in _LAYOUTS:
        _, copied = _copy_with(signed_info, signed_info, layout)
        yield canonical_signed_info(copied, _follow(copied.getroottree().getroot(), _path(method)), algorithm)


def _lay_out(root: etree._Element, layout: str) -> None:
    """Lay the whitespace between the elements of the whole document out as ``layout`` says (see _LAYOUTS)."""
    _drop_indentation(root)
    if layout == "\n":
        for node in root.iter(etree.Element):
            if len(node):
                node.text = node.text or "\n"
                for below in node:
                    below.tail = below.tail or "\n"
    elif layout:
        etree.indent(root, space=layout)


def _drop_indentation(top: etree._Element) -> None:
    """Remove the whitespace-only text between the elements under ``top`` (and ``top``'s own text if so)."""
    for node in top.iter():
        if node.text is not None and not node.text.strip() and len(node):
            node.text = None
        if node is not top and node.tail is not None and not node.tail.strip():
            node.tail = None


def _contains(target: etree._Element | etree._ElementTree, element: etree._Element) -> bool:
    top = target.getroot() if isinstance(target, etree._ElementTree) else target
    node = element
    while node is not None:
        if node is top:
            return True
        node = node.getparent()
    return False


def _path(element: etree._Element) -> list[int]:
    steps = []
    node = element
    while (parent := node.getparent()) is not None:
        steps.append(parent.index(node))
        node = parent
    return steps[::-1]


def _follow(root: etree._Element, steps: list[int]) -> etree._Element:
    node = root
    for step in steps:
        node = node[step]
    return node


def _copy_with(target, element: etree._Element, layout: str | None = None):
    """A copy of the whole document (keeping every in-scope namespace), the target and ``element`` in it;
    with ``layout``, the whitespace between its elements laid out that way."""
    tree = target if isinstance(target, etree._ElementTree) else target.getroottree()
    copied = copy.deepcopy(tree)
    new_root = copied.getroot()
    if layout is not None:
        _lay_out(new_root, layout)
    new_element = _follow(new_root, _path(element))
    if isinstance(target, etree._ElementTree):
        return copied, new_element
    return _follow(new_root, _path(target)), new_element


def _remove_keeping_tail(element: etree._Element) -> None:
    """Remove ``element`` (the enveloped-signature transform); the text after it stays."""
    parent = element.getparent()
    if element.tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)
