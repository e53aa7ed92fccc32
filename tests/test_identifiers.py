"""NIT (mod 11, K), CUI/DPI and UUID → Serie/Numero."""

from __future__ import annotations

import pytest

from fel_rules.core.identifiers import (
    CUI_MUNICIPALITIES,
    cui_problem,
    nit_check_digit,
    nit_is_valid,
    uuid_numero,
    uuid_serie,
)


@pytest.mark.parametrize("nit", ["12521337", "16693949", "5432100K", "5432100k", "1669394-9", "123456789", "50510231"])
def test_valid_nits(nit):
    assert nit_is_valid(nit)


@pytest.mark.parametrize("nit", ["12521338", "1000000000K", "11200188K", "", "K", "CF", "12-34-5X", "１２５２１３３７"])
def test_invalid_nits(nit):
    assert not nit_is_valid(nit)


def test_worked_example():
    # 1·8 + 2·7 + 5·6 + 2·5 + 1·4 + 3·3 + 3·2 = 81; 81 mod 11 = 4; 11 − 4 = 7
    assert nit_check_digit("1252133") == "7"
    assert nit_check_digit("5432100") == "K"


def test_cui():
    assert cui_problem("2759184320912") is None
    assert cui_problem("2759184310912") == "check_digit"
    assert cui_problem("27591843209") == "length"
    assert cui_problem("27591843209AB") == "not_numeric"
    assert cui_problem("2759184322301") == "department"
    assert cui_problem("2759184320317") == "municipality"  # Sacatepéquez has 16 municipalities
    assert cui_problem("2759184320514") is None  # Escuintla has 14 since Sipacate
    assert cui_problem("2759184321333") is None  # Huehuetenango has 33 since Petatán
    assert cui_problem("2759184321334") == "municipality"


def test_guatemala_has_340_municipalities() -> None:
    from fel_rules.testing.identifiers import MUNICIPIOS_POR_DEPARTAMENTO

    assert MUNICIPIOS_POR_DEPARTAMENTO == CUI_MUNICIPALITIES
    assert sum(CUI_MUNICIPALITIES) == 340 and len(CUI_MUNICIPALITIES) == 22


def test_uuid_serie_numero():
    uuid = "9E52C854-E18B-45C1-A77B-C87CF42F35F1"
    assert uuid_serie(uuid) == "9E52C854" and uuid_numero(uuid) == "3784000961"
    assert uuid_serie("no-es-uuid") is None and uuid_numero("") is None


def test_a_nit_is_remembered_as_its_text_never_as_the_value_that_knows_its_element():
    """The verdicts of NITs are kept (an issuer's is on each of its invoices), by their text alone: a value found by a
    rule's path knows its element, and kept it would keep the element's whole document in memory."""
    import sys

    from lxml import etree

    from fel_rules.checks._finders import AttributeValue

    element = etree.fromstring(b'<Emisor NITEmisor="85372641"/>')
    value = AttributeValue(element.get("NITEmisor"), element, "NITEmisor")
    held = sys.getrefcount(value)
    assert nit_is_valid(value) and nit_is_valid(value)
    assert sys.getrefcount(value) == held
