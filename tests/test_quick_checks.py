"""The quick function of an expression check (:mod:`fel_rules.checks._expression_runner`) gives what the general
code gives: the same findings, in the same order, or the same error — for every rule, on every rule case and
example (the general code runs for an evaluator the quick functions do not serve)."""

from __future__ import annotations

import decimal
import re

import pytest

from fel_rules.authoring.rule_cases import apply_patches
from fel_rules.checks import CheckError, CheckInput
from fel_rules.checks.expression import ExpressionCheck, _convert
from fel_rules.core.money import MONEY_CONTEXT
from fel_rules.document.parse import parse_xml
from fel_rules.document.schema import strip_adendas
from fel_rules.expressions.language import Evaluator

from .conftest import EXAMPLES, rule_case_files


class _General(Evaluator):
    """The same evaluator under another type: checks evaluate it the general way."""


#: Each number of an example replaced by a text that is not one, by zero, by a negative amount, by many decimals.
_NUMBER = re.compile(rb">(-?[0-9]+(?:\.[0-9]+)?)<")
_REPLACEMENTS = {"unreadable": b">9 9<", "zero": b">0<", "negative": b">-1.5<", "long": b">1.0000000001<"}


def _documents() -> list[tuple[str, bytes]]:
    documents = [(path.name, path.read_bytes()) for path in sorted(EXAMPLES.glob("*.xml"))]
    for path in sorted(EXAMPLES.glob("*.xml")):
        for kind, replacement in _REPLACEMENTS.items():
            documents.append((f"{path.name}/{kind}", _NUMBER.sub(replacement, path.read_bytes())))
    for path, case_file in rule_case_files():
        for case in case_file.cases:
            if getattr(case, "documents", None) is None:
                base = path.parent / (case.base or case_file.base)
                documents.append((f"{case_file.rule}/{case.name}", apply_patches(base.read_bytes(), case.patch)))
    return documents


DOCUMENTS = _documents()


def _outcome(check: ExpressionCheck, root, evaluator: Evaluator, config) -> tuple:
    doc = CheckInput(root, config=config, evaluator=evaluator)
    try:
        with decimal.localcontext(MONEY_CONTEXT):
            return ("findings", list(check.check(doc)))
    except CheckError as exc:
        return ("error", type(exc), exc.args, exc.reason, exc.detail)


def _quick(check: ExpressionCheck, evaluator: Evaluator):
    """The check's quick function for ``evaluator`` (made at its second use)."""
    return check._runner(evaluator) or check._runner(evaluator)


def test_quick_functions_serve_every_rule(validator):
    checks = [rule.check for rule in validator.catalog.rules if isinstance(rule.check, ExpressionCheck)]
    assert len(checks) > 90
    assert all(_quick(check, validator._evaluator) is not None for check in checks)


def test_a_one_off_validation_makes_no_quick_function(validator):
    """The first time a check runs for an evaluator it goes the general way: one document validated in a
    process pays nothing for functions it would not use again."""
    evaluator = Evaluator(tolerance=validator._evaluator.tolerance, rounding=validator.config.rounding_mode,
                          catalogues=validator.catalog.catalogues)
    check = next(rule.check for rule in validator.catalog.rules if isinstance(rule.check, ExpressionCheck))
    assert check._runner(evaluator) is None
    assert check._runner(evaluator) is not None


@pytest.mark.parametrize(("name", "data"), DOCUMENTS, ids=[name for name, _ in DOCUMENTS])
def test_quick_and_general_agree(validator, name, data):
    root = parse_xml(data, max_bytes=validator.config.max_bytes).root
    if root is None:
        pytest.skip("not XML (the rules never see it)")
    strip_adendas(root)
    quick = validator._evaluator
    general = _General(tolerance=quick.tolerance, rounding=validator.config.rounding_mode,
                       catalogues=validator.catalog.catalogues)
    for rule in validator.catalog.rules:
        if isinstance(rule.check, ExpressionCheck):
            assert _quick(rule.check, quick) is not None
            expected = _outcome(rule.check, root, general, validator.config)
            assert _outcome(rule.check, root, quick, validator.config) == expected, rule.id


def test_the_documents_make_rules_fail(validator):
    """What the comparison above covers: rules that do not hold, and values that cannot be read."""
    kinds = {"findings": 0, "unreadable": 0}
    for _name, data in DOCUMENTS:
        root = parse_xml(data, max_bytes=validator.config.max_bytes).root
        if root is None:
            continue
        strip_adendas(root)
        for rule in validator.catalog.rules:
            if isinstance(rule.check, ExpressionCheck):
                outcome = _outcome(rule.check, root, validator._evaluator, validator.config)
                for finding in outcome[1] if outcome[0] == "findings" else ():
                    kinds["unreadable" if type(finding).__name__ == "Unreadable" else "findings"] += 1
    assert kinds["findings"] > 200 and kinds["unreadable"] > 5, kinds


def _count_bindings(validator) -> list[tuple[str, ExpressionCheck, object]]:
    """Every binding of the shipped rules whose path is ``count(…)``, with its rule and check."""
    return [(rule.id, rule.check, binding)
            for rule in validator.catalog.rules if isinstance(rule.check, ExpressionCheck)
            for binding in rule.check.bindings
            if binding.path is not None and binding.path.lstrip().startswith("count(")]


def test_count_bindings_are_read_without_xpath(validator):
    bindings = _count_bindings(validator)
    assert len(bindings) >= 5
    without = [(rule_id, binding.name) for rule_id, _, binding in bindings
               if not binding.needs and binding.lookup is None]
    assert not without


def test_count_lookups_give_what_xpath_gives(validator):
    """A ``count(…)`` binding read through its finder gives what its XPath, read the general way, gives."""
    compared = 0
    for _name, data in DOCUMENTS:
        root = parse_xml(data, max_bytes=validator.config.max_bytes).root
        if root is None:
            continue
        strip_adendas(root)
        for rule_id, check, binding in _count_bindings(validator):
            if binding.lookup is None:
                continue
            for node in check.context_nodes(CheckInput(root, config=validator.config, evaluator=validator._evaluator)):
                expected = (*_convert(binding.xpath(node), binding.spec, binding.name), None)
                assert binding.lookup(node, {}) == expected, rule_id
                compared += 1
    assert compared > 500
