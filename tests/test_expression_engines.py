"""Compiled expressions agree with simpleeval's interpreter, the reference: same value or same error.

Three sources of expressions: random ones from the language's grammar, every expression of every rule in
rules/ with random values for its names, and every expression of every rule on the example documents'
own values. Outcomes are compared on one evaluator, so function values are the very same objects.
"""

from __future__ import annotations

import decimal
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from simpleeval import NameNotDefined

from fel_rules import Config, Validator
from fel_rules.checks import CheckInput
from fel_rules.checks.expression import ExpressionCheck
from fel_rules.core.money import MONEY_CONTEXT
from fel_rules.document.parse import parse_xml
from fel_rules.document.schema import strip_adendas
from fel_rules.expressions.language import (
    CompiledExpression,
    Evaluator,
    ExpressionError,
    Table,
    compile_expression,
)

from .conftest import EXAMPLES

NAMES = ("a", "b", "c", "xs", "t")
EVALUATOR = Evaluator(tolerance=Decimal("0.01"), rounding=ROUND_HALF_UP,
                      catalogues=Validator(Config()).catalog.catalogues)
FEW = settings(max_examples=300, deadline=None, database=None, derandomize=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

#: name: arity of every function the language offers (matches() takes a pattern written in quotes).
FUNCTIONS = {
    "abs": 1, "min": 2, "max": 2, "sum": 1, "count": 1, "uuid_serie": 1, "uuid_numero": 1, "text": 1, "len": 1,
    "lookup": 2, "decimal": 1, "listed": 2, "date": 1, "days_between": 2, "month_end": 2, "round2": 1,
    "round_to": 2, "round_as": 2, "close": 2, "rate": 2, "tax_base": 2, "tax_currency": 2, "frase": 2,
    "frase_resolution": 2, "personeria_rdon": 1, "business_day": 1,
}


def outcome(run, expression: CompiledExpression, names: dict) -> tuple:
    """("value", type, value) or ("error", type, message) of one evaluation, in the rules' decimal context."""
    try:
        with decimal.localcontext(MONEY_CONTEXT):
            value = run(expression, names)
    except Exception as exc:  # noqa: BLE001 - the error itself is what is compared
        return ("error", type(exc), str(exc))
    return ("value", type(value), value)


def assert_agree(expression: CompiledExpression, names: dict, evaluator: Evaluator = EVALUATOR) -> tuple:
    assert evaluator.engine == "compiled"
    compiled = outcome(partial(Evaluator.evaluate, evaluator), expression, names)
    interpreted = outcome(partial(Evaluator.interpret, evaluator), expression, names)
    assert compiled == interpreted, expression.source
    return compiled


# --- random expressions from the grammar ---------------------------------------------------------------

numbers = st.sampled_from(["0", "1", "2", "0.12", "12.50", "100", "1.005", "3", "0.00", "7"])
texts = st.sampled_from(['"IVA"', "'1'", '""', '"2024-03-05"', '"a,b"', "'FACT'", '"12.50"'])
atoms = st.one_of(st.sampled_from(NAMES), numbers, texts, st.sampled_from(["True", "False", "None", "tol"]))


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "%"]), inner).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})")
    compare = st.tuples(inner, st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "not in", "is", "is not"]),
                        inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    chain = st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} < {t[1]} <= {t[2]})")
    boolean = st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    unary = st.tuples(st.sampled_from(["-", "+", "not "]), inner).map(lambda t: f"({t[0]}{t[1]})")
    choice = st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})")
    call = st.sampled_from(sorted(FUNCTIONS)).flatmap(
        lambda name: st.lists(inner, min_size=FUNCTIONS[name], max_size=FUNCTIONS[name]).map(
            lambda args: f"{name}({', '.join(args)})"))
    match = inner.map(lambda value: f'matches({value}, "[0-9]+\\.[0-9]{{2}}")')
    display = st.lists(inner, max_size=3).flatmap(
        lambda items: st.sampled_from(
            [f"[{', '.join(items)}]", f"({', '.join(items)}{',' if len(items) == 1 else ''})"]))
    return st.one_of(binary, compare, chain, boolean, unary, choice, call, match, display)


expressions = st.recursive(atoms, _extend, max_leaves=12)

decimals = st.decimals(min_value=-10**9, max_value=10**9, places=3, allow_nan=False, allow_infinity=False)
scalars = st.one_of(st.none(), decimals, st.booleans(), st.dates(),
                    st.sampled_from(["", "IVA", "1", "12.50", "2024-02-29", "a, b"]))
values = st.one_of(scalars, st.lists(st.one_of(st.none(), decimals), max_size=3),
                   st.just(Table({"1": Decimal(3), "FPEQ": "x"})))


@FEW
@given(source=expressions, bound=st.fixed_dictionaries({name: values for name in NAMES}))
def test_random_expressions_agree(source: str, bound: dict) -> None:
    try:
        expression = compile_expression(source, NAMES)
    except ExpressionError:  # e.g. an expression nested too deep: refused alike for both engines
        return
    assert_agree(expression, bound)


@FEW
@given(source=expressions)
def test_unbound_names_fail_alike(source: str) -> None:
    expression = compile_expression(source, NAMES)
    assert_agree(expression, {"a": Decimal(1)})  # b, c, xs and t unbound: simpleeval's NameNotDefined


@pytest.mark.parametrize("source", [
    "'ab' * 'cd'", "x * 100000", "(True,) is (True,)", "1 is 1", "[1] == [1]", "x + 1", "'%d' % x",
    "x / 0", "x % 0", "-x", "not x", "lookup(x, 1)", "len([x])", "round_to(x, 1000)", "month_end(x, 100000)",
    "x in 3", "list", "'" + "a" * 100001 + "' if x is None else 1",
])
def test_edge_cases_agree(source: str) -> None:
    expression = compile_expression(source, ["x", "list"])
    for x in (None, Decimal("1.5"), "ab", date(2024, 2, 29), [Decimal(1)]):
        assert_agree(expression, {"x": x})
    assert_agree(expression, {"x": "ab", "list": Decimal(1)})


@pytest.mark.parametrize("source", ["abs", "abs == abs"])
def test_a_function_not_called_never_reaches_an_engine(source: str) -> None:
    with pytest.raises(ExpressionError):
        compile_expression(source, ["x"])


@pytest.mark.parametrize("name", ["open", "__import__", "__builtins__", "eval", "print"])
def test_no_builtins_are_reachable(name: str) -> None:
    expression = compile_expression(f"{name} or x", [name, "x"])
    with pytest.raises(NameNotDefined, match=f"'{name}' is not defined"):
        EVALUATOR.evaluate(expression, {"x": 1})
    assert EVALUATOR.evaluate(expression, {name: 0, "x": 1}) == 1


# --- the rules' own expressions ------------------------------------------------------------------------

VALIDATOR = Validator(Config())
CHECKS = [(rule.id, rule.check) for rule in VALIDATOR.catalog.rules if isinstance(rule.check, ExpressionCheck)]


def _expressions(check: ExpressionCheck) -> list[CompiledExpression]:
    computed = [binding.value for binding in check.bindings if binding.value is not None]
    own = [check.when, check.assertion, check.expected, check.actual, check.tolerance]
    return [expression for expression in [*computed, *own] if expression is not None]


def test_rules_have_expressions() -> None:
    assert len(CHECKS) > 90
    assert sum(len(_expressions(check)) for _id, check in CHECKS) > 150


@pytest.mark.parametrize(("rule_id", "check"), CHECKS, ids=[rule_id for rule_id, _check in CHECKS])
@settings(max_examples=25, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_rule_expressions_agree_on_random_values(rule_id: str, check: ExpressionCheck, data: st.DataObject) -> None:
    for expression in _expressions(check):
        bound = {name: data.draw(values, label=name) for name in sorted(expression.names)}
        assert_agree(expression, {**check.constants, **bound, "tol": Decimal("0.01")}, VALIDATOR._evaluator)


class _Agreeing(Evaluator):
    """Evaluates with both engines, asserts they agree, and gives the compiled outcome."""

    def __init__(self, reference: Evaluator) -> None:
        self.__dict__.update(reference.__dict__)
        self.count = 0

    def evaluate(self, expression: CompiledExpression, names):  # type: ignore[override]
        self.count += 1
        kind, _type, value = assert_agree(expression, dict(names), self)
        if kind == "error":
            return Evaluator.evaluate(self, expression, names)  # raises the same error
        return value

    def compare(self, expression: CompiledExpression, names) -> None:
        self.count += 1
        assert_agree(expression, dict(names), self)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.xml")), ids=lambda path: path.name)
def test_rule_expressions_agree_on_examples(path) -> None:
    """Every expression of every rule, on every context node of the example (guards are not obeyed)."""
    evaluator = _Agreeing(VALIDATOR._evaluator)
    root = parse_xml(path.read_bytes(), max_bytes=VALIDATOR.config.max_bytes).root
    assert root is not None
    strip_adendas(root)
    doc = CheckInput(root, config=VALIDATOR.config, evaluator=evaluator)
    with decimal.localcontext(MONEY_CONTEXT):
        for _rule_id, check in CHECKS:
            for node in check.context(root):
                try:
                    bound = check._bind(node, doc.memo, evaluator.tolerance, doc)
                except Exception:  # noqa: BLE001, S112 - a binding that fails does so alike (compared above)
                    continue
                if not isinstance(bound, tuple):
                    continue
                for expression in _expressions(check):
                    evaluator.compare(expression, bound[0])
    assert evaluator.count > 0
