"""Ledger and cross-document facts without the facts of the lines: the sum of the taxes other than IVA, read from
the tree, is the one the facts of the lines give, and the facts read without lines (``lines=False``, what a batch
without PDFs asks for) give the same reports, cross-document facts and ledger facts as with them."""

from __future__ import annotations

import re
from decimal import Decimal, localcontext

import pytest

from fel_rules.checks.batch_input import cross_facts
from fel_rules.core.money import MONEY_CONTEXT
from fel_rules.document.facts import Documento, extract_facts
from fel_rules.document.ledger import other_taxes
from fel_rules.document.parse import parse_xml
from fel_rules.document.schema import strip_adendas
from fel_rules.testing.builder import Invoice, Item

from .conftest import EXAMPLES, FEL_REFERENCE
from .test_quick_checks import DOCUMENTS

SAMPLES = sorted((FEL_REFERENCE / "samples").glob("*/*.[xX][mM][lL]")) if FEL_REFERENCE.is_dir() else []
CORPUS = DOCUMENTS + [(f"sat/{path.parent.name}/{path.name}", path.read_bytes()) for path in SAMPLES]


def _from_the_lines(facts: Documento) -> Decimal | None:
    """The reference: the sum over the facts of the lines, as the ledger computed it before it read the tree."""
    if not facts.items:
        return None
    total = Decimal(0)
    with localcontext(MONEY_CONTEXT):
        for item in facts.items:
            for tax in item.impuestos:
                if tax.nombre_corto is not None and tax.nombre_corto.value.strip() == "IVA":
                    continue
                if tax.monto_impuesto is None or tax.monto_impuesto.value is None:
                    return None
                total += tax.monto_impuesto.value
    return total


def _root(data: bytes):
    root = parse_xml(data, max_bytes=20_000_000).root
    if root is None:
        pytest.skip("not XML (nothing is read of it)")
    strip_adendas(root)
    return root


@pytest.mark.parametrize(("name", "data"), CORPUS, ids=[name for name, _ in CORPUS])
def test_other_taxes_from_the_tree_are_those_of_the_lines(name, data):
    root = _root(data)
    facts = extract_facts(root)
    if not isinstance(facts, Documento):
        pytest.skip("an annulment has no lines")
    assert other_taxes(root, {}) == _from_the_lines(facts)


@pytest.mark.parametrize(("name", "data"), CORPUS, ids=[name for name, _ in CORPUS])
def test_facts_without_lines_keep_what_cross_rules_and_the_ledger_read(validator, name, data):
    whole, header = validator.inspect_bytes(data, path="a.xml"), validator.inspect_bytes(data, path="a.xml",
                                                                                         lines=False)
    assert header.report.to_json(include_run=False) == whole.report.to_json(include_run=False)
    assert header.ledger == whole.ledger
    assert cross_facts(header.facts) == cross_facts(whole.facts)
    if isinstance(whole.facts, Documento):
        assert header.facts.items == [] and all(c.rows == [] for c in header.facts.complementos)
        assert [c.fields for c in header.facts.complementos] == [c.fields for c in whole.facts.complementos]


def test_the_corpus_has_other_taxes_unreadable_ones_and_complements():
    """What the comparisons above cover: documents with taxes other than IVA, with one that cannot be read, and
    with complements whose fields the cross-document rules read."""
    roots = [root for _, data in CORPUS if (root := parse_xml(data, max_bytes=20_000_000).root) is not None]
    sums = [other_taxes(root, {}) for root in roots if isinstance(extract_facts(root, lines=False), Documento)]
    assert any(value is not None and value > 0 for value in sums) and None in sums
    assert sum(1 for _, data in CORPUS if b"ReferenciasNota" in data) > 3


def test_other_taxes_read_the_first_group_of_each_line_as_the_facts_do():
    invoice = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=[Item.goods("Gasolina", "1", "100.00")])
    data = invoice.to_xml().replace(b"</dte:Impuestos>", b"</dte:Impuestos><dte:Impuestos><dte:Impuesto>"
                                    b"<dte:NombreCorto>PETROLEO</dte:NombreCorto><dte:MontoImpuesto>9.00"
                                    b"</dte:MontoImpuesto></dte:Impuesto></dte:Impuestos>", 1)
    root = _root(data)
    assert other_taxes(root, {}) == _from_the_lines(extract_facts(root)) == Decimal(0)


def test_a_document_whose_rules_are_skipped_still_has_its_ledger_facts(validator):
    """A schema-invalid document beyond SAT's cardinalities is finished before its rules (FEL-ENG-03): the ledger
    still reads its names and other taxes, with or without its lines."""
    data = (EXAMPLES / "factura-combustible.xml").read_bytes()
    many = b"".join(b'<dte:TotalImpuesto NombreCorto="T%d" TotalMontoImpuesto="1.00"/>' % n for n in range(30))
    crowded = re.sub(rb"<dte:TotalImpuestos>.*?</dte:TotalImpuestos>", b"<dte:TotalImpuestos>" + many
                     + b"</dte:TotalImpuestos>", data, count=1, flags=re.S)
    whole = validator.inspect_bytes(data)
    for outcome in (validator.inspect_bytes(crowded), validator.inspect_bytes(crowded, lines=False)):
        assert any(issue.rule_id == "FEL-ENG-03" for issue in outcome.report.issues)
        assert outcome.ledger == whole.ledger and outcome.ledger.otros_impuestos not in (None, "0")
