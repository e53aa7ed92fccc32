"""Schema sets: SAT's defects are repaired mechanically, and the project's set agrees with SAT's."""

from __future__ import annotations

import pytest
from lxml import etree

from fel_rules import Config, Validator
from fel_rules.authoring.rule_cases import apply_patches
from fel_rules.core.config import DEFAULT_MAX_BYTES
from fel_rules.document.parse import parse_xml
from fel_rules.document.schema import builtin_schema_set, check_schema, official_schema_set, strip_adendas
from fel_rules.document.xsdfix import FixLog, fix_schema_document, strip_regex_anchors

from .conftest import EXAMPLES, FEL_REFERENCE, requires_shared, rule_case_files


@pytest.mark.parametrize(
    ("pattern", "fixed"),
    [
        ("(([1-9])+([0-9])*([0-9]|K))$", "(([1-9])+([0-9])*([0-9]|K))"),
        ("^\\S(.*\\S)?$", "\\S(.*\\S)?"),
        ("[^\\s]*", "[^\\s]*"),  # negation inside a class is kept
        ("a\\$b", "a\\$b"),  # escaped dollar is kept
        ("((x)|^([A-Z]{3}))$", "((x)|([A-Z]{3}))"),
    ],
)
def test_strip_regex_anchors(pattern, fixed):
    assert strip_regex_anchors(pattern) == fixed


def test_fix_schema_document_repairs_every_known_defect():
    source = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:cmdp="urn:m" targetNamespace="urn:m">
      <xs:import namespace="http://www.w3.org/2000/09/xmldsig#"
                 schemaLocation="http://www.w3.org/TR/2002/REC-xmldsig-core-20020212/xmldsig-core-schema.xsd"/>
      <xs:simpleType name="T">
        <xs:restriction base="xs:string"><xs:pattern value="[^\\\\s]*$"/></xs:restriction>
      </xs:simpleType>
      <xs:attribute name="Version" type="ctup:VersionType"/>
    </xs:schema>"""
    root = etree.fromstring(source)
    log = FixLog()
    fix_schema_document(root, log, dsig_location=lambda: "xmldsig-core-schema.xsd")
    ns = {"xs": "http://www.w3.org/2001/XMLSchema"}
    assert root.find("xs:simpleType//xs:pattern", ns).get("value") == "[^\\s]*"
    assert root.find("xs:attribute", ns).get("type") == "cmdp:VersionType"
    assert root.find("xs:import", ns).get("schemaLocation") == "xmldsig-core-schema.xsd"
    assert (log.anchors, log.escaped_classes, log.prefixes, log.imports) == (1, 1, 1, 1)


def test_builtin_set_is_compiled_once_and_named():
    first, second = builtin_schema_set(), builtin_schema_set()
    assert first is second
    assert first.name == "fel-rules/xsd" and len(first.sha256) == 64


@requires_shared
def test_official_folder_loads_with_fixes():
    schema_set = official_schema_set(FEL_REFERENCE / "xsd")
    assert schema_set is official_schema_set(FEL_REFERENCE / "xsd")
    assert schema_set.name.startswith("sat:xsd (corregido: ") and "anclas" in schema_set.name
    report = Validator(Config(schema_dir=FEL_REFERENCE / "xsd")).validate_path(EXAMPLES / "factura-fact.xml")
    assert report.valid and report.schema_.sha256 == schema_set.sha256


def _documents():
    for path in sorted(EXAMPLES.glob("*.xml")):
        yield pytest.param(path.read_bytes(), id=f"example-{path.name}")
    for case_path, case_file in rule_case_files():
        for case in case_file.cases:
            base = (case_path.parent / (case.base or case_file.base)).read_bytes()
            yield pytest.param(apply_patches(base, case.patch), id=f"{case_file.rule}-{case.name}")


def _schema_stage(schema_set, document: bytes):
    """The schema stage alone, as the pipeline runs it (parsed safely, adendas stripped)."""
    root = parse_xml(document, max_bytes=DEFAULT_MAX_BYTES).root
    strip_adendas(root)
    return check_schema(schema_set, root, source=document)


@requires_shared
@pytest.mark.parametrize("document", list(_documents()))
def test_project_and_official_sets_agree(document):
    ours = _schema_stage(builtin_schema_set(), document)
    theirs = _schema_stage(official_schema_set(FEL_REFERENCE / "xsd"), document)
    assert ours.status == theirs.status
    # SAT's set states some facets twice (base and derived type), so one bad value can give two
    # identical errors there: the places must agree, not how many times each is reported
    locations = lambda stage: sorted({(f.xpath, f.field) for f in stage.findings})  # noqa: E731
    assert locations(ours) == locations(theirs)
