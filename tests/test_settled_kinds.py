"""The fast word of a check kind that has one (``finds_nothing(doc)``, what a rule plan's function asks) is true
only when the check finds nothing — for a required or an identifier check exactly then, for a signature check on an
unsigned document — on every rule case, example and SAT sample, every such rule of the catalogue, and on documents whose
elements and attributes are blanked or removed at random."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from fel_rules.checks import CheckError, CheckInput
from fel_rules.checks.expression import ExpressionCheck
from fel_rules.checks.identity import CuiCheck, NitCheck
from fel_rules.checks.required import RequiredCheck
from fel_rules.checks.signature import ReformattedSignaturesCheck, SignatureCheck, SignaturesVerifiedCheck
from fel_rules.core.config import Config
from fel_rules.document.facts import extract_facts
from fel_rules.document.parse import parse_xml
from fel_rules.document.schema import strip_adendas
from fel_rules.engine import Validator

from .conftest import EXAMPLES
from .test_quiet_plans import ALL

VALIDATOR = Validator(Config())
#: The kinds whose fast word is true exactly when the check finds nothing.
EXACT = {RequiredCheck, NitCheck, CuiCheck}
SETTLED = [(rule.id, rule.check) for rule in VALIDATOR.catalog.rules
           if type(rule.check) is not ExpressionCheck and hasattr(rule.check, "finds_nothing")]


def _verdicts(root: etree._Element, source: bytes | None) -> dict[str, tuple[object, object, object]]:
    """For each rule: (its check, its fast word, whether the check finds nothing) on ``root`` (read from
    ``source``), each with a memo of its own, an error said as its type."""
    facts = extract_facts(root, lines=False)
    said = {}
    for rule_id, check in SETTLED:
        try:
            fast: object = check.finds_nothing(CheckInput(root=root, header=facts, config=VALIDATOR.config,
                                                          evaluator=VALIDATOR._evaluator, source=source))
        except Exception as exc:  # noqa: BLE001 - compared below
            fast = type(exc)
        try:
            general: object = list(check.check(CheckInput(root=root, header=facts, config=VALIDATOR.config,
                                                          evaluator=VALIDATOR._evaluator, source=source))) == []
        except CheckError as exc:
            general = type(exc)
        said[rule_id] = (check, fast, general)
    return said


def _agree(root: etree._Element, where: str, source: bytes | None = None) -> tuple[int, int]:
    """Asserts the fast word agrees (true only when the check finds nothing; for a required check, exactly then; an
    error of the check: the fast word is an error or ``False``); the number of (fast words true, false) seen."""
    quiet = loud = 0
    for rule_id, (check, fast, general) in _verdicts(root, source).items():
        if fast is True:
            assert general is True, (where, rule_id)
            quiet += 1
        else:
            assert type(check) not in EXACT or general is not True, (where, rule_id, fast, general)
            loud += 1
    return quiet, loud


def _root(data: bytes) -> etree._Element | None:
    root = parse_xml(data, max_bytes=VALIDATOR.config.max_bytes).root
    if root is not None:
        strip_adendas(root)
    return root


def test_settled_kinds() -> None:
    kinds = {type(check) for _, check in SETTLED}
    assert kinds == {*EXACT, SignatureCheck, ReformattedSignaturesCheck, SignaturesVerifiedCheck}, kinds


def test_the_fast_word_agrees_on_every_document() -> None:
    quiet = loud = 0
    for name, data in ALL:
        root = _root(data)
        if root is None:
            continue
        found = _agree(root, name, data)
        quiet, loud = quiet + found[0], loud + found[1]
    assert quiet > 100 and loud > 5, (quiet, loud)  # both outcomes are compared


def test_a_signed_document_is_left_to_the_checks() -> None:
    data = (EXAMPLES / "factura-certificada.xml").read_bytes()
    root = _root(data)
    assert root is not None
    for rule_id, (check, fast, _general) in _verdicts(root, data).items():
        if type(check) not in EXACT:
            assert fast is False, rule_id


_BASES = sorted(EXAMPLES.glob("*.xml"))


@settings(max_examples=80, deadline=None)
@given(base=st.sampled_from(_BASES), seed=st.randoms(use_true_random=False), changes=st.integers(1, 6),
       blank=st.sampled_from(["", " ", "\t\n", "\u00a0", "x"]))
def test_random_blanks_and_removals(base, seed: random.Random, changes: int, blank: str) -> None:
    root = _root(base.read_bytes())
    assert root is not None
    elements = [element for element in root.iter(etree.Element) if element is not root]
    for _ in range(changes):
        if not elements:
            break
        element = seed.choice(elements)
        what = seed.randrange(4)
        if what == 0 and element.getparent() is not None:
            element.getparent().remove(element)
            elements = [each for each in root.iter(etree.Element) if each is not root]
        elif what == 1 and element.attrib:
            element.set(seed.choice(sorted(element.attrib)), blank)
        elif what == 2 and element.attrib:
            del element.attrib[seed.choice(sorted(element.attrib))]
        else:
            element.text = blank
            if not blank.strip():
                for child in list(element):
                    element.remove(child)
                elements = [each for each in root.iter(etree.Element) if each is not root]
    _agree(root, base.name)


@pytest.mark.parametrize("path", ["dte:A", "dte:A/@b", "@b"])
def test_simple_fields_are_read_from_the_index(path: str) -> None:
    """(The fields the fast word reads itself, not through the general finder: the forms compared above.)"""
    from fel_rules.checks.required import _SIMPLE_FIELD

    assert _SIMPLE_FIELD.fullmatch(path) is not None
