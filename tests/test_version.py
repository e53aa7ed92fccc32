"""One version, written once, shown by --version and carried by reports, SARIF and the MCP serverInfo."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import pytest

import fel_rules
from fel_rules.cli.app import main
from fel_rules.core.resources import BUILTIN_RULES_DIR
from fel_rules.core.version import __version__
from fel_rules.document.schema import builtin_schema_digest
from fel_rules.outputs.formats import render_sarif

from .conftest import EXAMPLES, ROOT
from .mcp.harness import Session


def test_version_is_written_once():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert fel_rules.__version__ == __version__


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_flag_names_version_rule_sets_and_schema_set(flag, capsys, validator):
    with pytest.raises(SystemExit) as exit_info:
        main([flag])
    assert exit_info.value.code == 0
    program, rules, schema = capsys.readouterr().out.splitlines()
    assert program.startswith(f"fel-rules {__version__} ")
    assert str(BUILTIN_RULES_DIR) in rules
    assert f"{len(validator.catalog.rulesets)} conjuntos" in rules
    for ruleset in validator.catalog.rulesets:
        assert ruleset.id in rules and f"versión {ruleset.version}" in rules
    assert schema == f"esquema: fel-rules/xsd (sha256 {builtin_schema_digest()[:16]})"
    assert validator.schema_set.info.sha256 == builtin_schema_digest()


def test_python_dash_m_shows_the_same_version():
    done = subprocess.run([sys.executable, "-m", "fel_rules", "--version"], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"fel-rules {__version__} ")


def test_report_sarif_and_mcp_carry_the_version(validator):
    report = validator.validate_path(EXAMPLES / "factura-fact.xml")
    assert report.run.engine_version == __version__
    sarif = json.loads(render_sarif([report]))
    assert sarif["runs"][0]["tool"]["driver"]["version"] == __version__
    session = Session([str(ROOT)])
    try:
        reply = session.initialize()
    finally:
        session.close()
    assert reply["result"]["serverInfo"]["version"] == __version__
