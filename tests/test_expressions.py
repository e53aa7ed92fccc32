"""The rule expression language: exact decimals, half-up rounding, and nothing unsafe."""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal

import pytest

from fel_rules.expressions.language import (
    Evaluator,
    ExpressionError,
    compile_expression,
    parse_date,
)

EVALUATOR = Evaluator(tolerance=Decimal("0.01"), rounding=ROUND_HALF_UP, rates={("IVA", "1"): Decimal("0.12")})


def value(source: str, **names):
    return EVALUATOR.evaluate(compile_expression(source, names), names)


def test_number_literals_are_exact_decimals():
    assert value("0.1 + 0.2 == 0.3") is True
    assert value("x * 0.12", x=Decimal("758.93")) == Decimal("91.0716")
    assert isinstance(value("1 / 3"), Decimal)


def test_round2_is_half_up():
    assert value("round2(x)", x=Decimal("0.125")) == Decimal("0.13")
    assert value("round2(x)", x=Decimal("2.675")) == Decimal("2.68")
    assert value("round_to(x, 3)", x=Decimal("1.0005")) == Decimal("1.001")


def test_helpers():
    assert value("close(a, b)", a=Decimal("1.00"), b=Decimal("1.009")) is True
    assert value("close(a, b)", a=Decimal("1.00"), b=Decimal("1.011")) is False
    assert value("sum(xs)", xs=[Decimal("1.10"), None, Decimal("2.20")]) == Decimal("3.30")
    assert value("count(xs)", xs=[1, 2, 3]) == 3
    assert value('rate("iva", c)', c="1") == Decimal("0.12")
    assert value('rate("IVA", c)', c=Decimal("1")) == Decimal("0.12")
    assert value("rate('IVA', '9') is None") is True
    assert value("uuid_numero(u)", u="9E52C854-E18B-45C1-A77B-C87CF42F35F1") == "3784000961"
    assert value("tol") == Decimal("0.01")


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("x.real", "acceso a atributos"),
        ("x.__class__", "acceso a atributos"),
        ("xs[0]", "subíndices"),
        ("2 ** 1000000", "potencia"),
        ("__import__('os')", "función desconocida '__import__'"),
        ("open('/etc/passwd')", "función desconocida 'open'"),
        ("[a for a in xs]", "comprensiones"),
        ("lambda: 1", "lambda"),
        ("y + 1", "nombre desconocido 'y'"),
        ("x = 1", "una sola expresión"),
        ("x +", "sintaxis inválida"),
        ("round2(x, places=2)", "argumentos con nombre"),
        ("", "vacía"),
    ],
)
def test_unsafe_or_invalid_expressions_are_refused_at_load(source, fragment):
    with pytest.raises(ExpressionError) as info:
        compile_expression(source, ["x", "xs"])
    assert fragment in info.value.message


def test_date_helpers():
    from datetime import date

    assert value('date("2024-03-05T10:00:00-06:00")') == date(2024, 3, 5)
    assert value('date("05/03/2024")') is None
    assert value("days_between(a, b)", a="2024-02-27T23:59:00-06:00", b="2024-03-01") == Decimal(3)
    assert value("month_end(d)", d="2024-02-10") == date(2024, 2, 29)
    assert value("month_end(d, 1)", d="2024-12-31T08:00:00-06:00") == date(2025, 1, 31)
    assert value('date("2024-03-01") <= month_end(d)', d="2024-03-31") is True
    assert value("days_between(a, b) is None", a="", b="2024-03-01") is True


def test_catalogue_helpers():
    from fel_rules.core.resources import BUILTIN_RULES_DIR
    from fel_rules.expressions.catalogues import load_catalogues

    evaluator = Evaluator(tolerance=Decimal("0.01"), rounding=ROUND_HALF_UP,
                          catalogues=load_catalogues(BUILTIN_RULES_DIR / "data"))

    def run(source, **names):
        return evaluator.evaluate(compile_expression(source, names), names)

    assert run('rate("PETROLEO", "01")') == Decimal("4.7")
    assert run('tax_base("TURISMO PASAJES", 1)') == "CantidadUnidadesGravables"
    assert run('tax_base("iva", "1")') == "MontoGravable"
    assert run('tax_currency("TURISMO PASAJES", 1)') == "USD"
    assert run('tax_currency("IVA", 1) is None') is True
    assert run('tax_base("TASA MUNICIPAL", 1) is None') is True
    assert run('frase(4, 1)').startswith("Exportaciones")
    assert run('frase(4, 99) is None') is True
    assert run('frase_resolution(1, 3)') is True
    assert run('frase_resolution(1, 1)') is False
    assert run('personeria_rdon(2635)') is True
    assert run('personeria_rdon("0")') is False
    assert run('personeria_rdon(722)') is False


def test_listed_matches_whole_entries():
    assert value('listed(x, "1, 2, 12")', x=Decimal("12")) is True
    assert value('listed(x, "1, 2, 12")', x="1 ") is True
    assert value('listed(x, "1, 2, 12")', x="3") is False
    assert value('listed(x, "Exportación en pie, Mercado")', x="Exportación") is False
    assert value('listed(x, "a, b")', x=None) is False


def test_len_counts_the_characters_of_a_text():
    assert value("len(x)", x="G1234567") == Decimal(8)
    assert value("len(x)", x="") == Decimal(0)
    assert value("len(x)", x=None) == Decimal(0)
    assert value("len(text(x))", x=Decimal("12.50")) == Decimal(5)


def test_len_of_a_list_is_an_error_that_points_to_count():
    with pytest.raises(TypeError, match="count"):
        value("len(xs)", xs=["a", "b"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [("G1234567", True), ("AB", False), ("ABCDEFGHIJ123456789", False), ("g1234567", False), ("G-1234567", False),
     ("G 1234567", False), ("", False), (None, False)],
)
def test_matches_compares_the_whole_text(text, expected):
    assert value('matches(x, "[A-Z0-9]{3,18}")', x=text) is expected


def test_matches_reads_numbers_as_text_and_uses_ascii_classes():
    assert value(r'matches(x, "\d{2}\.\d{2}")', x=Decimal("12.50")) is True
    assert value(r'matches(x, "\d{2}\.\d{2}")', x="12x50") is False  # the pattern is read as written
    assert value(r'matches(x, "\d+")', x="١٢٣") is False  # Arabic-Indic digits are not \d here
    assert value('matches(x, "(ab)+c?")', x="ababc") is True


def test_matches_never_matches_a_text_longer_than_the_limit():
    from fel_rules.expressions.patterns import MAX_MATCHED_TEXT

    assert value('matches(x, "A*")', x="A" * MAX_MATCHED_TEXT) is True
    assert value('matches(x, "A*")', x="A" * (MAX_MATCHED_TEXT + 1)) is False


@pytest.mark.parametrize(
    ("source", "fragment", "column"),
    [
        ('matches(x, "(a+)+")', "no puede contener otra repetición", 17),
        ('matches(x, "(a|b)*")', "no puede contener otra repetición", 18),
        ('matches(x, "^[0-9]+$")', "quite ^ y $", 13),
        (r'matches(x, "(a)\1")', "escape no admitido", 16),
        (r'matches(x, "\bA")', "escape no admitido", 13),
        ('matches(x, "(?=a)a")', "solo se admiten grupos", 13),
        ('matches(x, "a+?")', "solo cuantificadores simples", 15),
        ('matches(x, "a*a*a*")', "demasiadas repeticiones", 18),
        ('matches(x, "[0-9")', "sin cerrar", 13),
        ('matches(x, "a{3,1}")', "n no puede ser menor", 14),
        ('matches(x, "' + "a" * 101 + '")', "más de 100 caracteres", 13),
        ("matches(x, y)", "el patrón entre comillas", 1),
        ('matches(x)', "dos argumentos", 1),
    ],
)
def test_unsafe_or_invalid_patterns_are_refused_at_load(source, fragment, column):
    with pytest.raises(ExpressionError) as info:
        compile_expression(source, ["x", "y"])
    assert fragment in info.value.message
    assert info.value.column == column


def test_a_pattern_is_compiled_once():
    from fel_rules.expressions.patterns import compile_pattern

    assert compile_pattern("[A-Z]{2}[0-9]+") is compile_pattern("[A-Z]{2}[0-9]+")


def test_lookup_reads_a_table_by_code():
    from fel_rules.expressions.language import Table

    table = Table({"FPEQ": Decimal(3), 10: "FACT, FCAM"})
    assert value("lookup(t, x)", t=table, x="FPEQ") == Decimal(3)
    assert value("lookup(t, x)", t=table, x=Decimal("10")) == "FACT, FCAM"
    assert value("lookup(t, x)", t=table, x="010") == "FACT, FCAM"
    assert value("lookup(t, x) is None", t=table, x="FACT") is True
    assert value("lookup(t, x) is None", t=table, x=None) is True
    assert value("listed(x, lookup(t, y))", t=table, x="", y="FACT") is False  # no row: nothing is listed
    assert str(table) == "FPEQ: 3, 10: FACT, FCAM"
    with pytest.raises(TypeError, match="tabla"):
        value("lookup(x, x)", x="FPEQ")


def test_month_end_knows_every_month_of_the_gregorian_calendar():
    import calendar

    from fel_rules.expressions.language import _days_in_month

    for year in (*range(1, 30), *range(1580, 2500), *range(9970, 10000)):
        for month in range(1, 13):
            assert _days_in_month(year, month) == calendar.monthrange(year, month)[1], (year, month)


@pytest.mark.parametrize(("text", "day"), [
    ("2026-03-31", date(2026, 3, 31)),
    ("2026-03-31T21:05:00-06:00", date(2026, 3, 31)),
    ("2026-04-01T03:00:00Z", date(2026, 3, 31)),  # 21:00 of 31 March in Guatemala
    ("2026-04-01T09:00:00Z", date(2026, 4, 1)),
    ("2026-04-01T00:30:00+01:00", date(2026, 3, 31)),
    ("2026-03-31T23:30:00-08:00", date(2026, 4, 1)),
    ("2026-04-01T03:00:00", date(2026, 4, 1)),  # no offset: as written
    ("2026-04-01T24:00:00Z", date(2026, 4, 1)),  # (not an instant Python reads: as written)
    ("2026-02-30T10:00:00Z", None),
])
def test_a_date_is_the_day_in_guatemala(text, day):
    assert parse_date(text) == day


@pytest.mark.parametrize("source", ["close", "sum", "x > 0 and round2", "max if x else min"])
def test_a_function_is_only_ever_called(source):
    """``assert: close`` would hold on every document (a function is true): refused when the rule loads."""
    with pytest.raises(ExpressionError, match="sin llamarla"):
        compile_expression(source, {"x"})


@pytest.mark.parametrize("engine", ["compiled", "interpreted"])
@pytest.mark.parametrize("source", ["'%999999999d' % x", "'%.2f' % x", "len('%s' % x)"])
def test_percent_is_a_remainder_never_text_formatting(engine, source):
    """``'%999999999d' % x`` would build a gigabyte, ``'%.2f' % x`` round through a float."""
    evaluator = Evaluator(tolerance=Decimal("0.01"), rounding=ROUND_HALF_UP, engine=engine)
    with pytest.raises(TypeError, match="no se aplica a textos"):
        evaluator.evaluate(compile_expression(source, {"x"}), {"x": Decimal("1.005")})
    assert evaluator.evaluate(compile_expression("x % 1", {"x"}), {"x": Decimal("1.005")}) == Decimal("0.005")
