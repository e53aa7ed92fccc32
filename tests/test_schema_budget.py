"""Bounded work for the schema engine that explains errors (fel_rules.document.schema_budget): what it counts as a
certain error is one, and a document made of such errors costs the explanation a bounded number of errors."""

from __future__ import annotations

import re

import pytest
from xmlschema.validators.validation import ValidationContext

from fel_rules import Config, Validator
from fel_rules.document.parse import parse_xml
from fel_rules.document.schema import builtin_schema_set, strip_adendas
from fel_rules.document.schema_budget import CROWDED, certain_errors
from fel_rules.document.schema_lexical import lexical_errors

from .conftest import EXAMPLES, spy
from .test_quick_checks import DOCUMENTS

FACT = (EXAMPLES / "factura-fact.xml").read_bytes()
_ITEM = re.compile(rb"<dte:Item .*?</dte:Item>", re.S)


def _items(count: int, inside: bytes = b"", attributes: bytes = b"") -> bytes:
    """FACT with ``count`` copies of its first item, each with ``inside`` as its first children and ``attributes``."""
    item = _ITEM.search(FACT).group(0)
    opened = item.index(b">")
    bad = item[:opened] + attributes + b">" + inside + item[opened + 1:]
    return FACT.replace(item, b"".join(bad.replace(b'NumeroLinea="1"', b'NumeroLinea="%d"' % n)
                                       for n in range(1, count + 1)), 1)


def _schema_errors(data: bytes) -> tuple[list, dict]:
    """xmlschema's errors on ``data`` (as check_schema's reference pass sees the tree) and the certain errors the
    budget counts per element, without skipping or stopping anything."""
    root = parse_xml(data, max_bytes=10**8).root
    strip_adendas(root)
    certain: dict = {}

    def count(element, declaration) -> bool:
        if (found := certain_errors(element, declaration)):
            certain[element] = found
        return False

    schema = builtin_schema_set().schema
    return list(schema.iter_errors(root, extra_validator=lexical_errors, validation_hook=count)), certain


@pytest.mark.parametrize(("name", "data"), DOCUMENTS, ids=[name for name, _ in DOCUMENTS])
def test_a_certain_error_is_an_error(name, data):
    """Never a certain error where the reference engine finds none (the budget never touches a valid document)."""
    if parse_xml(data, max_bytes=10**8).root is None:
        pytest.skip("not XML")
    errors, certain = _schema_errors(data)
    assert errors or not certain, certain


def test_the_shipped_examples_have_no_certain_error():
    for path in sorted(EXAMPLES.glob("*.xml")):
        assert _schema_errors(path.read_bytes())[1] == {}, path.name


def test_children_the_model_does_not_admit_are_counted():
    _, certain = _schema_errors(_items(2, inside=b"<a/>" * 3 + b"<dte:Cantidad>1</dte:Cantidad>"))
    assert sorted(certain.values()) == [4, 4]  # three <a/> and a second dte:Cantidad in each item
    _, certain = _schema_errors(_items(1, attributes=b' x="1" y="2"'))
    assert list(certain.values()) == [2]


def _built_errors(monkeypatch) -> list:
    """The errors xmlschema builds from now on (one entry each), the schema compiled first (its own checks build
    some)."""
    builtin_schema_set().schema  # noqa: B018
    built: list = []
    spy(monkeypatch, ValidationContext, "validation_error", lambda *args, **kwargs: built.append(None))
    return built


def test_crowded_items_are_not_explained_child_by_child(monkeypatch):
    """20 items with 2,000 unexpected children each: 40,000 errors to build one by one (each found by indexing its
    parent's children), for a report that shows 200. The first item is said in one finding and validation stops."""
    built = _built_errors(monkeypatch)
    report = Validator(Config(schema_engine="xmlschema")).validate_bytes(_items(20, inside=b"<a/>" * 2_000))
    schema = [issue for issue in report.issues if issue.stage == "schema"]
    crowded = [issue for issue in schema if issue.rule_id == "FEL-XSD-06"]
    assert [issue.message for issue in crowded] == [
        "El elemento dte:Item (línea 29) tiene 2000 elementos hijos o atributos que el esquema no admite ahí; no se "
        "detallan uno por uno."]
    assert any(issue.rule_id == "FEL-XSD-05" for issue in schema) and not report.valid
    assert len(built) < 2 * CROWDED


def test_many_elements_with_a_few_errors_each_stop_once_the_report_is_full(monkeypatch):
    """2,000 items with 30 unexpected attributes each (under the crowded mark): explained until the report has its
    200 errors, then validation stops."""
    built = _built_errors(monkeypatch)
    attributes = b"".join(b' a%d="x"' % n for n in range(30))
    report = Validator(Config(schema_engine="xmlschema")).validate_bytes(_items(2_000, attributes=attributes))
    schema = [issue for issue in report.issues if issue.stage == "schema"]
    assert sum(1 for issue in schema if issue.rule_id == "FEL-XSD-01") == 200
    notice = next(issue for issue in schema if issue.rule_id == "FEL-XSD-05")
    assert notice.message.startswith("El documento tiene más de 200 errores de esquema")
    assert len(built) < 300  # not 60,000



def _exports(typed: int, bad: bool) -> bytes:
    """The export example with ``typed`` more export complements whose cex:aduanaSalida (declared xs:string) has
    ``xsi:type`` glp:CustomsDeclarationType, a string type that adds the attribute ``codigo`` (schema-valid), then,
    with ``bad``, one complement holding an element the schema does not know."""
    source = (EXAMPLES / "factura-exportacion.xml").read_text(encoding="utf-8")
    namespaces = ('xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
                  'xmlns:glp="http://www.sat.gob.gt/face2/ComplementoGasLicuadoPetroleo/0.1.0" ')
    source = source.replace("<dte:GTDocumento ", "<dte:GTDocumento " + namespaces, 1)
    start = source.index("<dte:Complemento IDComplemento")
    end = source.index("</dte:Complemento>") + len("</dte:Complemento>")
    complement = source[start:end]
    with_type = complement.replace("<cex:aduanaSalida>",
                                   '<cex:aduanaSalida xsi:type="glp:CustomsDeclarationType" codigo="1">')
    tail = complement.replace("<cex:LugarExpedicion>", "<cex:NoSuchElement/><cex:LugarExpedicion>") if bad else ""
    return (source[:start] + complement + with_type * typed + tail + source[end:]).encode()


@pytest.mark.parametrize("engine", ["auto", "xmlschema"])
def test_an_element_with_xsi_type_has_no_certain_error(engine):
    """Its type is not the declaration's: its attributes are not counted, and a real error after many such
    elements is still found."""
    _, certain = _schema_errors(_exports(3, bad=False))
    assert certain == {}
    validator = Validator(Config(schema_engine=engine))
    assert validator.validate_bytes(_exports(250, bad=False)).valid
    report = validator.validate_bytes(_exports(250, bad=True))
    assert not report.valid and "FEL-XSD-01" in {issue.rule_id for issue in report.issues}


def test_children_a_wildcard_takes_once_are_counted_beyond_once(monkeypatch):
    """dte:Complemento takes one element of any namespace: 2,000 more are certain errors, said in one finding."""
    built = _built_errors(monkeypatch)
    complement = b"<dte:Complemento"
    source = (EXAMPLES / "factura-exportacion.xml").read_bytes()
    opened = source.index(b">", source.index(complement)) + 1
    report = Validator(Config(schema_engine="xmlschema")).validate_bytes(
        source[:opened] + b"<a/>" * 2_000 + source[opened:])
    assert [issue.rule_id for issue in report.issues if issue.rule_id.startswith("FEL-XSD-0")].count("FEL-XSD-06") == 1
    assert not report.valid and len(built) < 2 * CROWDED


def test_a_stop_without_an_error_is_never_a_pass(monkeypatch):
    """Were the budget ever to count as certain what the engine does not report, the document stays without a
    verdict rather than valid: the rest of it was not validated. (A document libxml2 refuses: an amount that is no
    number, at the end.)"""
    from fel_rules.document import schema_budget
    from fel_rules.document.schema import check_schema

    monkeypatch.setattr(schema_budget, "certain_errors", lambda element, declaration: 1)
    data = FACT.replace(b"<dte:GranTotal>1911.50<", b"<dte:GranTotal>uno<")
    root = parse_xml(data, max_bytes=10**8).root
    strip_adendas(root)
    checked = check_schema(builtin_schema_set(), root, source=data, engine="xmlschema", max_errors=5)
    assert checked.status == "error" and checked.findings[-1].id == "FEL-XSD-03"


@pytest.mark.parametrize("engine", ["auto", "xmlschema"])
def test_the_budget_never_touches_a_document_libxml2_accepts(monkeypatch, engine):
    """However the budget counted, a document libxml2 accepts is validated whole: the budget is off for it."""
    from fel_rules.document import schema_budget
    from fel_rules.document.schema import check_schema

    monkeypatch.setattr(schema_budget, "certain_errors", lambda element, declaration: 1_000)
    root = parse_xml(FACT, max_bytes=10**8).root
    strip_adendas(root)
    assert check_schema(builtin_schema_set(), root, source=FACT, engine=engine).status == "passed"


def test_errors_counted_in_ancestors_before_a_stop_are_said(monkeypatch):
    """45 undeclared elements first in each of five nested elements: 225 certain errors, counted on the ancestors
    before the engine reports any (it reports an element's own once its content is validated). The document is
    invalid, each of those elements in one finding, never "could not validate"."""
    data = FACT
    for opening in (b'<dte:GTDocumento ', b"<dte:SAT ", b"<dte:DTE ", b'<dte:DatosEmision ', b"<dte:Emisor "):
        start = data.index(opening)
        end = data.index(b">", start) + 1
        data = data[:end] + b"<dte:X/>" * 45 + data[end:]
    for engine in ("auto", "xmlschema"):
        report = Validator(Config(schema_engine=engine)).validate_bytes(data)
        assert (report.valid, report.complete, report.exit_code()) == (False, True, 1), engine
        said = [issue for issue in report.issues if issue.rule_id == "FEL-XSD-06"]
        assert len(said) >= 4 and all(" tiene 45 elementos hijos " in issue.message for issue in said), engine
        assert "FEL-XSD-03" not in {issue.rule_id for issue in report.issues}


def test_what_the_budget_learns_of_declarations_is_let_go_after_each_validation():
    """xmlschema makes a new declaration for each element under a wildcard (the XAdES properties under ds:Object):
    none is kept once a validation is over."""
    import gc

    from xmlschema.validators import XsdElement

    from fel_rules.document.schema_budget import ErrorBudget

    data = (EXAMPLES / "factura-certificada.xml").read_bytes().replace(b"<dte:GranTotal>1911.50<",
                                                                        b"<dte:GranTotal>uno<")
    schema = builtin_schema_set().schema

    def declarations_after(validations: int) -> int:
        for _ in range(validations):
            root = parse_xml(data, max_bytes=10**8).root
            strip_adendas(root)
            budget = ErrorBudget(201)
            list(schema.iter_errors(root, extra_validator=lexical_errors, validation_hook=budget))
            assert budget.counted == [] and budget._known  # (it learnt, and the document has no certain error)
        gc.collect()
        return sum(1 for thing in gc.get_objects() if isinstance(thing, XsdElement))

    assert declarations_after(20) == declarations_after(1)
