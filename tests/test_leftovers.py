"""Leftovers: rule files nested too deep are load errors with file:line:column (never a RecursionError), and
text output cannot be spoofed by control characters in document values or file names."""

from __future__ import annotations

import pytest

from fel_rules import RuleFileError
from fel_rules.ruleset import load_rule_file

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
