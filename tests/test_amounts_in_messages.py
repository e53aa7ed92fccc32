"""Amounts in the messages of issues read as the PDF prints them (``Q 60,000.00``, ``US$ 1,234.56``), with one
formatter shared with the PDF; the report's ``expected``/``actual``/``difference`` stay exact Decimal strings."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from fel_rules.core import money
from fel_rules.outputs.render import view

from .conftest import EXAMPLES

FACT = (EXAMPLES / "factura-fact.xml").read_bytes()


def _issue(validator, data: bytes, rule: str):
    report = validator.validate_bytes(data, path="factura.xml")
    return next(issue for issue in report.issues if issue.rule_id == rule)


@pytest.mark.parametrize("amount, currency, exact, said", [
    (Decimal("60000.00"), "GTQ", False, "Q 60,000.00"),
    (Decimal("1911.5"), "GTQ", False, "Q 1,911.50"),
    (Decimal("-11.50"), "GTQ", False, "-Q 11.50"),
    (Decimal("0.125"), "GTQ", False, "Q 0.13"),          # half-up, never banker's rounding
    (Decimal("0.125"), "GTQ", True, "Q 0.125"),          # a message keeps every decimal
    (Decimal("12.3456"), "USD", True, "US$ 12.3456"),
    (Decimal("1234.56"), "hnl", False, "HNL 1,234.56"),
    (Decimal("-0.001"), "GTQ", False, "Q 0.00"),          # never "-Q 0.00"
    (None, "GTQ", False, ""),
])
def test_one_formatter(amount, currency, exact, said):
    assert money.format_money(amount, currency, exact=exact) == said


def test_the_pdf_uses_the_same_formatter():
    assert view.format_money is money.format_money


def test_a_total_is_said_as_an_amount_and_kept_exact_in_the_report(validator):
    data = FACT.replace(b"<dte:GranTotal>1911.50</dte:GranTotal>", b"<dte:GranTotal>60000.00</dte:GranTotal>")
    issue = _issue(validator, data, "FEL-TOT-03")
    assert issue.message == ("El GranTotal es Q 60,000.00, pero la suma de los totales de línea es Q 1,911.50; "
                             "diferencia Q 58,088.50.")
    assert (issue.expected, issue.actual, issue.difference) == ("1911.50", "60000.00", "58088.50")


def test_every_amount_of_a_message_and_a_negative_difference(validator):
    data = FACT.replace(b"<dte:MontoImpuesto>91.07<", b"<dte:MontoImpuesto>90.00<")
    issue = _issue(validator, data, "FEL-IVA-01")
    assert issue.message.startswith("Línea 1: el IVA es Q 90.00 y debería ser Q 91.07 (monto gravable Q 758.93 × "
                                    "tarifa del código 1); diferencia -Q 1.07")
    assert issue.difference == "-1.07"


def test_a_quantity_or_a_code_is_not_an_amount(validator):
    data = FACT.replace(b"<dte:Precio>", b"<dte:Precio>1", 1)  # Cantidad × PrecioUnitario no longer = Precio
    issue = _issue(validator, data, "FEL-LIN-01")
    assert re.search(r"pero 10 × Q [\d,.]+ = Q [\d,.]+", issue.message), issue.message
    assert " Q 10 " not in issue.message


def test_in_the_document_currency(validator):
    data = FACT.replace(b'CodigoMoneda="GTQ"', b'CodigoMoneda="USD"').replace(
        b"<dte:GranTotal>1911.50</dte:GranTotal>", b"<dte:GranTotal>1900.00</dte:GranTotal>")
    issue = _issue(validator, data, "FEL-TOT-03")
    assert "US$ 1,900.00" in issue.message and "US$ 1,911.50" in issue.message and "-US$ 11.50" in issue.message


def test_a_constant_listed_in_amounts_is_an_amount(validator):
    data = (EXAMPLES / "factura-cambiaria-fcam.xml").read_bytes()
    data = re.sub(rb'IDReceptor="[^"]*"', b'IDReceptor="CF"', data, count=1)
    issue = _issue(validator, data, "FEL-CF-01")
    assert re.fullmatch(r"El GranTotal es Q [\d,]+\.\d\d y el límite para consumidor final \(CF\) es Q 2,500\.00: .*",
                        issue.message), issue.message


def test_english_says_amounts_the_same_way(validator_en):
    data = FACT.replace(b"<dte:GranTotal>1911.50</dte:GranTotal>", b"<dte:GranTotal>1900.00</dte:GranTotal>")
    issue = _issue(validator_en, data, "FEL-TOT-03")
    assert issue.message.startswith("GranTotal is Q 1,900.00, but the line totals add up to Q 1,911.50")


def test_amounts_a_rule_author_lists(tmp_path):
    from fel_rules.core.config import Config
    from fel_rules.engine import Validator

    rules = tmp_path / "reglas"
    rules.mkdir()
    (rules / "mias.yaml").write_text("""\
schema_version: 1
ruleset: {id: mias, version: "1", title: Mías}
rules:
  - id: EMP-MON-01
    title: Factura menor al tope
    context: emision
    let:
      total: totales/dte:GranTotal
      cantidad: {path: "items/dte:Cantidad", many: true}
    constants:
      tope: "1500"
    amounts: [tope]
    assert: total < tope
    message: "Total {total}, tope {tope}, cantidades {cantidad}."
""", encoding="utf-8")
    report = Validator(Config(rules_dir=rules)).validate_bytes(FACT, path="f.xml")
    (issue,) = [i for i in report.issues if i.rule_id == "EMP-MON-01"]
    assert issue.message == "Total Q 1,911.50, tope Q 1,500.00, cantidades 10, 20, 2."


def test_amounts_must_name_a_value(tmp_path):
    from fel_rules.core.errors import RuleFileError
    from fel_rules.ruleset import load_catalog

    rules = tmp_path / "reglas"
    rules.mkdir()
    (rules / "mias.yaml").write_text("""\
schema_version: 1
ruleset: {id: mias, version: "1", title: Mías}
rules:
  - id: EMP-MON-01
    title: x
    context: emision
    let:
      total: totales/dte:GranTotal
    amounts: [tope]
    assert: total > 0
    message: "Total {total}."
""", encoding="utf-8")
    with pytest.raises(RuleFileError, match="'amounts' nombra 'tope'"):
        load_catalog(rules)


def test_batch_rules_say_amounts_too(validator):
    from pathlib import Path

    from fel_rules.authoring.rule_cases import load_case_file, run_case

    from .conftest import RULES

    path = Path(RULES) / "tests" / "FEL-LOT-06.yaml"
    case_file = load_case_file(path)
    said = [issue.message for case in case_file.cases
            for report in run_case(validator, case_file, case, path.parent).reports.values()
            for issue in report.issues if issue.rule_id == "FEL-LOT-06"]
    assert said and all(re.search(r"es Q [\d,]+\.\d\d, mayor que .* \(Q [\d,]+\.\d\d\)\.$", m) for m in said), said
