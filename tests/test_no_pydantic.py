"""A one-shot validation does without pydantic: reports, facts and settings are plain dataclasses, and pydantic is
left to what comes from outside (rule files, the catalogue read from YAML, manifests read back, JSON schemas)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SIGNED = ROOT / "examples" / "factura-certificada.xml"

#: Modules that could import pydantic on the way to a verdict if a cache entry were missing (the rule catalogue, the
#: check kinds' parameters); with a warm cache not even they do (see the last test).
CATALOGUE_SIDE = ("fel_rules.core.catalogue", "fel_rules.core.cache", "fel_rules.ruleset", "fel_rules.checks")

#: In a fresh interpreter: every fel_rules module that runs an ``import pydantic…`` statement (even of a module
#: already loaded) while the CLI validates the document in argv[1] as text and as JSON; then whether pydantic loaded.
_WHO_IMPORTS = """
import builtins, contextlib, io, json, sys
importers = set()
real_import = builtins.__import__
def spy(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and name.split(".")[0] in ("pydantic", "pydantic_core"):
        caller = sys._getframe(1).f_globals.get("__name__", "?")
        if not caller.startswith(("pydantic", "typing_extensions", "annotated_types")):
            importers.add(caller)
    return real_import(name, globals, locals, fromlist, level)
builtins.__import__ = spy
from fel_rules.cli.app import main
for args in (["validate", sys.argv[1]], ["validate", "--format", "json", sys.argv[1]]):
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(args) == 0, args
print(json.dumps({"importers": sorted(importers), "loaded": "pydantic" in sys.modules}))
"""


@pytest.fixture
def warm_env(tmp_path) -> dict:
    """An environment whose rule cache is filled (by one validation), as on any run after the first."""
    env = {**os.environ, "FEL_RULES_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("FEL_RULES_NO_CACHE", None)
    subprocess.run([sys.executable, "-m", "fel_rules", "validate", str(SIGNED)], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    return env


def _modules_imported(env: dict, *args: str) -> set[str]:
    """Every module ``python -m fel_rules validate …`` imports (from ``-X importtime``)."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "fel_rules", "validate", *args], cwd=ROOT,
                            env=env, capture_output=True, text=True, check=True)
    return {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize("module", ["fel_rules.core.report", "fel_rules.core.config", "fel_rules.document.facts",
                                    "fel_rules.findings.model", "fel_rules.findings.verdict",
                                    "fel_rules.document.summary"])
def test_report_facts_and_settings_import_no_pydantic(module):
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.split('.')[0].startswith('pydantic')))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_on_the_way_to_a_verdict_only_the_rule_catalogue_imports_pydantic(warm_env):
    """The engine, the report, the facts, the settings, the findings and the output formats never import pydantic
    (not even a statement importing it once loaded)."""
    result = subprocess.run([sys.executable, "-c", _WHO_IMPORTS, str(SIGNED)], cwd=ROOT, env=warm_env,
                            capture_output=True, text=True, check=True)
    importers = json.loads(result.stdout.splitlines()[-1])["importers"]
    assert [name for name in importers if not name.startswith(CATALOGUE_SIDE)] == []


def test_the_probe_names_a_module_outside_the_catalogue_that_imports_pydantic(warm_env):
    """The probe above can fail: here code run as ``fel_rules.engine`` imports pydantic (already loaded)."""
    code = _WHO_IMPORTS.replace("from fel_rules.cli.app import main",
                                "exec(compile('from pydantic import BaseModel', 'x', 'exec'), "
                                "{'__name__': 'fel_rules.engine'})\nfrom fel_rules.cli.app import main")
    result = subprocess.run([sys.executable, "-c", code, str(SIGNED)], cwd=ROOT, env=warm_env,
                            capture_output=True, text=True, check=True)
    assert "fel_rules.engine" in json.loads(result.stdout.splitlines()[-1])["importers"]


@pytest.mark.parametrize("output", [[], ["--format", "json"]], ids=["text", "json"])
def test_a_warm_one_shot_validation_imports_no_pydantic(warm_env, output):
    imported = _modules_imported(warm_env, *output, str(SIGNED))
    assert "fel_rules.engine" in imported  # the probe saw the validation
    assert sorted(name for name in imported if name.split(".")[0] in ("pydantic", "pydantic_core")) == []
