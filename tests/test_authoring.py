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
