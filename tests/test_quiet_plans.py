"""The function of a rule plan (:mod:`fel_rules.checks._plan_runner`) only leaves out rules that find nothing: the
rules stage gives the same issues, in the same order, with the same status, with it and without it — on every
rule case, example (and its numbers made unreadable, zero, negative, long), SAT sample and documents whose
numbers are changed at random."""

from __future__ import annotations

import decimal
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fel_rules import engine
from fel_rules.checks import PLAN_FUNCTION_AFTER, CheckError, CheckInput, expression, quiet_plan
from fel_rules.checks.expression import ExpressionCheck
from fel_rules.checks.required import RequiredCheck
from fel_rules.core.config import Config
from fel_rules.core.money import MONEY_CONTEXT, parse_decimal, remembered_decimals
from fel_rules.document.facts import extract_facts
from fel_rules.document.parse import parse_xml
from fel_rules.document.schema import strip_adendas
from fel_rules.engine import Validator, _tipo

from .conftest import EXAMPLES, FEL_REFERENCE
from .test_quick_checks import DOCUMENTS, _General

SAMPLES = sorted((FEL_REFERENCE / "samples").glob("*/*.[xX][mM][lL]")) if FEL_REFERENCE.is_dir() else []
ALL = DOCUMENTS + [(f"sample/{path.parent.name}/{path.name}", path.read_bytes()) for path in SAMPLES]


@pytest.fixture(scope="module")
def quick() -> Validator:
    return Validator(Config())


def _read(validator: Validator, data: bytes):
    root = parse_xml(data, max_bytes=validator.config.max_bytes).root
    if root is None:
        return None
    strip_adendas(root)
    memo: dict = {}
    return root, extract_facts(root, lines=False, memo=memo), memo


def _plan(validator: Validator, facts):
    return validator._plan(facts.kind, _tipo(facts), validator._as_of(facts))


def _quiet(validator: Validator, plan):
    """The plan's function (asked for at once)."""
    made = quiet_plan(plan, validator._evaluator, now=True)
    assert made is not None
    return made


def _rules_stage(validator: Validator, data: bytes, *, quiet: bool, monkeypatch) -> tuple | None:
    read = _read(validator, data)
    if read is None:
        return None
    root, facts, memo = read
    if quiet:
        _quiet(validator, _plan(validator, facts))
    with monkeypatch.context() as patched:
        if not quiet:
            patched.setattr(engine, "quiet_plan", lambda plan, evaluator, now=False: None)
        issues, status = validator._run_rules(root, facts, data, memo)
    return issues, status


def _agree(validator: Validator, data: bytes, monkeypatch) -> None:
    expected = _rules_stage(validator, data, quiet=False, monkeypatch=monkeypatch)
    assert _rules_stage(validator, data, quiet=True, monkeypatch=monkeypatch) == expected


@pytest.mark.parametrize(("name", "data"), ALL, ids=[name for name, _ in ALL])
def test_the_plan_function_leaves_out_only_rules_that_find_nothing(quick, name, data, monkeypatch):
    read = _read(quick, data)
    if read is None:
        pytest.skip("not XML (the rules never see it)")
    root, facts, memo = read
    plan = _plan(quick, facts)
    doc = CheckInput(root=root, header=facts, config=quick.config, evaluator=quick._evaluator, source=data, memo=memo)
    with decimal.localcontext(MONEY_CONTEXT):
        kept = {id(entry) for entry in _quiet(quick, plan).to_run(doc)}
    general = _General(tolerance=quick._evaluator.tolerance, rounding=quick.config.rounding_mode,
                       catalogues=quick.catalog.catalogues)
    for entry in plan:
        if id(entry) in kept:
            continue
        rule, _severity, check = entry
        assert hasattr(check, "finds_nothing") or type(check) is ExpressionCheck, rule.id  # others: the general way
        fresh = CheckInput(root=root, header=facts, config=quick.config, evaluator=general, source=data)
        with decimal.localcontext(MONEY_CONTEXT):
            try:
                found = list(check.check(fresh))
            except CheckError as exc:
                found = [exc]
        assert found == [], rule.id
    _agree(quick, data, monkeypatch)


def test_the_documents_leave_rules_to_the_general_path(quick):
    """What the comparison above covers: documents where the function settles everything, and documents where
    it leaves expression rules to the general path (rules that do not hold, values that cannot be read)."""
    left = settled = 0
    for _name, data in ALL:
        read = _read(quick, data)
        if read is None:
            continue
        root, facts, memo = read
        plan = _plan(quick, facts)
        made = _quiet(quick, plan)
        doc = CheckInput(root=root, header=facts, config=quick.config, evaluator=quick._evaluator, source=data,
                         memo=memo)
        with decimal.localcontext(MONEY_CONTEXT):
            to_run = made.to_run(doc)
        if any(type(check) in (ExpressionCheck, RequiredCheck) for _rule, _severity, check in to_run):
            left += 1
        else:
            settled += 1
    assert left > 100 and settled > 10, (left, settled)


def test_a_context_that_cannot_be_selected_leaves_every_rule_to_the_general_way(quick, monkeypatch):
    """A failure of the plan's function outside a rule's own lines (selecting a context) must not escape the
    validation: every rule then runs the general way, which reports what fails in the rule it concerns."""
    data = (EXAMPLES / "factura-certificada.xml").read_bytes()
    read = _read(quick, data)
    assert read is not None
    root, facts, memo = read
    plan = _plan(quick, facts)
    made = _quiet(quick, plan)

    def failing(*_args):
        raise RuntimeError("a context that cannot be selected")

    monkeypatch.setattr(made, "quiet", failing)
    doc = CheckInput(root=root, header=facts, config=quick.config, evaluator=quick._evaluator, source=data, memo=memo)
    with decimal.localcontext(MONEY_CONTEXT):
        assert list(made.to_run(doc)) == list(plan)
    report = quick.validate_bytes(data)  # the engine asks the same object: the general way gives the usual report
    assert report.valid and [issue.rule_id for issue in report.issues] == ["FEL-FIR-08"]


def test_a_plans_function_is_made_once_it_pays_or_when_asked_for():
    """A plan validates its first documents without its function, which is made on the PLAN_FUNCTION_AFTER-th
    (a command that validates a few files never makes it); ``now`` makes it at once; then it is kept."""
    validator = Validator(Config())
    read = _read(validator, (EXAMPLES / "factura-certificada.xml").read_bytes())
    assert read is not None
    plan = _plan(validator, read[1])
    assert [quiet_plan(plan, validator._evaluator) for _ in range(PLAN_FUNCTION_AFTER - 1)] == \
        [None] * (PLAN_FUNCTION_AFTER - 1)
    made = quiet_plan(plan, validator._evaluator)
    assert made is not None and quiet_plan(plan, validator._evaluator) is made
    asked = Validator(Config())
    assert quiet_plan(_plan(asked, read[1]), asked._evaluator, now=True) is not None


def test_a_few_documents_make_no_plan_function(monkeypatch):
    """Validating fewer documents of a plan than PLAN_FUNCTION_AFTER never writes its function."""
    written = []
    monkeypatch.setattr(expression, "write_quiet_plan", lambda *args: written.append(args) or (lambda *a: [],
                                                                                                frozenset()))
    validator = Validator(Config())
    data = (EXAMPLES / "factura-certificada.xml").read_bytes()
    for _ in range(10):
        assert validator.validate_bytes(data).valid
    assert written == []


_NUMBER = re.compile(rb">(-?[0-9]+(?:\.[0-9]+)?)<")
_BASES = sorted(EXAMPLES.glob("*.xml"))
_VALUES = st.sampled_from([b"0", b"1", b"-1", b"0.005", b"12.34", b"100", b"9 9", b"", b"1e3", b"0.333333",
                           b"99999999.99", b" 12.34 ", b"\t1\n", b" ", b"\xc2\xa012", b"1.10", b"+0"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(base=st.sampled_from(_BASES), seed=st.randoms(use_true_random=False), values=st.lists(_VALUES, min_size=1,
                                                                                           max_size=6))
def test_random_numbers_give_the_same_rules_stage(quick, monkeypatch, base, seed, values):
    data = base.read_bytes()
    spots = list(_NUMBER.finditer(data))
    for match in sorted(seed.sample(spots, min(len(values), len(spots))), key=lambda m: -m.start()):
        data = data[:match.start(1)] + seed.choice(values) + data[match.end(1):]
    _agree(quick, data, monkeypatch)


_ATTRIBUTE = re.compile(rb' ([A-Za-z]+)="([^"]*)"')


@pytest.mark.parametrize("base", _BASES, ids=[base.name for base in _BASES])
def test_each_attribute_value_unreadable_blank_or_odd_gives_the_same_rules_stage(quick, monkeypatch, base):
    """The plan's function reads a binding of one of the node's attributes (``@TipoFrase``) straight from it: each
    attribute of each example, given a value that cannot be read, a blank one, an empty one or a negative number,
    gives the general way's rules stage."""
    data = base.read_bytes()
    for match in _ATTRIBUTE.finditer(data):
        if match.group(1).startswith(b"xmlns") or match.start() < data.find(b"?>"):  # (not the XML declaration)
            continue
        for value in (b"x", b" ", b"", b"-1"):
            _agree(quick, data[:match.start(2)] + value + data[match.end(2):], monkeypatch)


_TEXTS = st.sampled_from(["0", "1.10", " 12.34 ", "\t1\n", " ", "", "9 9", "1e3", "\u00a012", "+0", "-0.00"])


@given(text=st.one_of(_TEXTS, st.text(alphabet="0123456789.-+ \t\n\u00a0eE", max_size=12)))
def test_a_remembered_decimal_is_the_value_parse_decimal_gives(text):
    """The plan's function reads a decimal from the table parse_decimal keeps before calling it: what the table
    holds for a text is what parse_decimal gives for it (the same digits and exponent), or nothing."""
    table, unknown = remembered_decimals()
    value = parse_decimal(text)
    found = table.get(text, unknown)
    assert found is unknown or repr(found) == repr(value)
    assert repr(parse_decimal(text)) == repr(value)


_LEAF_TEXT = re.compile(rb"<([A-Za-z]+:[A-Za-z]+)(?: [^>]*)?>([^<]+)</\1>")


@pytest.mark.parametrize("base", _BASES, ids=[base.name for base in _BASES])
def test_each_element_text_unreadable_blank_or_odd_gives_the_same_rules_stage(quick, monkeypatch, base):
    """The plan's function reads a binding of an absolute path (``certificacion/dte:FechaHoraCertificacion``,
    ``generales/@Tipo``) from the nodes the path keeps in the memo: each element text of each example, given a value
    that cannot be read, a blank one or a negative number, gives the general way's rules stage."""
    data = base.read_bytes()
    for match in _LEAF_TEXT.finditer(data):
        for value in (b"x", b" ", b"-1"):
            _agree(quick, data[:match.start(2)] + value + data[match.end(2):], monkeypatch)


@pytest.mark.parametrize("base", _BASES, ids=[base.name for base in _BASES])
def test_an_example_whose_rules_find_nothing_leaves_no_rule_to_the_general_way(quick, base):
    """On an example the rules find nothing in, the plan's function settles every rule itself: none of its quick
    reads (a child's text, an attribute, an absolute path's nodes…) fails over to the general way."""
    data = base.read_bytes()
    if any(issue.stage == "rules" for issue in quick.validate_bytes(data).issues):
        pytest.skip("the rules find something here: those rules go the general way, as they must")
    root, facts, memo = _read(quick, data)
    doc = CheckInput(root=root, header=facts, config=quick.config, evaluator=quick._evaluator, source=data, memo=memo)
    with decimal.localcontext(MONEY_CONTEXT):
        left = _quiet(quick, _plan(quick, facts)).to_run(doc)
    assert [rule.id for rule, _severity, _check in left] == []
