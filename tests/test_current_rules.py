"""A process that keeps its validators (the MCP server, a batch worker, a library caller) judges every document
with the rule, data and profile files as they are when the validation starts, never an earlier version of them."""

from __future__ import annotations

import os
import shutil

import pytest

from fel_rules import Config, Validator
from fel_rules.core.resources import BUILTIN_RULES_DIR

from .conftest import EXAMPLES
from .mcp.harness import Session

EXENTA = EXAMPLES / "factura-exenta.xml"
PROFILE = """schema_version: 1
profile:
  id: perfil
  title: Perfil de prueba
overrides:
  FEL-FRA-15:
    severity: {severity}
    reason: prueba
"""


@pytest.fixture
def rules(tmp_path):
    """A copy of the shipped rules folder (its rule cases left out)."""
    copy = tmp_path / "reglas"
    shutil.copytree(BUILTIN_RULES_DIR, copy, ignore=shutil.ignore_patterns("tests"))
    return copy


def _severities(report) -> dict[str, str]:
    return {issue.rule_id: issue.severity.value for issue in report.issues if issue.rule_id.startswith("FEL-FRA")}


def test_an_edited_profile_gives_a_new_validator(tmp_path):
    profile = tmp_path / "perfil.yaml"
    profile.write_text(PROFILE.format(severity="warning"), encoding="utf-8")
    validator = Validator(Config(profile=str(profile)))
    assert validator.current() is validator
    assert validator.validate_path(EXENTA).valid and _severities(validator.validate_path(EXENTA)) == {
        "FEL-FRA-15": "warning"}
    profile.write_text(PROFILE.format(severity="error"), encoding="utf-8")
    fresh = validator.current()
    assert fresh is not validator and fresh.config == validator.config
    assert not fresh.validate_path(EXENTA).valid and _severities(fresh.validate_path(EXENTA)) == {"FEL-FRA-15": "error"}
    assert fresh.current() is fresh


def test_a_file_written_again_as_it_was_keeps_the_validator(rules):
    validator = Validator(Config(rules_dir=rules))
    rates = rules / "data" / "impuestos.yaml"
    rates.write_bytes(rates.read_bytes())
    assert validator.current() is validator


def test_an_edit_that_keeps_size_and_time_is_seen(rules):
    """``touch`` can set a file's modification time back; its change time moves all the same."""
    validator = Validator(Config(rules_dir=rules))
    rates = rules / "data" / "impuestos.yaml"
    before = rates.stat()
    text = rates.read_text(encoding="utf-8")
    assert 'factor: "0.12", base: MontoGravable' in text
    rates.write_text(text.replace('factor: "0.12", base: MontoGravable', 'factor: "0.13", base: MontoGravable'),
                     encoding="utf-8")
    os.utime(rates, ns=(before.st_atime_ns, before.st_mtime_ns))
    fresh = validator.current()
    assert fresh is not validator and fresh.catalog.rates[("IVA", "1")] != validator.catalog.rates[("IVA", "1")]


def test_the_mcp_server_reads_an_edited_profile(tmp_path):
    shutil.copy(EXENTA, tmp_path / "factura-exenta.xml")
    profile = tmp_path / "perfil.yaml"
    profile.write_text(PROFILE.format(severity="warning"), encoding="utf-8")
    session = Session([str(tmp_path)])
    session.initialize()
    try:
        def validated(request_id: int) -> dict:
            reply = session.call(request_id, "tools/call", {"name": "fel_validate", "arguments": {
                "xml_path": "factura-exenta.xml", "profile": "perfil.yaml"}})
            return reply["result"]["structuredContent"]

        assert validated(1)["valid"] is True
        profile.write_text(PROFILE.format(severity="error"), encoding="utf-8")
        after = validated(2)
        assert after["valid"] is False
        assert [issue["severity"] for issue in after["issues"] if issue["rule_id"] == "FEL-FRA-15"] == ["error"]
    finally:
        session.close()


def test_a_rule_file_removed_is_seen(rules):
    validator = Validator(Config(rules_dir=rules))
    (rules / "frases.yaml").unlink()
    fresh = validator.current()
    assert fresh is not validator
    assert {r.id for r in validator.catalog.rules} - {r.id for r in fresh.catalog.rules} >= {"FEL-FRA-06"}


def test_a_batch_reads_the_rule_files_once_a_run(tmp_path):
    """A process running batch after batch reads edited files at the next run, never during one (a run's
    results are all made under the files its fingerprint names)."""
    from fel_rules.batch.worker import validator_for, validator_for_run

    profile = tmp_path / "perfil.yaml"
    profile.write_text(PROFILE.format(severity="warning"), encoding="utf-8")
    config = Config(profile=str(profile)).to_dict(exclude_none=True)
    first = validator_for_run(config)
    assert validator_for_run(config, "run-1") is first
    profile.write_text(PROFILE.format(severity="error"), encoding="utf-8")
    assert validator_for_run(dict(config), "run-1") is first and validator_for(dict(config)) is first  # same run
    second = validator_for_run(dict(config), "run-2")
    assert second is not first and validator_for(config) is second
    assert not second.validate_path(EXENTA).valid
