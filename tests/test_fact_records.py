"""The facts are made with :func:`fel_rules.core.record.build` (no keyword checks): every record it makes must be
the record its class's constructor makes from the same values — equal, with the same fields in the same order,
the same ``repr`` and (when it has one) hash."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fel_rules.core.record import build
from fel_rules.document.facts import Amount, Documento, Text, extract_facts
from fel_rules.document.parse import parse_xml
from fel_rules.testing.builder import Invoice, Item

from .conftest import EXAMPLES, FEL_REFERENCE
from .record_checks import assert_as_constructed, records


def _documents() -> list[tuple[str, bytes]]:
    documents = [(path.name, path.read_bytes()) for path in sorted(EXAMPLES.glob("*.xml"))]
    samples = FEL_REFERENCE / "samples"
    documents += [(path.name, path.read_bytes()) for path in sorted(samples.rglob("*.xml"))[:40]]
    items = [Item.goods("Tornillo", cantidad="3", precio_unitario="1.25", descuento="0.10"),
             Item.goods("Clavo", cantidad="1", precio_unitario="0.50")]
    documents.append(("built", Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items).to_xml()))
    return documents


@pytest.mark.parametrize(("name", "data"), _documents(), ids=lambda value: value if isinstance(value, str) else "")
@pytest.mark.parametrize("lines", [True, False])
def test_facts_are_the_records_their_constructors_make(name, data, lines):
    root = parse_xml(data, max_bytes=len(data) + 1).root
    if root is None:
        pytest.skip(f"{name}: not a readable FEL document")
    facts = extract_facts(root, lines=lines)
    found = list(records(facts))
    assert len(found) > 5
    for record in found:
        assert_as_constructed(record)


@pytest.mark.parametrize(("name", "data"), _documents(), ids=lambda value: value if isinstance(value, str) else "")
def test_facts_without_details_are_the_header_without_addresses_and_frases(name, data):
    root = parse_xml(data, max_bytes=len(data) + 1).root
    if root is None:
        pytest.skip(f"{name}: not a readable FEL document")
    header = extract_facts(root, lines=False, complements=False)
    brief = extract_facts(root, lines=False, complements=False, details=False, memo={})
    if not isinstance(header, Documento):  # (an annulment has neither)
        assert brief == header
        return
    expected = replace(
        header, frases=[],
        emisor=header.emisor and replace(header.emisor, direccion=None),
        receptor=header.receptor and replace(header.receptor, direccion=None))
    assert brief == expected
    for record in records(brief):
        assert_as_constructed(record)


_text = st.text(max_size=20)
_line = st.none() | st.integers(min_value=1, max_value=10**6)


@given(value=_text, xpath=_text, line=_line)
def test_build_makes_what_the_constructor_makes_text(value, xpath, line):
    assert_as_constructed(build(Text, {"xpath": xpath, "line": line, "value": value}))
    assert build(Text, {"xpath": xpath, "line": line, "value": value}) == Text(value=value, xpath=xpath, line=line)


@given(raw=_text, value=st.none() | st.decimals(allow_nan=False, allow_infinity=False), xpath=_text, line=_line)
def test_build_makes_what_the_constructor_makes_amount(raw, value, xpath, line):
    built = build(Amount, {"xpath": xpath, "line": line, "raw": raw, "value": value})
    assert_as_constructed(built)
    assert built == Amount(raw=raw, value=value, xpath=xpath, line=line)
    assert isinstance(built.value, Decimal | None)
