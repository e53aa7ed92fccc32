"""Rule authoring from YAML alone: the rules CLI, the published JSON Schema and the generated docs."""

from __future__ import annotations

import json
import shutil

import pytest

from fel_rules.authoring.tools import lint, rule_file_json_schema
from fel_rules.cli.app import main
from fel_rules.core.yamlfile import load_yaml

from .conftest import EXAMPLES, RULES


def test_docs_and_schema_are_up_to_date(capsys):
    assert main(["rules", "docs", "--check"]) == 0, capsys.readouterr().out


def test_every_rule_file_matches_the_published_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((RULES / "schema.json").read_text(encoding="utf-8"))
    assert schema == rule_file_json_schema()
    for path in sorted(RULES.glob("*.yaml")):
        jsonschema.validate(json.loads(json.dumps(load_yaml(path), default=str)), schema)
    bad = {"schema_version": 1, "ruleset": {"id": "x", "version": "1", "title": "x"},
           "rules": [{"id": "X-01", "title": "t", "message": "m", "severidad": "alta"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def _rules_with_cases(folder, *case_files: str):
    """A copy of rules/ beside examples/, as in a checkout, keeping only the given case files."""
    def left_out(where, names):
        return [n for n in names if where.endswith("tests") and n.endswith(".yaml") and n not in case_files]

    shutil.copytree(RULES, folder / "rules", ignore=left_out)
    (folder / "examples").symlink_to(EXAMPLES)
    return folder / "rules"


def test_rules_test_list_show_and_lint(tmp_path, capsys):
    """``rules test`` runs the folder's case files (every case is also run by tests/test_rule_cases.py)."""
    rules = _rules_with_cases(tmp_path, "FEL-IVA-01.yaml", "FEL-TOT-03.yaml")
    assert main(["rules", "--rules-dir", str(rules), "test", "--all"]) == 0
    out = capsys.readouterr().out
    assert ("correcto FEL-TOT-03.yaml: FEL-TOT-03/gran_total_distinto: esperado FEL-TOT-03, FEL-TOT-04; "
            "obtenido FEL-TOT-03, FEL-TOT-04") in out
    assert out.strip().endswith("fallidos: 0, sin ejecutar: 0)") and "FEL-IVA-01/iva_alterado" in out
    assert main(["rules", "list"]) == 0
    assert "FEL-IVA-01" in capsys.readouterr().out
    assert main(["rules", "show", "FEL-IVA-01"]) == 0
    assert json.loads(capsys.readouterr().out)["refs"]["sat_code"] == "FEL_RCP331"
    assert main(["rules", "show", "FEL-NADA-01"]) == 2
    assert main(["rules", "lint"]) == 0


def test_lint_finds_a_rule_without_cases(tmp_path):
    rules = tmp_path / "rules"  # beside examples/, as in a checkout: the cases' base documents are there
    shutil.copytree(RULES, rules)
    (tmp_path / "examples").symlink_to(EXAMPLES)
    (rules / "tests" / "FEL-LIN-02.yaml").unlink()
    problems = lint(rules)
    assert [(p.severity, p.where.split("[")[-1]) for p in problems] == [("error", "FEL-LIN-02]")]


ADDING_A_RULE = """\
schema_version: 1
ruleset: {id: mis-reglas, version: "2026.11.0", title: Reglas de mi empresa}
rules:
  - id: EMP-DESC-01
    title: La descripción de cada línea es explicativa
    severity: warning
    refs: {law: "Política interna de facturación"}
    context: items
    let:
      descripcion: {path: dte:Descripcion, type: text}
    assert: len(descripcion) >= 10
    message: "Línea {item}: la descripción «{descripcion}» es demasiado corta."
    message_en: "Line {item}: description «{descripcion}» is too short."
"""


def test_adding_a_rule_as_the_readme_says(tmp_path, capsys):
    """The README's "Adding a rule" walkthrough, step by step, in a temporary folder, YAML only."""
    rules = tmp_path / "rules"  # a copy of the project's rules/ beside examples/, as in a checkout
    shutil.copytree(RULES, rules)
    (tmp_path / "examples").symlink_to(EXAMPLES)
    (rules / "empresa.yaml").write_text(ADDING_A_RULE, encoding="utf-8")
    shutil.copy(EXAMPLES / "factura-fact.xml", rules / "tests" / "factura.xml")
    (rules / "tests" / "EMP-DESC-01.yaml").write_text(
        "rule: EMP-DESC-01\nbase: factura.xml\ncases:\n  - name: descripciones_claras\n    expect: pass\n"
        "  - name: descripcion_corta\n    patch:\n      - set: \"//dte:Item[@NumeroLinea='1']/dte:Descripcion\"\n"
        "        value: Cemento\n    expect: [EMP-DESC-01]\n", encoding="utf-8")
    assert main(["rules", "--rules-dir", str(rules), "lint"]) == 0
    assert main(["rules", "--rules-dir", str(rules), "test", str(rules / "tests" / "EMP-DESC-01.yaml")]) == 0
    assert capsys.readouterr().out.rstrip().endswith("Casos: 2 (correctos: 2, fallidos: 0, sin ejecutar: 0)")
    short = tmp_path / "corta.xml"
    short.write_bytes((EXAMPLES / "factura-fact.xml").read_bytes().replace(
        b"Cemento gris de uso general, bolsa 42.5 kg", b"Cemento"))
    assert main(["validate", str(short), "--rules-dir", str(rules)]) == 0  # a warning does not fail
    assert "advertencia EMP-DESC-01 Línea 1: la descripción «Cemento» es demasiado corta." in capsys.readouterr().out
    (rules / "profiles" / "estricto.yaml").write_text(
        "schema_version: 1\nprofile: {id: estricto, title: Estricto}\noverrides:\n"
        "  EMP-DESC-01: {severity: error, reason: Las descripciones cortas confunden a los clientes}\n",
        encoding="utf-8")
    assert main(["validate", str(short), "--rules-dir", str(rules), "--profile", "estricto"]) == 1
    assert "error EMP-DESC-01" in capsys.readouterr().out
