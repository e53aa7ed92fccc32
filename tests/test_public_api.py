"""The public API is explicit and sorted, the package imports no heavy libraries, and the import contracts of
pyproject.toml hold (layers, mcp_server through the public API only, no cycles)."""

from __future__ import annotations

import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest

import fel_rules

from .conftest import ROOT

PUBLIC = [
    # validation
    "Config", "Validator",
    # rendering
    "RenderResult", "RenderSettings", "render_bytes", "render_file", "render_xml", "warm_up_rendering",
    # the rules in force (``rules list`` and the MCP tool fel_rules)
    "RuleRow", "list_rules", "rules_listing",
    # batches and the manifest they write
    "BatchCancelled", "BatchOptions", "BatchResult", "Entry", "Manifest", "Summary", "first_error", "output_paths",
    "run_batch",
    # the report
    "Counts", "DocumentSummary", "Issue", "Location", "Refs", "Report", "RulesetRef", "RunInfo", "SchemaInfo",
    "Severity", "Stage", "Totals", "errors_in_brief", "report_json_schema",
    # why the system refused a file, in the catalogue's words
    "describe_os_error",
    # texts of the message catalogue (a summary line in the caller's language)
    "Text", "render_text",
    # errors
    "BatchError", "CheckKindError", "FelRulesError", "InputError", "RenderError", "RuleFileError", "SchemaSetError",
    "__version__",
]


def test_all_is_the_public_api_sorted():
    assert fel_rules.__all__ == sorted(PUBLIC)


def test_every_public_name_comes_from_its_home():
    assert set(fel_rules.__all__) == {*fel_rules._HOMES, "__version__"}
    for name, home in fel_rules._HOMES.items():
        assert getattr(fel_rules, name) is getattr(import_module(home, "fel_rules"), name), name


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="Nothing"):
        fel_rules.Nothing  # noqa: B018


def test_import_does_not_load_xmlschema():
    code = "import sys, fel_rules; print('xmlschema' in sys.modules, 'reportlab' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False False"


def test_import_contracts_hold():
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(lint_imports), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
