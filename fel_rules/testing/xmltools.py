"""Small lxml helpers shared by the builders: namespaces, pruning, serialization, signature."""

from __future__ import annotations

import base64
from collections.abc import Collection, Mapping

from lxml import etree

__all__ = [
    "Element", "NS_ANULACION", "NS_CEX", "NS_CFC", "NS_CFE", "NS_CNO", "NS_DS", "NS_DTE", "XML_DECLARATION",
    "add_placeholder_signature", "apply_attributes", "etree", "local_name", "prune",
    "serialize", "set_attrs", "sub"
]

NS_DTE = "http://www.sat.gob.gt/dte/fel/0.2.0"
NS_ANULACION = "http://www.sat.gob.gt/dte/fel/0.1.0"
NS_DS = "http://www.w3.org/2000/09/xmldsig#"
NS_CFC = "http://www.sat.gob.gt/dte/fel/CompCambiaria/0.1.0"
NS_CNO = "http://www.sat.gob.gt/face2/ComplementoReferenciaNota/0.1.0"
NS_CFE = "http://www.sat.gob.gt/face2/ComplementoFacturaEspecial/0.1.0"
NS_CEX = "http://www.sat.gob.gt/face2/ComplementoExportaciones/0.1.0"

XML_DECLARATION = b'<?xml version="1.0" encoding="UTF-8"?>\n'

Element = etree._Element


def sub(parent: Element, namespace: str, tag: str, text: str | None = None,
        attrs: Mapping[str, object | None] | None = None) -> Element:
    """Append ``{namespace}tag`` to ``parent``; ``None`` attribute values are skipped."""
    child = etree.SubElement(parent, f"{{{namespace}}}{tag}")
    set_attrs(child, attrs or {})
    if text is not None:
        child.text = text
    return child


def set_attrs(element: Element, attrs: Mapping[str, object | None]) -> None:
    """Set attributes in the given order, skipping ``None`` values."""
    for name, value in attrs.items():
        if value is not None:
            element.set(name, str(value))


def local_name(element: Element) -> str:
    """Tag without namespace."""
    return etree.QName(element).localname


def prune(root: Element, omit: Collection[str]) -> None:
    """Remove what ``omit`` names from the tree under (and including children of) ``root``.

    Keys: ``"Tag"`` removes every element with that local name, ``"Parent/Tag"`` only those
    whose parent is ``Parent``; ``"@Attr"`` removes that attribute from every element,
    ``"Tag@Attr"`` only from elements named ``Tag``.
    """
    if not omit:
        return
    elements, attributes = _split_omit_keys(omit)
    for element in list(root.iter(etree.Element)):
        name = local_name(element)
        for tag, attr in attributes:
            if tag in (None, name) and attr in element.attrib:
                del element.attrib[attr]
        parent = element.getparent()
        if parent is None:
            continue
        if name in elements or f"{local_name(parent)}/{name}" in elements:
            parent.remove(element)


def _split_omit_keys(omit: Collection[str]) -> tuple[set[str], list[tuple[str | None, str]]]:
    elements: set[str] = set()
    attributes: list[tuple[str | None, str]] = []
    for key in omit:
        if "@" in key:
            tag, attr = key.split("@", 1)
            attributes.append((tag or None, attr))
        else:
            elements.add(key)
    return elements, attributes


def apply_attributes(root: Element, attributes: Mapping[str, Mapping[str, str]]) -> None:
    """Set or replace attributes by element local name: ``{"DatosGenerales": {"Exp": "SI"}}``."""
    if not attributes:
        return
    for element in root.iter(etree.Element):
        for name, value in attributes.get(local_name(element), {}).items():
            element.set(name, value)


def add_placeholder_signature(parent: Element, reference_uri: str = "#DatosEmision",
                              signature_id: str = "FirmaEmisor-PLACEHOLDER") -> Element:
    """Append a ds:Signature that satisfies the xmldsig schema but is NOT a real signature.

    Digest and signature values are the base64 of readable "not a real ..." texts.
    """
    nsmap = None if parent.nsmap.get("ds") == NS_DS else {"ds": NS_DS}
    signature = etree.SubElement(parent, f"{{{NS_DS}}}Signature", nsmap=nsmap)
    signature.set("Id", signature_id)
    signature.append(etree.Comment(" placeholder for tests: not a real signature "))
    signed_info = sub(signature, NS_DS, "SignedInfo")
    sub(signed_info, NS_DS, "CanonicalizationMethod",
        attrs={"Algorithm": "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"})
    sub(signed_info, NS_DS, "SignatureMethod",
        attrs={"Algorithm": "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"})
    reference = sub(signed_info, NS_DS, "Reference", attrs={"URI": reference_uri})
    transforms = sub(reference, NS_DS, "Transforms")
    sub(transforms, NS_DS, "Transform",
        attrs={"Algorithm": "http://www.w3.org/2000/09/xmldsig#enveloped-signature"})
    sub(reference, NS_DS, "DigestMethod",
        attrs={"Algorithm": "http://www.w3.org/2001/04/xmlenc#sha256"})
    sub(reference, NS_DS, "DigestValue", _b64("PLACEHOLDER DIGEST - NOT A REAL DIGEST"))
    sub(signature, NS_DS, "SignatureValue", _b64("PLACEHOLDER SIGNATURE - NOT A REAL SIGNATURE"))
    return signature


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("ascii")).decode("ascii")


def serialize(root: Element) -> bytes:
    """UTF-8 bytes with a double-quoted XML declaration, pretty-printed with 2-space indent."""
    etree.indent(root, space="  ")
    return XML_DECLARATION + etree.tostring(root, encoding="UTF-8", pretty_print=True)
