"""Every rule's YAML test cases (rules/tests/*.yaml) give the findings their case file states.

Each case says what it expects in its file (``expect``: ``pass``, or the rule ids that fire, some
pinned down to a location and values; per document for a batch rule's case; see
:mod:`fel_rules.authoring.rule_cases`). Beyond that, every case document is judged by the schema stage
as :data:`SCHEMA_REJECTED` says, and every finding is a finished message pointing somewhere.
"""

from __future__ import annotations

import re

import pytest

from fel_rules.authoring.rule_cases import expected_ids, load_case_file, run_case
from fel_rules.cli import main
from fel_rules.core.errors import RuleFileError

from .conftest import RULES, rule_case_files

CASE_DIR = RULES / "tests"

#: Cases whose patched document SAT's XSD rejects on purpose (the rule still judges it, or leaves it to the XSD).
SCHEMA_REJECTED = frozenset({
    "FEL-ANU-02/sin_motivo", "FEL-ANU-05/certificada_al_dia_siguiente", "FEL-ANU-05/certificada_el_dia_de_la_anulacion",
    "FEL-ANU-06/anulacion_certificada_sin_firmas", "FEL-ANU-07/anulacion_certificada_sin_firmas",
    "FEL-FIR-06/sin_firmas", "FEL-FIR-09/sin_firmas",
    "FEL-COM-14/traslado_tipo_no_permitido", "FEL-EXP-01/exportacion_con_tipo_especial",
    "FEL-FEC-03/certificado_sin_firmas", "FEL-FEC-03/firmas_del_emisor_y_del_certificador",
    "FEL-FEC-04/firma_del_certificador_sin_certificacion", "FEL-FIR-01/firma_incompleta", "FEL-FIR-01/sin_firma",
    "FEL-FIR-02/certificado_ilegible", "FEL-FIR-02/firma_incompleta", "FEL-FIR-02/sin_firma",
    "FEL-FIR-03/firma_incompleta", "FEL-FIR-03/resumen_no_base64", "FEL-FIR-04/firma_incompleta",
    "FEL-FIR-05/certificado_sin_firmas", "FEL-REC-03/pasaporte_de_diecinueve_caracteres",
    "FEL-REC-03/pasaporte_de_dos_caracteres", "FEL-REC-03/pasaporte_en_minusculas",
    "FEL-REC-05/primario_con_destino_fuera_del_esquema", "FEL-REQ-01/nit_emisor_vacio", "FEL-REQ-01/sin_gran_total",
    "FEL-REQ-02/certificado_sin_autorizacion", "FEL-TIP-04/rdon_con_personeria_vacia", "FEL-TIP-09/faca_con_servicio",
})
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


def _cases():
    for _path, case_file in rule_case_files():
        for case in case_file.cases:
            yield pytest.param(case_file, case, id=f"{case_file.rule}-{case.name}")


def _shown(findings) -> list[tuple]:
    return [(i.rule_id, i.location.xpath, i.expected, i.actual, i.difference) for i in findings]


@pytest.mark.parametrize(("case_file", "case"), list(_cases()))
def test_rule_case(validator, case_file, case):
    result = run_case(validator, case_file, case, CASE_DIR)
    reports = result.reports
    assert not result.crashed, [i.message for r in reports.values() for i in r.issues if i.stage == "engine"]
    for name in reports:
        expected, missing = case.expected(name), [e.describe() for e in result.unmatched(name)]
        assert result.passed, (f"{name}: expected {expected_ids(expected) or 'pass'}, missing {missing}; "
                               f"the rules reported {_shown(result.findings(name))}")
        for issue in result.findings(name):
            assert issue.message and not _PLACEHOLDER.search(issue.message), issue.message
            assert issue.location.xpath, issue
    if case.documents is None:  # a batch case's documents are patched certified ones: their schema is not the point
        schema = next(stage for stage in result.report.stages if stage.name == "schema")
        key = f"{case_file.rule}/{case.name}"
        assert (schema.status == "failed") == (key in SCHEMA_REJECTED), f"{key}: schema stage {schema.status}"


def test_every_rule_has_a_case_file_with_pass_and_fail(validator):
    covered = {case_file.rule for _path, case_file in rule_case_files()}
    rule_ids = {rule.id for rule in validator.catalog.rules}
    assert rule_ids - covered == set(), "rules without test cases"
    assert covered - rule_ids == set(), "test cases for rules that do not exist"
    lacking = [case_file.rule for _path, case_file in rule_case_files() if not case_file.has_pass_and_fail]
    assert lacking == [], "every shipped rule has a case where it stays silent and one where it reports"


ALTERED_IVA = """\
rule: FEL-IVA-01
base: {base}
cases:
  - name: iva_al_12_por_ciento
    expect: pass
  - name: iva_alterado
    patch:
      - set: "//dte:Item[@NumeroLinea='1']//dte:MontoImpuesto"
        value: "99.00"
    expect:
      - FEL-IVA-03
      - FEL-TOT-01
      - FEL-TOT-04
      - id: FEL-IVA-01
        at: {at}
        values: {{expected: "91.07", actual: "{actual}"}}
"""


@pytest.mark.parametrize(("at", "actual", "matches"), [
    ("dte:Item[1]/dte:Impuestos/dte:Impuesto/dte:MontoImpuesto", "99.00", True),
    ("dte:Item[2]/dte:Impuestos/dte:Impuesto/dte:MontoImpuesto", "99.00", False),  # another line
    ("Impuesto/dte:MontoImpuesto", "99.00", False),  # not whole steps
    ("dte:Item[1]/dte:Impuestos/dte:Impuesto/dte:MontoImpuesto", "99", False),  # values compare as written
])
def test_a_pinned_finding_matches_its_location_and_values(validator, tmp_path, at, actual, matches):
    path = tmp_path / "FEL-IVA-01.yaml"
    path.write_text(ALTERED_IVA.format(base=RULES.parent / "examples" / "factura-fact.xml", at=at, actual=actual),
                    encoding="utf-8")
    case_file = load_case_file(path)
    result = run_case(validator, case_file, case_file.cases[1], tmp_path)
    assert result.fired_ids == {"FEL-IVA-01", "FEL-IVA-03", "FEL-TOT-01", "FEL-TOT-04"}
    assert result.passed is matches
    assert [e.id for e in result.unmatched()] == ([] if matches else ["FEL-IVA-01"])


def test_rules_test_names_the_missing_finding(tmp_path, capsys):
    path = tmp_path / "FEL-IVA-01.yaml"
    path.write_text(ALTERED_IVA.format(base=RULES.parent / "examples" / "factura-fact.xml",
                                       at="dte:Item[2]/dte:Impuestos/dte:Impuesto/dte:MontoImpuesto", actual="99.00"),
                    encoding="utf-8")
    assert main(["rules", "test", str(path)]) == 1
    out = capsys.readouterr().out
    assert ("FALLA FEL-IVA-01.yaml: FEL-IVA-01/iva_alterado: esperado FEL-IVA-03, FEL-TOT-01, FEL-TOT-04, FEL-IVA-01; "
            "obtenido "
            "FEL-IVA-01, FEL-IVA-03, FEL-TOT-01, FEL-TOT-04; sin el hallazgo FEL-IVA-01 en "
            "dte:Item[2]/dte:Impuestos/dte:Impuesto/dte:MontoImpuesto expected=91.07 actual=99.00") in out
    assert out.rstrip().endswith("Casos: 2 (correctos: 1, fallidos: 1, sin ejecutar: 0)")


MALFORMED = """\
rule: FEL-IVA-01
base: factura.xml
cases:
  - name: iva_correcto
    expect: pass
  - name: iva_alterado
    expect:
      - FEL-IVA-03
      - {entry}
"""


@pytest.mark.parametrize(("entry", "complaint"), [
    ("{id: FEL-IVA-01, valores: {actual: '1.00'}}", "clave desconocida 'cases.1.expect.1.valores'"),
    ("{id: FEL-IVA-01, values: {total: '1.00'}}", "clave desconocida 'cases.1.expect.1.values.total'"),
    ("{id: FEL-IVA-01, values: {actual: 1.00}}", "'cases.1.expect.1.values.actual' debe ser texto"),
    ("{at: dte:GranTotal}", "falta la clave obligatoria 'cases.1.expect.1.id'"),
])
def test_a_malformed_expected_finding_is_refused_with_its_place(tmp_path, entry, complaint):
    path = tmp_path / "FEL-IVA-01.yaml"
    path.write_text(MALFORMED.format(entry=entry), encoding="utf-8")
    with pytest.raises(RuleFileError) as caught:
        load_case_file(path)
    assert f"caso de prueba inválido: {complaint}" in caught.value.message
    assert caught.value.line == 9
