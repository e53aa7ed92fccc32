"""Hostile and broken input: each case yields a precise stage-``xml`` issue, never a traceback."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from lxml import etree

from fel_rules import Config, Validator
from fel_rules.document.parse import _parser

from .conftest import EXAMPLES

FACT = (EXAMPLES / "factura-fact.xml").read_bytes()

XXE = b"""<?xml version="1.0"?>
<!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<dte:GTDocumento xmlns:dte="http://www.sat.gob.gt/dte/fel/0.2.0" Version="0.1">&xxe;</dte:GTDocumento>"""

BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
<!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]>
<dte:GTDocumento xmlns:dte="http://www.sat.gob.gt/dte/fel/0.2.0" Version="0.1">&lol9;</dte:GTDocumento>"""

CASES = {
    "empty": (b"", "FEL-XML-01", "vacío"),
    "whitespace": (b"  \n\t ", "FEL-XML-01", "vacío"),
    "not_xml": (b"esto no es XML", "FEL-XML-03", "no es XML bien formado"),
    "json": (b'{"Tipo": "FACT", "GranTotal": 100}', "FEL-XML-03", "parece JSON"),
    "html": (b"<!DOCTYPE html><html><body><p>Factura</p></body></html>", "FEL-XML-05", "'html'"),
    "html_without_doctype": (b"<html><body>Factura</body></html>", "FEL-XML-05", "'html'"),
    "wrong_root": (b'<dte:Factura xmlns:dte="http://www.sat.gob.gt/dte/fel/0.2.0"/>', "FEL-XML-05", "dte:GTDocumento"),
    "fel_1": (FACT.replace(b"http://www.sat.gob.gt/dte/fel/0.2.0", b"http://www.sat.gob.gt/dte/fel/0.1.0"),
              "FEL-XML-10", "Es un documento FEL 1, el formato que SAT reemplazó en 2020"),
    "wrong_namespace": (FACT.replace(b"http://www.sat.gob.gt/dte/fel/0.2.0", b"http://www.sat.gob.gt/dte/fel/0.3.0"),
                        "FEL-XML-06", "http://www.sat.gob.gt/dte/fel/0.2.0"),
    "no_namespace": (b'<GTDocumento Version="0.1"/>', "FEL-XML-06", "se esperaba"),
    "xxe": (XXE, "FEL-XML-04", "DOCTYPE"),
    "entity_bomb": (BOMB, "FEL-XML-04", "DOCTYPE"),
    "truncated": (FACT[: len(FACT) // 2], "FEL-XML-03", "no es XML bien formado"),
    "bad_utf8": (FACT.replace("FERRETERÍA".encode(), "FERRETER\xcdA".encode("latin-1"), 1), "FEL-XML-03",
                 "bien formado"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_an_xml_issue(validator, name):
    data, rule_id, fragment = CASES[name]
    report = validator.validate_bytes(data, path=name)
    assert report.valid is False and report.complete is False
    assert report.stages[0].status == "failed"
    assert [s.status for s in report.stages[1:]] == ["skipped", "skipped"]
    (issue,) = report.issues
    assert (issue.rule_id, issue.stage, issue.severity.value) == (rule_id, "xml", "error")
    assert fragment in issue.message
    assert report.exit_code() == 1


def test_the_parser_a_thread_keeps_carries_nothing_from_one_document_to_the_next(validator):
    """Each thread parses with one parser (faster the second time): what a document declared, or where it broke,
    never reaches the next one: an entity declared by a refused document is unknown to the next, which is refused
    for using it; a document cut short leaves the next one whole; each says its own line."""
    root = b'<dte:GTDocumento xmlns:dte="http://www.sat.gob.gt/dte/fel/0.2.0" Version="0.1">'
    declares = b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY nit "12345678">]>\n' + root + b"&nit;</dte:GTDocumento>"
    uses = root + b"\n\n&nit;</dte:GTDocumento>"
    for first, second in [(declares, uses), (FACT[: len(FACT) // 2], FACT), (uses, declares)]:
        with ThreadPoolExecutor(1) as fresh:  # (a new thread: a parser that never parsed before)
            alone = fresh.submit(validator.validate_bytes, second).result()
        validator.validate_bytes(first)
        after = validator.validate_bytes(second)
        assert [(i.rule_id, i.location.line, i.message) for i in after.issues] == \
               [(i.rule_id, i.location.line, i.message) for i in alone.issues]
        assert after.valid is alone.valid
    assert validator.validate_bytes(uses).issues[0].rule_id == "FEL-XML-03"
    assert "nit" in validator.validate_bytes(uses).issues[0].message


def test_the_parser_itself_never_expands_entities():
    """Even before the DOCTYPE is refused, the parser leaves entities unexpanded and reads no file."""
    root = etree.fromstring(XXE, _parser())
    assert "root:" not in etree.tostring(root, encoding="unicode")


def test_a_billion_laughs_is_not_expanded_by_the_parser():
    levels = "".join(f'<!ENTITY l{n} "{f"&l{n - 1};" * 10}">' for n in range(1, 10))
    bomb = f'<?xml version="1.0"?><!DOCTYPE b [<!ENTITY l0 "lol">{levels}]><b>&l9;</b>'.encode()  # 10⁹ "lol"
    try:
        root = etree.fromstring(bomb, _parser())
    except etree.XMLSyntaxError as exc:  # libxml2 may refuse the amplification outright: also safe
        assert "amplification" in str(exc)
    else:
        assert len(etree.tostring(root)) < 10_000  # expanded it would be 3 GB


def test_entity_bomb_document_is_refused(validator):
    report = validator.validate_bytes(BOMB)
    assert report.issues[0].rule_id == "FEL-XML-04"


def test_size_limit_refuses_without_parsing():
    small = Validator(Config(max_bytes=1000))
    report = small.validate_bytes(FACT, path="big.xml")
    (issue,) = report.issues
    assert issue.rule_id == "FEL-XML-02" and str(len(FACT)) in issue.message
    assert report.stages[0].status == "error" and report.could_not_validate
    assert report.exit_code() == 2


def test_fifty_megabyte_file_is_refused_before_reading(validator, tmp_path):
    big = tmp_path / "grande.xml"
    with big.open("wb") as handle:
        handle.write(FACT)
        handle.seek(50 * 1024 * 1024)
        handle.write(b"\n")
    report = validator.validate_path(big)
    assert report.issues[0].rule_id == "FEL-XML-02"
    assert "20971520" in report.issues[0].message
    assert report.exit_code() == 2


@pytest.mark.parametrize(
    ("label", "data"),
    [
        ("utf8_bom", b"\xef\xbb\xbf" + FACT),
        ("utf16", FACT.replace(b'encoding="UTF-8"', b'encoding="UTF-16"').decode().encode("utf-16")),
        ("latin1", FACT.replace(b'encoding="UTF-8"', b'encoding="ISO-8859-1"').decode().encode("latin-1")),
    ],
)
def test_encodings_and_bom_are_handled(validator, label, data):
    report = validator.validate_bytes(data, path=label)
    assert report.valid, [i.message for i in report.issues]
    assert report.document.nit_emisor == "85372641"


def test_malformed_amount_is_a_schema_issue_not_a_crash(validator):
    data = FACT.replace(b"<dte:Precio>850.00</dte:Precio>", b"<dte:Precio>ochocientos</dte:Precio>")
    report = validator.validate_bytes(data)
    assert report.stages[1].status == "failed" and report.stages[2].status in ("passed", "failed")
    issue = next(i for i in report.issues if i.rule_id == "FEL-XSD-01")
    assert issue.location.field == "Precio" and issue.location.line == 34 and issue.location.item == 1
    assert "'ochocientos'" in issue.message
