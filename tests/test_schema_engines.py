"""libxml2 decides, xmlschema explains: both engines agree on every document we have.

For each document the test compares:

* **the outcome**: the schema stage with the ``auto`` engine (libxml2 first) and with ``xmlschema`` (the
  reference engine alone) gives the same status and the same findings (messages, locations) — so the same
  report; for the examples the whole reports are compared too;
* **the raw verdicts**: libxml2 alone accepts the document exactly when xmlschema alone does (so libxml2
  never lets through what xmlschema would refuse, and never sends a valid document to xmlschema for nothing);
* **the locations**, for a document both refuse: the line of libxml2's first error is the line of one of
  xmlschema's findings (the engines word their errors differently and, after the first error in an
  element, may go on differently: the first one is what both must point at).

The documents: the examples, every rule case's document, SAT's samples (``../shared``, when present), the
hostile corpus and random mutations of built invoices (hypothesis; ``FEL_SCHEMA_ENGINE_EXAMPLES`` sets how
many, 150 by default). The official SAT schema folder gets the same comparison on the examples and samples.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from fel_rules import Config, Validator
from fel_rules.authoring.rule_cases import apply_patches
from fel_rules.document.parse import parse_xml
from fel_rules.document.schema import _is_presignature as is_presignature
from fel_rules.document.schema import (
    builtin_schema_set,
    check_schema,
    official_schema_set,
    strip_adendas,
)
from fel_rules.testing.builder import sample_invoice

from .conftest import EXAMPLES, FEL_REFERENCE, requires_shared, rule_case_files
from .hostile_corpus import CASES

MUTATIONS = int(os.environ.get("FEL_SCHEMA_ENGINE_EXAMPLES", "150"))
SAMPLES = FEL_REFERENCE / "samples"
OFFICIAL = FEL_REFERENCE / "xsd" / "patched-offline"

AUTO = Validator(Config(schema_engine="auto"))
REFERENCE = Validator(Config(schema_engine="xmlschema"))


def _case_documents() -> list[tuple[str, bytes]]:
    """Every document a rule case builds (a batch case's documents too)."""
    documents = []
    for path, case_file in rule_case_files():
        folder = path.parent
        for case in case_file.cases:
            if case.documents is None:
                base = folder / (case.base or case_file.base)
                documents.append((f"{case_file.rule}/{case.name}", apply_patches(base.read_bytes(), case.patch)))
                continue
            for document in case.documents:
                base = folder / (document.base or case.base or case_file.base)
                documents.append((f"{case_file.rule}/{case.name}/{document.name}",
                                  apply_patches(base.read_bytes(), document.patch)))
    return documents


def _examples() -> list[tuple[str, bytes]]:
    return [(path.name, path.read_bytes()) for path in sorted(EXAMPLES.glob("*.xml"))]


def _samples() -> list[tuple[str, bytes]]:
    if not SAMPLES.is_dir():
        return []
    return [(str(path.relative_to(SAMPLES)), path.read_bytes()) for path in sorted(SAMPLES.rglob("*"))
            if path.suffix.lower() == ".xml"]


def _tree(data: bytes):
    """The tree the schema stage sees (safely parsed, comments/PIs and dte:Adenda dropped), or None."""
    parsed = parse_xml(data, max_bytes=Config().max_bytes)
    if parsed.root is None:
        return None
    strip_adendas(parsed.root)
    return parsed.root


def assert_reports_agree(name: str, data: bytes) -> None:
    """The whole report is the same with either engine (``run`` aside)."""
    auto, reference = AUTO.validate_bytes(data, path=name), REFERENCE.validate_bytes(data, path=name)
    assert auto.to_dict(include_run=False) == reference.to_dict(include_run=False), name


def assert_engines_agree(name: str, data: bytes, schema_set=None) -> None:
    """The comparisons of the module docstring for one document, on the schema stage (the only stage the
    engine changes: the same schema outcome makes the same report)."""
    schema_set = schema_set or builtin_schema_set()
    root = _tree(data)
    if root is None:  # refused before the schema stage: nothing for the engines to judge
        return
    presignature = is_presignature(root)
    by_xmlschema = check_schema(schema_set, root, source=data, engine="xmlschema")
    by_auto = check_schema(schema_set, root, source=data, engine="auto")
    assert (by_auto.status, by_auto.findings) == (by_xmlschema.status, by_xmlschema.findings), name
    by_libxml2 = schema_set.accepts(root, presignature)
    assert by_libxml2 == (by_xmlschema.status == "passed"), (name, [str(e) for e in schema_set.decider.error_log])
    if not by_libxml2 and by_xmlschema.status == "failed":
        first = min(schema_set.decider.error_log, key=lambda error: error.line)
        lines = {finding.line for finding in by_xmlschema.findings}
        assert _lines_of(root, first) & lines, (name, first.line, first.message, sorted(x for x in lines if x))


def _lines_of(root, error) -> set:
    """Where a libxml2 error points: its line, and its element's parent's (xmlschema reports a misplaced or
    missing child at the parent)."""
    lines = {error.line}
    namespaces = {prefix: uri for node in root.iter(etree.Element) for prefix, uri in node.nsmap.items() if prefix}
    try:
        found = root.getroottree().xpath(error.path, namespaces=namespaces) if error.path else []
    except etree.XPathError:  # a path libxml2 writes with a prefix declared nowhere: its line is all we have
        found = []
    for node in found if isinstance(found, list) else []:
        parent = node.getparent() if isinstance(node, etree._Element) else None
        if parent is not None:
            lines.add(parent.sourceline)
    return lines


@pytest.mark.parametrize("name, data", _examples(), ids=lambda value: value if isinstance(value, str) else "")
def test_examples(name, data):
    assert_reports_agree(name, data)
    assert_engines_agree(name, data)


def test_every_rule_case_document():
    documents = _case_documents()
    assert len(documents) > 400
    for name, data in documents:
        assert_engines_agree(name, data)


@requires_shared
def test_sat_samples():
    samples = _samples()
    assert len(samples) >= 17
    for name, data in samples:
        assert_engines_agree(name, data)


def test_hostile_corpus(tmp_path):
    for case in CASES:
        if case.name in ("directory", "symlink-loop", "9999-items"):
            continue  # not files, or SAT's maximum: validated in full by its own (slow) test
        folder = tmp_path / case.name
        folder.mkdir()
        path = case.make(folder)
        if not path.is_file():
            continue
        data = path.read_bytes()
        report = AUTO.validate_bytes(data, path=case.name)
        if any(stage.name == "schema" and stage.status != "skipped" for stage in report.stages):
            assert_reports_agree(case.name, data)  # the documents refused earlier never meet either engine
            assert_engines_agree(case.name, data)


@requires_shared
def test_official_sat_folder_agrees_too():
    schema_set = official_schema_set(OFFICIAL)
    assert schema_set.decider is not None
    for name, data in [*_examples(), *_samples()]:
        assert_engines_agree(name, data, schema_set)


# --- random mutations ------------------------------------------------------------------------------------

_KINDS = ["FACT", "FACT-EXP", "FCAM", "FPEQ", "FCAP", "FESP", "NCRE", "NDEB", "NABN", "RECI", "RDON"]
_BASES = {kind: sample_invoice(kind).to_xml() for kind in _KINDS}
_VALUES = st.sampled_from(["", " ", "0", "-1", "1.005", "12.3456789", "1e3", "99 999.99", "NaN", "CF", "K", "x" * 300,
                           "2026-02-30T10:00:00-06:00", "2026-03-02", "ÁÉÍ", "\u00a012", "1_2", "GTQ", "USD", "SI"])


@st.composite
def mutated(draw) -> tuple[str, bytes]:
    """A built invoice with a few random edits: an attribute or a text changed, an element removed or doubled."""
    kind = draw(st.sampled_from(_KINDS))
    root = etree.fromstring(_BASES[kind])
    elements = [element for element in root.iter(etree.Element) if element is not root]
    for _ in range(draw(st.integers(1, 3))):
        element = draw(st.sampled_from(elements))
        action = draw(st.sampled_from(["attribute", "text", "remove", "double", "drop-attribute"]))
        if action == "attribute" and element.attrib:
            element.set(draw(st.sampled_from(sorted(element.attrib))), draw(_VALUES))
        elif action == "drop-attribute" and element.attrib:
            del element.attrib[draw(st.sampled_from(sorted(element.attrib)))]
        elif action == "text" and len(element) == 0:
            element.text = draw(_VALUES)
        elif action == "remove" and element.getparent() is not None and element.getparent() is not root:
            element.getparent().remove(element)
            elements = [e for e in root.iter(etree.Element) if e is not root]
        elif action == "double" and element.getparent() is not None:
            element.addnext(etree.fromstring(etree.tostring(element)))
    return kind, etree.tostring(root, xml_declaration=True, encoding="UTF-8")


@settings(max_examples=MUTATIONS, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_invoices(document):
    kind, data = document
    assert_engines_agree(f"mutation of {kind}", data)


def test_the_builtin_set_has_a_decider():
    """libxml2 compiles the project's set (else every document would go to xmlschema, slowly but correctly)."""
    assert builtin_schema_set().decider is not None


def test_the_decider_never_reads_the_network_or_outside_the_set(tmp_path):
    """An xsi:schemaLocation in a document is not followed by either engine."""
    data = (EXAMPLES / "factura-fact.xml").read_bytes().replace(
        b'Version="0.1"', b'Version="0.1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
                           b'xsi:schemaLocation="http://www.sat.gob.gt/dte/fel/0.2.0 http://127.0.0.1:9/x.xsd"', 1)
    assert_engines_agree("schemaLocation", data)
