"""SAT certifier examples (Megaprint v2.0) and a SAT-certified document: no crash, verdicts pinned.

Every issue these files get is explained in ``tests/sample_verdicts.md``.
"""

from __future__ import annotations

import pytest

from .conftest import FEL_REFERENCE, requires_shared

SAMPLES = sorted((FEL_REFERENCE / "samples").glob("*/*.[xX][mM][lL]")) if FEL_REFERENCE.is_dir() else []

# The documents whose verdicts are pinned, by test id. Without ../shared the skipped tests keep these
# ids, so syrupy counts their snapshots as skipped rather than unused; with it, the list must match.
PINNED = (
    "certified-fpeq-certified.xml",
    "megaprint-examples-Anulacion.xml",
    "megaprint-examples-FACTURA CAMBIARIA.xml",
    "megaprint-examples-FACTURA CON EXENTOS.xml",
    "megaprint-examples-FACTURA CON FECHA Y RESOLUCION (ISR DIRECTO).xml",
    "megaprint-examples-FACTURA ESPECIAL.xml",
    "megaprint-examples-FACTURA.xml",
    "megaprint-examples-Factura Cambiaria Con Adendas.xml",
    "megaprint-examples-Factura Cambiaria Exportacion.xml",
    "megaprint-examples-Factura Complemento Exportacion.xml",
    "megaprint-examples-Factura Especial - Extrangera.xml",
    "megaprint-examples-Factura Especial- con DPI.xml",
    "megaprint-examples-NOTA DE ABONO.xml",
    "megaprint-examples-NOTA DE CREDITO.xml",
    "megaprint-examples-NOTA DE DEBITO.xml",
    "megaprint-examples-Nota de Credito Exportacion.XML",
    "megaprint-examples-RECIBO DE DONACION.xml",
    "megaprint-examples-RECIBO.xml",
)

pytestmark = requires_shared


def _sample_id(path) -> str:
    return f"{path.parent.name}-{path.name}"


def _pinned_samples() -> list:
    if not SAMPLES:
        return [pytest.param(None, id=sample_id) for sample_id in PINNED]
    return [pytest.param(path, id=_sample_id(path)) for path in SAMPLES]


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


def test_pinned_samples_are_the_reference_samples():
    assert tuple(sorted(_sample_id(path) for path in SAMPLES)) == PINNED


@pytest.mark.parametrize("path", _pinned_samples())
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
    """The stored copy was re-indented after certification: its signed data is intact, so it is valid with one
    warning that says the file was reformatted (and the note on what verification does not cover)."""
    report = validator.validate_path(FEL_REFERENCE / "samples/certified/fpeq-certified.xml")
    assert report.valid
    assert [(i.rule_id, i.severity.value) for i in report.issues] == [("FEL-FIR-08", "info"),
                                                                      ("FEL-FIR-06", "warning")]
    assert report.document.certified and report.document.serie == "40706AFC"


def test_sat_certified_document_as_signed_is_valid(validator):
    """With the added indentation removed, SAT's signatures verify (certificates judged at signing time)."""
    from .test_signature import restored_sat_sample

    report = validator.validate_bytes(restored_sat_sample())
    assert report.valid and report.counts.error == report.counts.warning == 0
    assert [i.rule_id for i in report.issues] == ["FEL-FIR-08"]
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
