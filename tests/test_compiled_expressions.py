"""Rule expressions run compiled (Python code, no builtins); the interpreter stays the reference.

Both evaluations must give the same value, or fail with the same error, for any expression of the language
and any values (hypothesis), and every rule must judge every example and rule-case document the same way.
"""

from __future__ import annotations

import os
from datetime import date
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fel_rules import Config, Validator
from fel_rules.authoring.rule_cases import apply_patches
from fel_rules.expressions.language import Evaluator, ExpressionError, compile_expression

from .conftest import EXAMPLES, rule_case_files

EXAMPLES_COUNT = int(os.environ.get("FEL_EXPRESSION_EXAMPLES", "400"))
NAMES = ("a", "b", "c", "s", "n", "lista", "dia")

COMPILED = Evaluator(tolerance=Decimal("0.01"), rounding="ROUND_HALF_UP")
INTERPRETED = Evaluator(tolerance=Decimal("0.01"), rounding="ROUND_HALF_UP", compiled=False)

_LEAVES = st.sampled_from([*NAMES, "tol", "0", "1", "2", "0.12", "100", "2.5", "-3", "'FACT'", "'12'", "''",
                           "True", "False", "None", "[1, 2.5]", "(a, b)"])
_UNARY = ["-{}", "+{}", "not {}"]
_BINARY = ["{} + {}", "{} - {}", "{} * {}", "{} / {}", "{} % {}", "{} < {}", "{} <= {}", "{} == {}", "{} != {}",
           "{} > {}", "{} in {}", "{} not in {}", "{} is None", "{} is not None", "{} and {}", "{} or {}",
           "{} < {} < {}", "abs({})", "min({}, {})", "max({}, {})", "round2({})", "round_to({}, 1)", "sum([{}, {}])",
           "count([{}, {}])", "len({})", "text({})", "decimal({})", "close({}, {})", "listed({}, 'FACT,FCAM')",
           "matches({}, \"[0-9]+\")", "{} if {} else {}", "date({})", "days_between({}, {})", "month_end({})",
           "uuid_serie({})", "[{}, {}]"]


@st.composite
def expression(draw, depth: int = 0) -> str:
    """A random expression of the rule language (it may fail at run time: both evaluations must then agree)."""
    if depth >= 4 or draw(st.integers(0, 3)) == 0:
        return draw(_LEAVES)
    template = draw(st.sampled_from(_UNARY + _BINARY))
    parts = [draw(expression(depth + 1)) for _ in range(template.count("{}"))]
    return template.format(*(f"({part})" for part in parts))


_DECIMALS = st.decimals(min_value=Decimal("-1e6"), max_value=Decimal("1e6"), places=2, allow_nan=False)
_VALUES = st.fixed_dictionaries({
    "a": _DECIMALS, "b": _DECIMALS, "c": st.one_of(_DECIMALS, st.none()),
    "s": st.sampled_from(["", "123", "FACT", "12.50", "ÁB", "2026-03-02", "9E52C854-E18B-45C1-A77B-C87CF42F35F1"]),
    "n": st.none(), "lista": st.lists(_DECIMALS, max_size=3), "dia": st.sampled_from([date(2026, 3, 2), None]),
})


def outcome(evaluator: Evaluator, compiled, values: dict) -> tuple:
    try:
        result = evaluator.evaluate(compiled, dict(values))
    except Exception as exc:  # noqa: BLE001 - the kind and words of the failure are what is compared
        return ("error", type(exc).__name__, str(exc))
    return ("value", type(result).__name__, repr(result))


@settings(max_examples=EXAMPLES_COUNT, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expression(), _VALUES)
def test_compiled_and_interpreted_agree(source, values):
    try:
        compiled = compile_expression(source, NAMES)
    except ExpressionError:
        return  # refused when rules load: never evaluated
    assert compiled.code is not None
    assert outcome(COMPILED, compiled, values) == outcome(INTERPRETED, compiled, values), source


@pytest.mark.parametrize("source, names, expected", [
    ("a + 0.1", {"a": Decimal("0.2")}, Decimal("0.3")),  # Decimal literals: exact
    ("round2(a * 0.12)", {"a": Decimal("10.05")}, Decimal("1.21")),  # half-up
    ("close(a, b)", {"a": Decimal("1.00"), "b": Decimal("1.01")}, True),  # tol from the configuration
    ("max(a, 2) if a > 1 else tol", {"a": Decimal("0")}, Decimal("0.01")),
])
def test_compiled_values(source, names, expected):
    assert COMPILED.evaluate(compile_expression(source, names), names) == expected


def test_compiled_code_has_no_builtins():
    """A value of a rule cannot reach Python's builtins: the code runs with an empty __builtins__."""
    compiled = compile_expression("min(a, b)", ["a", "b"])
    COMPILED.evaluate(compiled, {"a": Decimal(1), "b": Decimal(2)})
    scope = COMPILED._globals[compiled]
    assert scope["__builtins__"] == {}
    assert "open" not in scope and "__import__" not in scope and "eval" not in scope


def test_a_name_missing_at_run_time_is_said_as_the_interpreter_says_it():
    compiled = compile_expression("a + b", ["a", "b"])
    assert outcome(COMPILED, compiled, {"a": Decimal(1)}) == outcome(INTERPRETED, compiled, {"a": Decimal(1)})


def test_binding_names_may_not_start_with_two_underscores(tmp_path):
    from fel_rules.checks import get_check_kind

    kind = get_check_kind("expression")
    with pytest.raises(ValueError, match="nombre de variable no permitido"):
        kind.Params.model_validate({"context": "/r", "let": {"__fel_d0": "1"}, "assert": "__fel_d0 > 0"})


def _documents() -> list[tuple[str, bytes]]:
    documents = [(path.name, path.read_bytes()) for path in sorted(EXAMPLES.glob("*.xml"))]
    for path, case_file in rule_case_files():
        for case in case_file.cases:
            if case.documents is None:
                base = path.parent / (case.base or case_file.base)
                documents.append((f"{case_file.rule}/{case.name}", apply_patches(base.read_bytes(), case.patch)))
    return documents


def test_every_rule_judges_every_document_alike():
    """Every expression of every rule, run on the examples and on every rule case's document, compiled and
    interpreted: the same reports."""
    compiled, interpreted = Validator(Config()), Validator(Config())
    config = interpreted.config
    interpreted._evaluator = Evaluator(tolerance=config.tolerance, rounding=config.rounding_mode,
                                       catalogues=interpreted.catalog.catalogues, compiled=False)
    assert compiled._evaluator.compiled and not interpreted._evaluator.compiled
    documents = _documents()
    assert len(documents) > 400
    for name, data in documents:
        left = compiled.validate_bytes(data, path=name).to_dict(include_run=False)
        right = interpreted.validate_bytes(data, path=name).to_dict(include_run=False)
        assert left == right, name
