"""What verification reads of one ``ds:Signature``, found in one walk over its children and theirs instead of a
lookup per part. Each part is what the child paths of :mod:`.tree` name (the first element, or all of them in
document order); ``tests/test_signature_parts.py`` compares the two on random trees."""

from __future__ import annotations

from lxml import etree

from ..core.namespaces import DS
from .tree import first_children
from .xades import XADES

__all__ = ["SIGNED_PROPERTIES_TYPES", "SignatureParts"]


def _ds(name: str) -> str:
    return f"{{{DS}}}{name}"


_SIGNED_INFO, _REFERENCE, _SIGNATURE_VALUE = _ds("SignedInfo"), _ds("Reference"), _ds("SignatureValue")
_C14N_METHOD, _SIGNATURE_METHOD = _ds("CanonicalizationMethod"), _ds("SignatureMethod")
_KEY_INFO, _X509_DATA, _X509_CERTIFICATE = _ds("KeyInfo"), _ds("X509Data"), _ds("X509Certificate")
_OBJECT = _ds("Object")
_QUALIFYING, _SIGNED_PROPERTIES = f"{{{XADES}}}QualifyingProperties", f"{{{XADES}}}SignedProperties"

#: ``ds:Reference/@Type`` of a reference to the XAdES properties (not a role of the signature).
SIGNED_PROPERTIES_TYPES = frozenset({"http://uri.etsi.org/01903#SignedProperties", f"{XADES}SignedProperties"})


class SignatureParts:
    """The parts of one ``ds:Signature``: ``signed_info`` (its first ``ds:SignedInfo``), that one's ``references``,
    ``c14n_method`` and ``signature_method`` (first of each), the first ``signature_value`` and ``key_info``;
    ``uris``: the ``URI`` of every ``ds:SignedInfo/ds:Reference`` (``None`` where absent) and ``roles`` those of
    the references other than the XAdES properties (``""`` where absent). :meth:`certificates` and
    :meth:`signed_properties` look further down when asked."""

    __slots__ = ("_key_infos", "_objects", "c14n_method", "key_info", "references", "roles", "signature",
                 "signature_method", "signature_value", "signed_info", "uris")

    def __init__(self, signature: etree._Element) -> None:
        self.signature = signature
        signed_infos: list[etree._Element] = []
        key_infos: list[etree._Element] = []
        objects: list[etree._Element] = []
        value = None
        for node in signature[:]:  # (a slice makes the children's proxies in one call)
            tag = node.tag
            if tag == _SIGNED_INFO:
                signed_infos.append(node)
            elif tag == _KEY_INFO:
                key_infos.append(node)
            elif tag == _OBJECT:
                objects.append(node)
            elif tag == _SIGNATURE_VALUE and value is None:
                value = node
        self.signature_value = value
        self.key_info = key_infos[0] if key_infos else None
        self._key_infos, self._objects = key_infos, objects
        self.signed_info = signed_infos[0] if signed_infos else None
        self.references, self.c14n_method, self.signature_method = _read_signed_info(self.signed_info)
        self.uris: list[str | None] = []
        self.roles: set[str] = set()
        every = self.references if len(signed_infos) < 2 else [  # (a second ds:SignedInfo is never FEL's)
            node for signed_info in signed_infos for node in signed_info if node.tag == _REFERENCE]
        for node in every:
            uri = node.get("URI")
            self.uris.append(uri)
            if node.get("Type") not in SIGNED_PROPERTIES_TYPES:
                self.roles.add("" if uri is None else uri)

    def certificates(self) -> list[etree._Element]:
        """Every ``ds:KeyInfo/ds:X509Data/ds:X509Certificate``, in document order."""
        return [certificate for key_info in self._key_infos for data in key_info if data.tag == _X509_DATA
                for certificate in data if certificate.tag == _X509_CERTIFICATE]

    def signed_properties(self) -> etree._Element | None:
        """The first ``ds:Object/xades:QualifyingProperties/xades:SignedProperties``."""
        for found in self._objects:
            for qualifying in found:
                if qualifying.tag == _QUALIFYING:
                    for properties in qualifying:
                        if properties.tag == _SIGNED_PROPERTIES:
                            return properties
        return None


def _read_signed_info(
    signed_info: etree._Element | None,
) -> tuple[list[etree._Element], etree._Element | None, etree._Element | None]:
    """``signed_info``'s references, and its first ``ds:CanonicalizationMethod`` and ``ds:SignatureMethod``."""
    references = [node for node in signed_info if node.tag == _REFERENCE] if signed_info is not None else []
    c14n_method, signature_method = first_children(signed_info, _C14N_METHOD, _SIGNATURE_METHOD)
    return references, c14n_method, signature_method
