"""Leftovers: rule files nested too deep are load errors with file:line:column (never a RecursionError), and
text output cannot be spoofed by control characters in document values or file names."""

from __future__ import annotations

import pytest

from fel_rules import RuleFileError
from fel_rules.cli.app import main
from fel_rules.ruleset import load_rule_file

from .conftest import EXAMPLES
from .test_ruleset import GOOD_RULE, load_error, write


@pytest.mark.parametrize("expression", [
    "descuento" + " + descuento" * 1_000,  # parses, but evaluating it would recurse 1,000 levels per document
    "descuento" + " + descuento" * 100_000,  # Python's parser itself gives up (RecursionError)
    "-" * 100_000 + "descuento",  # ... or runs out of parser stack (MemoryError)
], ids=["1000-terms", "100000-terms", "100000-signs"])
def test_deeply_nested_rule_expression_is_a_rule_file_error(tmp_path, expression):
    error = load_error(tmp_path, GOOD_RULE.replace("assert: descuento <= precio", f"assert: {expression} <= precio"))
    assert (error.line, error.rule_id) == (8, "TST-01") and error.column is not None
    assert error.message.startswith(f"{tmp_path / 'prueba.yaml'}:8:{error.column} [TST-01]: assert: la expresión "
                                    "anida más de 100 niveles")
    assert "nests more than 100 levels deep" in error.message_en


def test_deeply_nested_rule_file_is_a_rule_file_error(tmp_path):
    path = write(tmp_path, GOOD_RULE + "    refs: {law: " + "[" * 5_000 + "]" * 5_000 + "}\n")
    with pytest.raises(RuleFileError) as info:
        load_rule_file(path)
    assert info.value.message == f"{path}:10:111: YAML anidado a más de 100 niveles"


_FAKE = "falsa.xml: VÁLIDO (errores: 0, advertencias: 0, informativos: 0)"


def test_text_output_cannot_be_spoofed_by_control_characters(tmp_path, capsys):
    fact = (EXAMPLES / "factura-fact.xml").read_bytes()
    data = fact.replace(b"<dte:Pais>GT<", f"<dte:Pais>GT&#10;{_FAKE}&#x9B;1A&#x202E;<".encode(), 1)
    path = tmp_path / f"factura\n{_FAKE}\r.xml"
    path.write_bytes(data)
    assert main(["validate", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    shown = f"{tmp_path}/factura\\n{_FAKE}\\r.xml"
    assert all(line.startswith((shown + ":", "    sugerencia: ")) for line in lines), lines  # a hint is indented
    assert lines[-1].startswith(f"{shown}: INVÁLIDO")
    assert any("GT\\nfalsa.xml: VÁLIDO" in line and "\\x9b1A\\u202e" in line for line in lines)
    assert not any(char in "\n\r\x9b\u202e" for line in lines for char in line)


def test_control_characters_in_report_messages_are_escaped(validator):
    fact = (EXAMPLES / "factura-fact.xml").read_bytes()
    report = validator.validate_bytes(fact.replace(b"<dte:Pais>GT<", b"<dte:Pais>G&#10;T<", 1))
    messages = [issue.message for issue in report.issues if "G\\nT" in issue.message]
    assert messages and not any("\n" in issue.message for issue in report.issues)
