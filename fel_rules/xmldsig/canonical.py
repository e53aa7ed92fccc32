"""Canonical octets of what a signature covers: C14N 1.0 and exclusive C14N (libxml2 through lxml), the
enveloped-signature transform, and the digests a reference may state."""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib

from lxml import etree

__all__ = [
    "C14N_METHODS", "DIGESTS", "ENVELOPED", "canonical_reference", "canonical_signed_info", "decode_base64",
    "inclusive_prefixes", "matches_without_indentation",
]

#: Canonicalisation algorithms: URI → (exclusive, with comments).
C14N_METHODS = {
    "http://www.w3.org/TR/2001/REC-xml-c14n-20010315": (False, False),
    "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments": (False, True),
    "http://www.w3.org/2001/10/xml-exc-c14n#": (True, False),
    "http://www.w3.org/2001/10/xml-exc-c14n#WithComments": (True, True),
}
ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
_EXC_C14N_NS = "http://www.w3.org/2001/10/xml-exc-c14n#"

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
    if text is None:
        return None
    compact = "".join(text.split())
    if not compact:
        return None
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return None


def inclusive_prefixes(transform: etree._Element) -> list[str] | None:
    """The ``InclusiveNamespaces PrefixList`` of an exclusive-C14N transform or method, if any."""
    node = transform.find(f"{{{_EXC_C14N_NS}}}InclusiveNamespaces")
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


def matches_without_indentation(target, enveloping, exclusive, prefixes, algorithm, stated) -> bool:
    """Whether the digest matches once whitespace-only text between elements is dropped (diagnosis)."""
    try:
        copied_target, _ = _copy_with(target, target)
        for node in copied_target.iter():
            if node.text is not None and not node.text.strip() and len(node):
                node.text = None
            if node is not copied_target and node.tail is not None and not node.tail.strip():
                node.tail = None
        if enveloping is not None and _contains(target, enveloping):
            return False  # not worth it: FEL's references never envelop their signature
        octets = etree.tostring(copied_target, method="c14n", exclusive=exclusive, with_comments=False,
                                inclusive_ns_prefixes=prefixes)
    except (etree.C14NError, IndexError, TypeError):
        return False
    return hashlib.new(DIGESTS[algorithm], octets).digest() == stated


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


def _copy_with(target, element: etree._Element):
    """A copy of the whole document (keeping every in-scope namespace), the target and ``element`` in it."""
    tree = target if isinstance(target, etree._ElementTree) else target.getroottree()
    copied = copy.deepcopy(tree)
    new_root = copied.getroot()
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
