"""The plain-path finders give exactly what XPath gives: same nodes, same order, on every node they may start from."""

from __future__ import annotations

import pytest
from lxml import etree

from fel_rules import Config, Validator
from fel_rules.checks._xpath import child_path_finder
from fel_rules.checks.expression import ExpressionCheck
from fel_rules.core.namespaces import DTE
from fel_rules.document.parse import parse_xml
from fel_rules.testing.builder import sample_invoice

from .conftest import EXAMPLES

NAMESPACES = {"dte": DTE, "ds": "http://www.w3.org/2000/09/xmldsig#"}


def _rule_paths() -> list[tuple[str, dict]]:
    """Every context and binding path of the rules (places expanded) that has a finder."""
    paths = set()
    for rule in Validator(Config()).catalog.rules:
        check = rule.check
        if not isinstance(check, ExpressionCheck):
            continue
        namespaces = tuple(sorted(check.namespaces.items()))
        paths.add((check.context.path, namespaces))
        paths.update((binding.path, namespaces) for binding in check.bindings
                     if binding.path is not None and not binding.needs)
    found = [(path, dict(spaces)) for path, spaces in sorted(paths) if child_path_finder(path, dict(spaces))]
    return found


PATHS = _rule_paths()
DOCUMENTS = [parse_xml(path.read_bytes(), max_bytes=10**7).root for path in sorted(EXAMPLES.glob("*.xml"))]
DOCUMENTS.append(parse_xml(sample_invoice("FACT").to_xml(), max_bytes=10**7).root)


def test_most_rule_paths_have_a_finder() -> None:
    assert len(PATHS) > 40


@pytest.mark.parametrize(("path", "namespaces"), PATHS, ids=[path for path, _ in PATHS])
def test_finder_gives_what_xpath_gives(path: str, namespaces: dict) -> None:
    finder = child_path_finder(path, namespaces)
    assert finder is not None
    xpath = etree.XPath(path, namespaces=namespaces)
    for root in DOCUMENTS:
        memo: dict = {}
        for node in root.iter(etree.Element):
            assert finder(node, memo) == xpath(node), (path, root.getroottree().getpath(node))
            assert finder(node, memo) == xpath(node), "again, from the memo"



#: Predicates on children that have several values, nested text, comments, a "/" in the compared text.
TRICKY = etree.fromstring(f"""<dte:R xmlns:dte="{DTE}">
  <dte:I><dte:N>IVA</dte:N><dte:N>ISR</dte:N><dte:M>1</dte:M></dte:I>
  <dte:I><dte:N>I<!-- c -->VA</dte:N><dte:M>2</dte:M></dte:I>
  <dte:I><dte:N>I<dte:x>V</dte:x>A</dte:N><dte:M>3</dte:M><dte:M>4</dte:M></dte:I>
  <dte:I><dte:N> IVA</dte:N><dte:M>5</dte:M></dte:I>
  <dte:I><dte:N>a/b</dte:N><dte:M>6</dte:M></dte:I>
  <dte:I><dte:N/><dte:M>7</dte:M></dte:I>
  <dte:I><dte:M>8</dte:M></dte:I>
</dte:R>""")


@pytest.mark.parametrize("path", [
    "/dte:GTDocumento", "/dte:Otro/dte:SAT", "../..", "../../..", "dte:SAT/dte:DTE", "../../dte:Items/dte:Item",
    "/dte:GTDocumento/dte:SAT/dte:DTE/dte:DatosEmision", "dte:I[dte:N='IVA']/dte:M", "dte:I[dte:N!='IVA']/dte:M",
    "dte:I[dte:N = \"a/b\"]/dte:M", "dte:I[ dte:N != '' ]", "dte:I[dte:N='']/dte:M", "/dte:R[dte:I='IVA']",
    "/dte:R/dte:I[dte:M='4']/dte:N", "../dte:I[dte:N='IVA']", "dte:Impuestos/dte:Impuesto[dte:NombreCorto='IVA']",
])
def test_written_paths(path: str) -> None:
    finder = child_path_finder(path, NAMESPACES)
    assert finder is not None
    xpath = etree.XPath(path, namespaces=NAMESPACES)
    for root in [*DOCUMENTS, TRICKY]:
        memo: dict = {}
        for node in root.iter(etree.Element):
            assert finder(node, memo) == xpath(node), path


@pytest.mark.parametrize("path", [
    "dte:A[1]", "//dte:Item", "@Tipo", "dte:A/@B", "x:A", "dte:A | dte:B", ".", "dte:A[dte:B=1]",
    "/dte:R[dte:I/dte:N='IVA']", "dte:A[dte:B='x'][dte:C='y']", "dte:A[x:B='y']", "dte:A[@B='x']",
])
def test_other_paths_have_no_finder(path: str) -> None:
    assert child_path_finder(path, NAMESPACES) is None
