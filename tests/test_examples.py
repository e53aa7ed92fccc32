"""Full-report snapshots of every shipped example, in Spanish and English."""

from __future__ import annotations

import pytest

from .conftest import EXAMPLES, report_data

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.xml"))


def test_examples_exist():
    names = {path.name for path in EXAMPLE_FILES}
    assert {"factura-fact.xml", "factura-cambiaria-fcam.xml", "factura-pequeno-fpeq.xml",
            "nota-credito-ncre.xml", "factura-exenta.xml", "factura-certificada.xml"} <= names


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_example_report(validator, snapshot_json, path):
    report = validator.validate_bytes(path.read_bytes(), path=path.name)
    assert report.valid, [issue.message for issue in report.issues]
    assert report_data(report) == snapshot_json


def test_english_messages(validator_en):
    path = EXAMPLES / "factura-fact.xml"
    data = path.read_bytes().replace(b"<dte:MontoImpuesto>91.07<", b"<dte:MontoImpuesto>91.90<")
    report = validator_en.validate_bytes(data, path=path.name)
    iva = next(issue for issue in report.issues if issue.rule_id == "FEL-IVA-01")
    assert iva.message.startswith("Line 1: IVA is Q 91.90 but should be Q 91.07 ")
    assert iva.title == "Line IVA = taxable amount × rate of the taxable-unit code"
    signature = next(issue for issue in report.issues if issue.rule_id == "FEL-XSD-02")
    assert signature.message.startswith("The document has no ds:Signature")


def test_certified_example_summary(validator):
    report = validator.validate_path(EXAMPLES / "factura-certificada.xml")
    document = report.document
    assert document.certified is True
    assert document.serie == document.numero_autorizacion[:8]
    assert int(document.numero_autorizacion.replace("-", "")[8:16], 16) == int(document.numero)


def test_report_is_deterministic(validator):
    data = (EXAMPLES / "factura-fact.xml").read_bytes()
    first = validator.validate_bytes(data, path="x.xml").to_json(include_run=False)
    second = validator.validate_bytes(data, path="x.xml").to_json(include_run=False)
    assert first == second


def test_every_warning_of_an_example_is_explained_in_its_readme(validator):
    """A shipped example carries no warning its README does not name and explain."""
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    for path in sorted(EXAMPLES.glob("*.xml")):
        report = validator.validate_path(path)
        for issue in report.issues:
            if issue.severity.value != "info":
                row = next(line for line in readme.splitlines() if line.startswith(f"| `{path.name}`"))
                assert issue.rule_id in row and issue.rule_id in readme.replace(row, ""), (path.name, issue.rule_id)


def test_only_a_signed_and_certified_example_is_called_certified(validator):
    for path in sorted(EXAMPLES.glob("*.xml")):
        report = validator.validate_path(path)
        if "certificad" in path.name:
            assert report.document.certified and report.valid
            assert {"FEL-FIR-08"} <= {i.rule_id for i in report.issues}  # issuer's and certifier's signatures verify
        else:
            assert not report.document.certified, path.name
