"""Whether a document is a pre-signature one (no ds:Signature, no certification data) is decided by one compiled
XPath; it must say what ElementPath's ``find`` says on any tree made of the names that matter."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from fel_rules.core.namespaces import DS, DTE, DTE_ANULACION
from fel_rules.document.schema import _is_presignature as is_presignature
from fel_rules.document.schema_guard import searchable_bytes

from .conftest import EXAMPLES, encoded_forms

_NAMESPACES = {"ds": DS, "d": DTE, "a": DTE_ANULACION}
_NAMES = [f"{{{namespace}}}{local}" for namespace in (DTE, DTE_ANULACION)
          for local in ("SAT", "DTE", "AnulacionDTE", "Certificacion", "DatosEmision")]
_NAMES += [f"{{{DS}}}Signature", "Certificacion", "{urn:other}SAT"]


def _reference(root: etree._Element) -> bool:
    return all(root.find(path, _NAMESPACES) is None for path in (
        "ds:Signature", "d:SAT/d:DTE/d:Certificacion", "a:SAT/a:AnulacionDTE/a:Certificacion"))


_trees = st.recursive(
    st.sampled_from(_NAMES).map(lambda name: (name, [])),
    lambda children: st.tuples(st.sampled_from(_NAMES), st.lists(children | st.just(("#comment", [])), max_size=4)),
    max_leaves=12,
)


#: Chains that come near certification data: each step in either namespace, the middle one either name.
_chains = st.tuples(
    st.sampled_from([DTE, DTE_ANULACION]), st.sampled_from([DTE, DTE_ANULACION]),
    st.sampled_from(["DTE", "AnulacionDTE", "DatosEmision"]), st.sampled_from([DTE, DTE_ANULACION, DS]),
).map(lambda c: (f"{{{c[0]}}}SAT", [(f"{{{c[1]}}}{c[2]}", [(f"{{{c[3]}}}Certificacion", [])])]))


def _build(parent: etree._Element, children: list) -> None:
    for name, below in children:
        if name == "#comment":
            parent.append(etree.Comment("c"))
            continue
        _build(etree.SubElement(parent, name), below)


@settings(max_examples=400)
@given(root_name=st.sampled_from([f"{{{DTE}}}GTDocumento", f"{{{DTE_ANULACION}}}GTAnulacionDocumento"]),
       children=st.lists(_trees | _chains, max_size=5))
def test_presignature_is_what_element_path_finds(root_name, children):
    root = etree.Element(root_name)
    _build(root, children)
    assert is_presignature(root) == _reference(root), etree.tostring(root)
    # from the bytes the tree is parsed from too (a name absent from them is in no element), in any encoding
    source = etree.tostring(root, encoding="UTF-8", xml_declaration=True)
    for form in [source, *encoded_forms(source).values()]:
        parsed = etree.fromstring(form)
        assert is_presignature(parsed, searchable_bytes(parsed, form)) == _reference(root), form


def test_presignature_of_the_examples():
    for path in sorted(EXAMPLES.glob("*.xml")):
        root = etree.parse(str(path)).getroot()
        assert is_presignature(root) == _reference(root), path.name
        assert is_presignature(root, path.read_bytes()) == _reference(root), path.name


def test_a_certified_document_stripped_of_its_signatures_is_no_presignature_one_in_any_encoding(validator):
    """It lacks the ds:Signature the schema requires of it, whatever its bytes' encoding (libxml2 says "UTF-8" of a
    UTF-16 document with a byte order mark and no encoding declared: its bytes cannot be searched for names)."""
    certified = (EXAMPLES / "factura-certificada.xml").read_bytes()
    stripped = re.sub(rb"<ds:Signature .*?</ds:Signature>", b"", certified, flags=re.S)
    assert stripped.count(b"<ds:Signature") == 0

    def said(data: bytes) -> tuple:
        report = validator.validate_bytes(data)
        return report.valid, [stage.status for stage in report.stages], [issue.rule_id for issue in report.issues]

    expected = said(stripped)
    assert expected[1][1] == "failed" and "FEL-XSD-02" not in expected[2]
    for name, form in encoded_forms(stripped).items():
        assert said(form) == expected, name
