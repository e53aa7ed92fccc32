"""SAT catalogue coverage: every code classified, rules cite real codes, the generated table is current."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fel_rules.authoring.coverage import (
    code_coverage,
    implementing_rules,
    load_decisions,
    render_coverage_markdown,
)
from fel_rules.core.errors import RuleFileError

from .conftest import FEL_REFERENCE, ROOT, RULES, requires_shared

DECISIONS = RULES / "data" / "sat_coverage.yaml"


@pytest.fixture(scope="module")
def decisions():
    return load_decisions(DECISIONS)


@requires_shared
def test_every_code_of_sats_catalogue_is_classified(decisions):
    catalogue = json.loads((FEL_REFERENCE / "catalogos" / "catalogoMensajes-0.3.0.json").read_text(encoding="utf-8"))
    entries = catalogue if isinstance(catalogue, list) else next(v for v in catalogue.values() if isinstance(v, list))
    codes = {entry["codigo"] for entry in entries}
    assert len(codes) == 208
    assert set(decisions) == codes


def test_rules_cite_only_classified_codes(validator, decisions):
    cited = implementing_rules(validator.catalog)
    assert set(cited) - set(decisions) == set(), "rules cite SAT codes missing from sat_coverage.yaml"


def test_batch_codes_are_implemented_by_batch_rules_only(validator, decisions):
    cited = implementing_rules(validator.catalog)
    for code, rule_ids in cited.items():
        if decisions[code]["status"] == "batch":
            assert all(r.startswith("FEL-LOT-") for r in rule_ids), (code, rule_ids)


def test_generated_table_counts(validator, decisions):
    entries = code_coverage(decisions, implementing_rules(validator.catalog))
    text = render_coverage_markdown(entries, "test")
    decidable = [e for e in entries if e.status in ("decidable", "batch")]
    done = [e for e in decidable if e.implemented]
    assert f"**Implementados / decidibles (documento + lote): {len(done)} / {len(decidable)} " in text
    for entry in entries:
        assert f"| {entry.code} |" in text
    assert (ROOT / "docs" / "SAT_COVERAGE.md").read_text(encoding="utf-8").count("| FEL_") >= len(entries)


def test_every_decidable_code_is_implemented(validator, decisions):
    entries = code_coverage(decisions, implementing_rules(validator.catalog))
    missing = [e.code for e in entries if e.status in ("decidable", "batch") and not e.implemented]
    assert missing == []


def test_bad_decision_entry_names_file_and_line(tmp_path):
    path = tmp_path / "sat_coverage.yaml"
    path.write_text("codes:\n  FEL_RCP1:\n    status: decidable\n    check: x\n  FEL_RCP2:\n    status: maybe\n",
                    encoding="utf-8")
    with pytest.raises(RuleFileError) as caught:
        load_decisions(path)
    assert caught.value.line == 5
    assert "FEL_RCP2" in str(caught.value)


def test_coverage_reads_batch_rules_from_the_catalogue():
    """The batch rules' SAT codes come from rules/lote.yaml: neither loading rules nor coverage imports the batch."""
    script = ("import sys\nfrom fel_rules.authoring.coverage import implementing_rules\n"
              "from fel_rules.ruleset import load_catalog\nfrom fel_rules.core.resources import BUILTIN_RULES_DIR\n"
              "cited = implementing_rules(load_catalog(BUILTIN_RULES_DIR))\n"
              "print(cited['FEL_ANU458'], cited['FEL_RCP337'], 'fel_rules.batch' in sys.modules)\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert run.stdout.split("\n")[0] == "['FEL-LOT-14'] ['FEL-LOT-07'] False"
