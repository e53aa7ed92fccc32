"""A signed document's index of ``ID``/``Id``/``id`` attributes comes from one compiled XPath run on the root
element; it must find exactly what ``//@ID | //@Id | //@id`` finds, in the same order, on any tree."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from fel_rules.xmldsig import SignedDocument
from fel_rules.xmldsig.verify import _ID_NODES

from .conftest import EXAMPLES

_REFERENCE = etree.XPath("//@ID | //@Id | //@id")
_ATTRIBUTES = ["ID", "Id", "id", "iD", "{urn:x}ID", "{urn:x}id", "Other"]

_attributes = st.dictionaries(st.sampled_from(_ATTRIBUTES), st.sampled_from(["a", "b", "c"]), max_size=3)
_trees = st.recursive(
    st.tuples(_attributes, st.just([])),
    lambda children: st.tuples(_attributes, st.lists(children, max_size=4)),
    max_leaves=15,
)


def _build(parent: etree._Element, children: list) -> None:
    for attributes, below in children:
        _build(etree.SubElement(parent, "e", attributes), below)


def _seen(attributes: list) -> list[tuple]:
    return [(attribute.getparent(), attribute.attrname, str(attribute)) for attribute in attributes]


@settings(max_examples=300)
@given(root_attributes=_attributes, children=st.lists(_trees, max_size=4))
def test_the_id_index_finds_what_the_union_of_paths_finds(root_attributes, children):
    root = etree.Element("root", root_attributes)
    _build(root, children)
    assert _seen(_ID_NODES(root)) == _seen(_REFERENCE(root))
    document = SignedDocument(root=root, signatures=[])
    for value in ("a", "b", "c"):
        assert document.by_id(value) == [attribute.getparent() for attribute in _REFERENCE(root) if attribute == value]


def test_the_id_index_of_the_examples():
    for path in sorted(EXAMPLES.glob("*.xml")):
        root = etree.parse(str(path)).getroot()
        assert _seen(_ID_NODES(root)) == _seen(_REFERENCE(root)), path.name
