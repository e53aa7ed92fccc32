"""SAT certifier examples (Megaprint v2.0) and a SAT-certified document: no crash, verdicts pinned.

Every issue these files get is explained in ``tests/sample_verdicts.md``.
"""

from __future__ import annotations

import pytest

from .conftest import FEL_REFERENCE, requires_shared

SAMPLES = sorted((FEL_REFERENCE / "samples").glob("*/*.[xX][mM][lL]")) if FEL_REFERENCE.is_dir() else []

pytestmark = requires_shared


def _verdict(report) -> dict:
    return {
        "valid": report.valid,
        "complete": report.complete,
        "stages": {stage.name: stage.status for stage in report.stages},
        "issues": [
            {"rule_id": i.rule_id, "severity": i.severity.value, "line": i.location.line, "message": i.message}
            for i in report.issues
        ],
    }


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: f"{p.parent.name}-{p.name}")
def test_sample_verdict(validator, snapshot_json, path):
    report = validator.validate_path(path)
    assert not report.could_not_validate
    assert _verdict(report) == snapshot_json


def test_not_well_formed_sample_is_an_xml_issue(validator):
    report = validator.validate_path(FEL_REFERENCE / "samples/megaprint-examples/Factura Especial- con DPI.xml")
    assert [stage.status for stage in report.stages] == ["failed", "skipped", "skipped"]
    assert report.complete is False and report.valid is False
    (issue,) = report.issues
    assert issue.stage == "xml" and issue.rule_id == "FEL-XML-03"
    assert "cfe" in issue.message and issue.location.line == 52
    assert report.exit_code() == 1


def test_sat_certified_document_as_stored_was_reindented(validator):
    """The stored copy was re-indented after certification: both signed digests fail, and say why."""
    report = validator.validate_path(FEL_REFERENCE / "samples/certified/fpeq-certified.xml")
    assert not report.valid
    assert {i.rule_id for i in report.issues} == {"FEL-FIR-01", "FEL-FIR-02"}
    assert all("sangría" in i.message for i in report.issues)
    assert report.document.certified and report.document.serie == "40706AFC"


def test_sat_certified_document_as_signed_is_valid(validator):
    """With the added indentation removed, SAT's signatures verify (certificates judged at signing time)."""
    from .test_signature import restored_sat_sample

    report = validator.validate_bytes(restored_sat_sample())
    assert report.valid and report.counts.error == 0 and report.counts.info == 0
    assert report.document.certified and report.document.serie == "40706AFC"


def test_adenda_is_ignored_by_the_schema_check(validator):
    path = FEL_REFERENCE / "samples/megaprint-examples/Factura Cambiaria Con Adendas.xml"
    assert b"<dte:Adenda" in path.read_bytes()
    report = validator.validate_path(path)
    assert not [i for i in report.issues if i.stage == "schema" and i.severity.value == "error"]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_official_schema_set_agrees(validator, official_validator, path):
    official = official_validator
    ours = validator.validate_path(path)
    theirs = official.validate_path(path)
    assert ours.stages[1].status == theirs.stages[1].status
    assert _schema_errors(ours) == _schema_errors(theirs)


def _schema_errors(report) -> list[tuple]:
    return sorted((i.location.xpath, i.location.field) for i in report.issues if i.rule_id == "FEL-XSD-01")
